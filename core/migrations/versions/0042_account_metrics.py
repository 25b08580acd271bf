"""account_metric_series and account_metric_snapshots: each profile's followers, read once a day
by the workers under a lease and kept as small rows (docs/analytics.md, "Account metrics")

Revision ID: 0042
Revises: 0041
Create Date: 2026-12-08 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0042"
down_revision = "0041"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "account_metric_series",
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("due_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("lease_owner", sa.String(length=80), nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("read_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_account_metric_series_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["profile_id"],
            ["profiles.id"],
            name=op.f("fk_account_metric_series_profile_id_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("profile_id", name=op.f("pk_account_metric_series")),
    )
    with op.batch_alter_table("account_metric_series", schema=None) as batch_op:
        batch_op.create_index(
            "ix_account_metric_series_due_at",
            ["due_at"],
            unique=False,
            sqlite_where=sa.text("due_at IS NOT NULL"),
            postgresql_where=sa.text("due_at IS NOT NULL"),
        )
    op.create_table(
        "account_metric_snapshots",
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("collected_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("followers", sa.BigInteger(), nullable=False),
        sa.Column("sandbox", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["profile_id"],
            ["profiles.id"],
            name=op.f("fk_account_metric_snapshots_profile_id_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("profile_id", "collected_at", name=op.f("pk_account_metric_snapshots")),
    )


def downgrade() -> None:
    op.drop_table("account_metric_snapshots")
    with op.batch_alter_table("account_metric_series", schema=None) as batch_op:
        batch_op.drop_index("ix_account_metric_series_due_at")
    op.drop_table("account_metric_series")
