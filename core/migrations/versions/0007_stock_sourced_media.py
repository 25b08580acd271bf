"""stock photos: where a sourced media record came from

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 22:15:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sourcing_runs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("requested_count", sa.Integer(), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
        sa.Column("error_code", sa.String(length=32), nullable=False),
        sa.Column("error_message", sa.Text(), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('running', 'ready', 'failed')", name=op.f("ck_sourcing_runs_status_known")),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_sourcing_runs_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sourcing_runs")),
    )
    op.create_index("ix_sourcing_runs_org_id_id", "sourcing_runs", ["org_id", "id"], unique=False)
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.add_column(sa.Column("source_provider", sa.String(length=16), server_default="", nullable=False))
        batch_op.add_column(sa.Column("source_ref", sa.String(length=128), server_default="", nullable=False))
        batch_op.add_column(sa.Column("source_query", sa.String(length=500), server_default="", nullable=False))
        batch_op.add_column(sa.Column("attribution", sa.Text(), server_default="", nullable=False))
    with op.batch_alter_table("organizations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("stock_disabled", sa.String(length=100), server_default="", nullable=False))


def downgrade() -> None:
    op.drop_index("ix_sourcing_runs_org_id_id", table_name="sourcing_runs")
    op.drop_table("sourcing_runs")
    with op.batch_alter_table("organizations", schema=None) as batch_op:
        batch_op.drop_column("stock_disabled")
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.drop_column("attribution")
        batch_op.drop_column("source_query")
        batch_op.drop_column("source_ref")
        batch_op.drop_column("source_provider")
