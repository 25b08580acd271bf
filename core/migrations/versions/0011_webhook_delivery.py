"""webhook delivery: events, messages per endpoint, the attempt log

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26 06:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

UTC = core.db.types.UTCDateTime(timezone=True)


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "webhook_events",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        _fk("webhook_events", "org_id", "organizations"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_events")),
    )
    op.create_table(
        "webhook_messages",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("webhook_id", sa.String(length=32), nullable=False),
        sa.Column("event_id", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("updated_at", UTC, nullable=False),
        _fk("webhook_messages", "org_id", "organizations"),
        _fk("webhook_messages", "webhook_id", "webhooks"),
        _fk("webhook_messages", "event_id", "webhook_events"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_messages")),
    )
    op.create_table(
        "webhook_attempts",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("webhook_id", sa.String(length=32), nullable=False),
        sa.Column("message_id", sa.String(length=32), nullable=False),
        sa.Column("event_id", sa.String(length=32), nullable=False),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("error", sa.String(length=500), nullable=False),
        sa.Column("response_body", sa.Text(), nullable=False),
        sa.Column("delivered_at", UTC, nullable=False),
        sa.Column("next_attempt_at", UTC, nullable=True),
        _fk("webhook_attempts", "webhook_id", "webhooks"),
        _fk("webhook_attempts", "message_id", "webhook_messages"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_attempts")),
    )
    for table, columns in (
        ("webhook_events", ["org_id", "id"]),
        ("webhook_messages", ["webhook_id", "id"]),
        ("webhook_attempts", ["webhook_id", "id"]),
    ):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(f"ix_{table}_{'_'.join(columns)}", columns, unique=False)


def downgrade() -> None:
    for table in ("webhook_attempts", "webhook_messages", "webhook_events"):
        op.drop_table(table)
