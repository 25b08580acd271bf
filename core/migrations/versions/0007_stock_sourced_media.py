"""stock photos: where a sourced media record came from

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 22:15:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.add_column(sa.Column("source_provider", sa.String(length=16), server_default="", nullable=False))
        batch_op.add_column(sa.Column("source_ref", sa.String(length=128), server_default="", nullable=False))
        batch_op.add_column(sa.Column("source_query", sa.String(length=500), server_default="", nullable=False))
        batch_op.add_column(sa.Column("attribution", sa.Text(), server_default="", nullable=False))
    with op.batch_alter_table("organizations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("stock_disabled", sa.String(length=100), server_default="", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("organizations", schema=None) as batch_op:
        batch_op.drop_column("stock_disabled")
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.drop_column("attribution")
        batch_op.drop_column("source_query")
        batch_op.drop_column("source_ref")
        batch_op.drop_column("source_provider")
