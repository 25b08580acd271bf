"""Sourcing runs keep their request, so a worker can finish one whose core stopped (a job of the
lease queue stands behind each run)

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26 14:20:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("sourcing_runs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("request", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("sourcing_runs", schema=None) as batch_op:
        batch_op.drop_column("request")
