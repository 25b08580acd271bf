"""webhook events are fanned out to endpoints by the workers, after the change commits; an
endpoint remembers since when its deliveries fail; a job may belong to a partition (its endpoint)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 08:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

PENDING = sa.text("fanned_out_at IS NULL")


def upgrade() -> None:
    with op.batch_alter_table("webhook_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fanned_out_at", core.db.types.UTCDateTime(timezone=True), nullable=True))
    # Events written before this revision were fanned out as they were written.
    op.execute("UPDATE webhook_events SET fanned_out_at = created_at")
    with op.batch_alter_table("webhook_events", schema=None) as batch_op:
        batch_op.create_index(
            "ix_webhook_events_pending", ["created_at"], sqlite_where=PENDING, postgresql_where=PENDING
        )
    with op.batch_alter_table("webhooks", schema=None) as batch_op:
        batch_op.add_column(sa.Column("failing_since", core.db.types.UTCDateTime(timezone=True), nullable=True))
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("partition", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_column("partition")
    with op.batch_alter_table("webhooks", schema=None) as batch_op:
        batch_op.drop_column("failing_since")
    with op.batch_alter_table("webhook_events", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_events_pending", sqlite_where=PENDING, postgresql_where=PENDING)
        batch_op.drop_column("fanned_out_at")
