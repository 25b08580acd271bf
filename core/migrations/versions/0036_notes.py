"""Notes (docs/teams.md, "Comments and notifications"): comments on posts and groups, each
member's notifications (told once per fact: a unique dedupe key) and their choice of where each
kind goes.

Revision ID: 0036
Revises: 0035
Create Date: 2026-11-28 12:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0036"
down_revision = "0034"
branch_labels = None
depends_on = None

_WHEN = core.db.types.UTCDateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "post_comments",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("group_id", sa.String(length=32), nullable=False),
        sa.Column("post_id", sa.String(length=32), nullable=True),
        sa.Column("author_id", sa.String(length=32), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("mentions", sa.Text(), server_default="", nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_post_comments_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["post_id"], ["posts.id"], name=op.f("fk_post_comments_post_id_posts"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["author_id"], ["users.id"], name=op.f("fk_post_comments_author_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_post_comments")),
    )
    with op.batch_alter_table("post_comments", schema=None) as batch_op:
        batch_op.create_index("ix_post_comments_org_group_created", ["org_id", "group_id", "created_at"])
    op.create_table(
        "notifications",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("subject_id", sa.String(length=64), server_default="", nullable=False),
        sa.Column("link", sa.String(length=300), server_default="", nullable=False),
        sa.Column("dedupe_key", sa.String(length=128), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("read_at", _WHEN, nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_notifications_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_notifications_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notifications")),
        sa.UniqueConstraint("user_id", "org_id", "dedupe_key", name="uq_notifications_once"),
    )
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.create_index("ix_notifications_user_org_created", ["user_id", "org_id", "created_at", "id"])
    op.create_table(
        "notification_settings",
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("inbox", sa.Boolean(), nullable=False),
        sa.Column("email", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_notification_settings_user_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_notification_settings_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "org_id", "kind", name=op.f("pk_notification_settings")),
    )


def downgrade() -> None:
    op.drop_table("notification_settings")
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.drop_index("ix_notifications_user_org_created")
    op.drop_table("notifications")
    with op.batch_alter_table("post_comments", schema=None) as batch_op:
        batch_op.drop_index("ix_post_comments_org_group_created")
    op.drop_table("post_comments")
