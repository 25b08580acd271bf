"""The unread notifications' count, which every dashboard page now shows with its session
(AccountService.GetSessionView), reads a partial index of the unread ones: as many entries as are
unread, however long the member's history (docs/performance.md, "The navigation in the session's
call").

Revision ID: 0044
Revises: 0043
Create Date: 2026-11-28 14:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0044"
down_revision = "0043"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.create_index(
            "ix_notifications_unread",
            ["user_id", "org_id"],
            unique=False,
            sqlite_where=sa.text("read_at IS NULL"),
            postgresql_where=sa.text("read_at IS NULL"),
        )


def downgrade() -> None:
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.drop_index("ix_notifications_unread")
