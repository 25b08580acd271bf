"""Approvals (docs/teams.md, "Approvals"): the `pending_approval` post status, who a post was
written by (author_id, author_via), whether a waiting post goes out as soon as it is approved
(send_now: it had no time of its own) and its last review (outcome, reviewer, time, comment); the
organization's approval settings. The posts page's upcoming section counts posts waiting for
approval, so its partial index is made again with the new predicate.

Revision ID: 0033
Revises: 0032
Create Date: 2026-11-28 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None

_OLD = "'scheduled', 'queued', 'publishing', 'published', 'failed', 'canceled', 'draft', 'partially_published'"
STATUSES = sa.text(f"status IN ({_OLD}, 'pending_approval')")
OLD_STATUSES = sa.text(f"status IN ({_OLD})")
UPCOMING = sa.text("status IN ('draft', 'pending_approval', 'scheduled', 'queued', 'publishing')")
OLD_UPCOMING = sa.text("status IN ('draft', 'scheduled', 'queued', 'publishing')")
COLUMNS = ["org_id", "schedule_at", "group_id"]


def upgrade() -> None:
    with op.batch_alter_table("organizations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("approvals_required_for", sa.String(64), server_default="", nullable=False))
        batch_op.add_column(sa.Column("approval_profile_tags", sa.Text(), server_default="", nullable=False))
        batch_op.add_column(sa.Column("self_approval", sa.Boolean(), server_default=sa.false(), nullable=False))
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("author_id", sa.String(32), nullable=True))
        batch_op.add_column(sa.Column("author_via", sa.String(16), nullable=True))
        batch_op.add_column(sa.Column("review_outcome", sa.String(16), nullable=True))
        batch_op.add_column(sa.Column("reviewer_id", sa.String(32), nullable=True))
        batch_op.add_column(sa.Column("reviewed_at", core.db.types.UTCDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("review_comment", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("send_now", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.drop_constraint(op.f("ck_posts_status_known"), type_="check")
        batch_op.create_check_constraint("status_known", STATUSES)
        batch_op.drop_index("ix_posts_upcoming", sqlite_where=OLD_UPCOMING, postgresql_where=OLD_UPCOMING)
        batch_op.create_index("ix_posts_upcoming", COLUMNS, sqlite_where=UPCOMING, postgresql_where=UPCOMING)


def downgrade() -> None:
    # Posts waiting for approval go back to draft: the status before approvals existed that
    # never goes out on its own.
    op.execute("UPDATE posts SET status = 'draft' WHERE status = 'pending_approval'")
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_index("ix_posts_upcoming", sqlite_where=UPCOMING, postgresql_where=UPCOMING)
        batch_op.create_index("ix_posts_upcoming", COLUMNS, sqlite_where=OLD_UPCOMING, postgresql_where=OLD_UPCOMING)
        batch_op.drop_constraint(op.f("ck_posts_status_known"), type_="check")
        batch_op.create_check_constraint("status_known", OLD_STATUSES)
        for column in (
            "send_now",
            "review_comment",
            "reviewed_at",
            "reviewer_id",
            "review_outcome",
            "author_via",
            "author_id",
        ):
            batch_op.drop_column(column)
    with op.batch_alter_table("organizations", schema=None) as batch_op:
        for column in ("self_approval", "approval_profile_tags", "approvals_required_for"):
            batch_op.drop_column(column)
