"""Media records pin the object generation confirm checked (`storage_generation`), so reads, read
URLs and publishing use those bytes only, never a later replacement under the same key (Google
Cloud Storage; NULL for the local backend, and for records confirmed before: read as they are)

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28 05:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.add_column(sa.Column("storage_generation", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.drop_column("storage_generation")
