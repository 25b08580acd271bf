"""Notifications kept only to be told once (a kind a member sends to email, not the inbox) are
marked so, and the inbox leaves them out (docs/teams.md, "Comments and notifications").

Revision ID: 0040
Revises: 0039
Create Date: 2026-11-28 13:05:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0040"
down_revision = "0039"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.add_column(sa.Column("inbox", sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.drop_column("inbox")
