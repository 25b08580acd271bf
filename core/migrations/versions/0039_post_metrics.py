"""post_metric_series and post_metric_snapshots: each published post's metric reads, scheduled,
leased and kept as compact snapshots (docs/analytics.md, "Storage")

Revision ID: 0039
Revises: 0038
Create Date: 2026-12-05 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0039"
down_revision = "0038"
branch_labels = None
depends_on = None

SERIES_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
BIG = ("impressions", "reach", "video_views", "watch_time_seconds")
SMALL = ("likes", "reposts", "replies", "quotes", "bookmarks", "shares", "link_clicks")


def upgrade() -> None:
    op.create_table(
        "post_metric_series",
        sa.Column("id", SERIES_ID, autoincrement=True, nullable=False),
        sa.Column("post_id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("published_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("due_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("refresh", sa.Boolean(), nullable=False),
        sa.Column("lease_owner", sa.String(length=80), nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("read_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("raw", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_post_metric_series_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["post_id"], ["posts.id"], name=op.f("fk_post_metric_series_post_id_posts"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_post_metric_series")),
        sa.UniqueConstraint("post_id", name=op.f("uq_post_metric_series_post_id")),
    )
    with op.batch_alter_table("post_metric_series", schema=None) as batch_op:
        batch_op.create_index(
            "ix_post_metric_series_due_at",
            ["due_at"],
            unique=False,
            sqlite_where=sa.text("due_at IS NOT NULL"),
            postgresql_where=sa.text("due_at IS NOT NULL"),
        )
    op.create_table(
        "post_metric_snapshots",
        sa.Column("series_id", SERIES_ID, nullable=False),
        sa.Column("collected_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        *(sa.Column(name, sa.BigInteger(), nullable=True) for name in BIG),
        *(sa.Column(name, sa.Integer(), nullable=True) for name in SMALL),
        sa.Column("part", sa.SmallInteger(), nullable=False),
        sa.Column("sandbox", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["series_id"],
            ["post_metric_series.id"],
            name=op.f("fk_post_metric_snapshots_series_id_post_metric_series"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("series_id", "part", "collected_at", name=op.f("pk_post_metric_snapshots")),
    )


def downgrade() -> None:
    op.drop_table("post_metric_snapshots")
    with op.batch_alter_table("post_metric_series", schema=None) as batch_op:
        batch_op.drop_index("ix_post_metric_series_due_at")
    op.drop_table("post_metric_series")
