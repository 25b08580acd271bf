"""The posts page lists an organization's post groups by send time, upcoming ones and the rest
apart (docs/dashboard.md, "Posts"): a partial index of each section's posts on (org_id,
schedule_at, group_id), which its keyset pages walk from any position

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-01 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None

UPCOMING = sa.text("status IN ('draft', 'scheduled', 'queued', 'publishing')")
HISTORY = sa.text("status IN ('published', 'partially_published', 'failed', 'canceled')")
COLUMNS = ["org_id", "schedule_at", "group_id"]


def upgrade() -> None:
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.create_index("ix_posts_upcoming", COLUMNS, sqlite_where=UPCOMING, postgresql_where=UPCOMING)
        batch_op.create_index("ix_posts_history", COLUMNS, sqlite_where=HISTORY, postgresql_where=HISTORY)


def downgrade() -> None:
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_index("ix_posts_history", sqlite_where=HISTORY, postgresql_where=HISTORY)
        batch_op.drop_index("ix_posts_upcoming", sqlite_where=UPCOMING, postgresql_where=UPCOMING)
