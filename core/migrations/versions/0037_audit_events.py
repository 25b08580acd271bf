"""audit_events: the audit log, one row per change a person made (docs/teams.md, "Audit log"),
read newest first within the organization; no foreign keys (core/db/models/audit.py)

Revision ID: 0037
Revises: 0036
Create Date: 2026-12-04 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0037"
down_revision = "0036"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audit_events",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("actor_user_id", sa.String(length=32), nullable=False),
        sa.Column("via", sa.String(length=16), nullable=False),
        sa.Column("credential_id", sa.String(length=32), nullable=False),
        sa.Column("method", sa.String(length=80), nullable=False),
        sa.Column("resource_kind", sa.String(length=32), nullable=True),
        sa.Column("resource_id", sa.String(length=200), nullable=True),
        sa.Column("request_id", sa.String(length=128), nullable=True),
        sa.CheckConstraint("via IN ('dashboard', 'api_key', 'agent')", name=op.f("ck_audit_events_via_known")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_events")),
    )
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.create_index("ix_audit_events_org_id_at_id", ["org_id", "at", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.drop_index("ix_audit_events_org_id_at_id")
    op.drop_table("audit_events")
