"""retention of webhook history: an event's messages and a message's attempts are found by
index (the pruning in core/worker/retention.py, and the cascade from a deleted event)

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27 11:20:00
"""

from __future__ import annotations

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("webhook_messages", schema=None) as batch_op:
        batch_op.create_index("ix_webhook_messages_event_id", ["event_id"], unique=False)
    with op.batch_alter_table("webhook_attempts", schema=None) as batch_op:
        batch_op.create_index("ix_webhook_attempts_message_id", ["message_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("webhook_attempts", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_attempts_message_id")
    with op.batch_alter_table("webhook_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_messages_event_id")
