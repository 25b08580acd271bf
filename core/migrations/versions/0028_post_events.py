"""post_events: each post's history (created, edited, claimed, attempts, published or failed…),
written with the change it records; a post's events go with it (docs/posts.md, "History")

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-02 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "post_events",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("post_id", sa.String(length=32), nullable=False),
        sa.Column("at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.Text(), server_default="", nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_post_events_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["post_id"], ["posts.id"], name=op.f("fk_post_events_post_id_posts"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_post_events")),
    )
    with op.batch_alter_table("post_events", schema=None) as batch_op:
        batch_op.create_index("ix_post_events_post_id_at_id", ["post_id", "at", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("post_events", schema=None) as batch_op:
        batch_op.drop_index("ix_post_events_post_id_at_id")
    op.drop_table("post_events")
