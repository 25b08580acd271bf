"""posts as publishers write them: drafts, thread items and first comments, time slots

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26 01:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

OLD_STATUSES = "status IN ('scheduled', 'queued', 'publishing', 'published', 'failed', 'canceled')"
NEW_STATUSES = (
    "status IN ('scheduled', 'queued', 'publishing', 'published', 'failed', 'canceled', 'draft', 'partially_published')"
)


def upgrade() -> None:
    op.create_table(
        "post_parts",
        sa.Column("post_id", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("delivery_key", sa.String(length=64), nullable=False),
        sa.Column("platform_post_id", sa.String(length=500), nullable=False),
        sa.Column("platform_url", sa.String(length=500), nullable=False),
        sa.Column("platform_cid", sa.String(length=128), nullable=False),
        sa.Column("delivery_state", sa.Text(), nullable=False),
        sa.CheckConstraint("kind IN ('thread', 'comment')", name=op.f("ck_post_parts_kind_known")),
        sa.CheckConstraint(
            "status IN ('pending', 'published', 'failed', 'skipped')", name=op.f("ck_post_parts_status_known")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_post_parts_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["post_id"], ["posts.id"], name=op.f("fk_post_parts_post_id_posts"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("post_id", "position", name=op.f("pk_post_parts")),
    )
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("units", sa.Integer(), server_default="1", nullable=False))
        # `partially_published` is 19 characters.
        batch_op.alter_column("status", existing_type=sa.String(length=16), type_=sa.String(length=32))
        batch_op.drop_constraint(op.f("ck_posts_status_known"), type_="check")
        batch_op.create_check_constraint("status_known", NEW_STATUSES)
        batch_op.create_index("ix_posts_profile_id_schedule_at", ["profile_id", "schedule_at"], unique=False)
    with op.batch_alter_table("post_media", schema=None) as batch_op:
        batch_op.add_column(sa.Column("part", sa.Integer(), server_default="-1", nullable=False))
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("part", sa.Integer(), server_default="-1", nullable=False))
        batch_op.add_column(sa.Column("platform_cid", sa.String(length=128), server_default="", nullable=False))
    with op.batch_alter_table("profiles", schema=None) as batch_op:
        batch_op.add_column(sa.Column("slot_table", sa.Text(), server_default="", nullable=False))
        batch_op.add_column(sa.Column("slot_watermark", core.db.types.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("profiles", schema=None) as batch_op:
        batch_op.drop_column("slot_watermark")
        batch_op.drop_column("slot_table")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("platform_cid")
        batch_op.drop_column("part")
    with op.batch_alter_table("post_media", schema=None) as batch_op:
        batch_op.drop_column("part")
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_index("ix_posts_profile_id_schedule_at")
        batch_op.drop_constraint(op.f("ck_posts_status_known"), type_="check")
        batch_op.create_check_constraint("status_known", OLD_STATUSES)
        batch_op.alter_column("status", existing_type=sa.String(length=32), type_=sa.String(length=16))
        batch_op.drop_column("units")
    op.drop_table("post_parts")
