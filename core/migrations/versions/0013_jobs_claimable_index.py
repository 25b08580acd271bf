"""the job claim reads each partition's range of an index of claimable jobs on its own, so a
saturated partition's backlog (a slow webhook endpoint's) is never walked to reach another's

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27 10:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

CLAIMABLE = sa.text("status IN ('queued', 'running')")


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index(
            "ix_jobs_claimable", ["partition", "due_at"], sqlite_where=CLAIMABLE, postgresql_where=CLAIMABLE
        )


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_claimable", sqlite_where=CLAIMABLE, postgresql_where=CLAIMABLE)
