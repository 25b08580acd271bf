"""Reading the platforms' own metrics (docs/analytics.md, "Each platform"): a profile remembers
why its metrics cannot be read (a permission not granted, a dead token) and until when the
platform's metrics reads asked it to wait; a post's series remembers that the post was found
deleted (its reads end).

Revision ID: 0041
Revises: 0040
Create Date: 2026-11-29 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0041"
down_revision = "0040"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("profiles", schema=None) as batch_op:
        batch_op.add_column(sa.Column("metrics_error", sa.Text(), server_default="", nullable=False))
        batch_op.add_column(sa.Column("metrics_unavailable", sa.String(length=300), server_default="", nullable=False))
        batch_op.add_column(
            sa.Column("metrics_throttled_until", core.db.types.UTCDateTime(timezone=True), nullable=True)
        )
    with op.batch_alter_table("post_metric_series", schema=None) as batch_op:
        batch_op.add_column(sa.Column("gone_at", core.db.types.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("post_metric_series", schema=None) as batch_op:
        batch_op.drop_column("gone_at")
    with op.batch_alter_table("profiles", schema=None) as batch_op:
        batch_op.drop_column("metrics_throttled_until")
        batch_op.drop_column("metrics_unavailable")
        batch_op.drop_column("metrics_error")
