"""Profile limits (docs/teams.md, "Profile limits"): the tags a member's rights are narrowed to
(memberships.profile_tags, space-separated; empty: every profile), and those an invitation gives
the member who joins through it.

Revision ID: 0034
Revises: 0033
Create Date: 2026-11-29 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None

TABLES = ("memberships", "invitations")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("profile_tags", sa.Text(), server_default="", nullable=False))


def downgrade() -> None:
    for table in reversed(TABLES):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("profile_tags")
