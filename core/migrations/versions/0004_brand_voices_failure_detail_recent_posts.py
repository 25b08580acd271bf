"""brand voices, post failure detail, posts by publication time

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 08:55:47.993425
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "brand_voices",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("scope", sa.String(length=32), nullable=False),
        sa.Column("profile_id", sa.String(length=32), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("is_current", sa.Boolean(), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=320), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_brand_voices_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name=op.f("fk_brand_voices_profile_id_profiles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_brand_voices")),
        sa.UniqueConstraint("org_id", "scope", "version", name=op.f("uq_brand_voices_org_id_scope_version")),
    )
    with op.batch_alter_table("brand_voices", schema=None) as batch_op:
        batch_op.create_index(
            "ix_brand_voices_current",
            ["org_id", "scope"],
            unique=True,
            sqlite_where=sa.text("is_current"),
            postgresql_where=sa.text("is_current"),
        )

    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("failure_detail", sa.Text(), server_default="", nullable=False))
        batch_op.create_index("ix_posts_org_id_published_at", ["org_id", "published_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_index("ix_posts_org_id_published_at")
        batch_op.drop_column("failure_detail")

    with op.batch_alter_table("brand_voices", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_brand_voices_current", sqlite_where=sa.text("is_current"), postgresql_where=sa.text("is_current")
        )

    op.drop_table("brand_voices")
