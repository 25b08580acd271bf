"""request ids: a post remembers the request that created it, and an event the request that
caused it (sent as X-Request-Id with each delivery)

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27 11:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("request_id", sa.String(length=128), nullable=True))
    with op.batch_alter_table("webhook_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("request_id", sa.String(length=128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhook_events", schema=None) as batch_op:
        batch_op.drop_column("request_id")
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_column("request_id")
