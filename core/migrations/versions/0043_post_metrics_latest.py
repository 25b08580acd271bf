"""Summaries and lists of posts' metrics (docs/analytics.md, "Summaries and lists"): each post's
series carries its profile, its platform and its latest reading, and is found by organization
and publish time, so a summary reads these rows alone. Filled here from the posts and their
snapshots; every published post gets a series (those out before analytics existed had none), with
no read due.

Revision ID: 0043
Revises: 0042
Create Date: 2026-11-29 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0043"
down_revision = "0042"
branch_labels = None
depends_on = None

WIDE = ("impressions", "reach", "video_views", "watch_time_seconds")
COUNTS = ("likes", "reposts", "replies", "quotes", "bookmarks", "shares", "link_clicks")

series = sa.table(
    "post_metric_series",
    sa.column("id"),
    sa.column("post_id"),
    sa.column("org_id"),
    sa.column("profile_id"),
    sa.column("connector"),
    sa.column("published_at"),
    sa.column("due_at"),
    sa.column("step"),
    sa.column("refresh", sa.Boolean),
    sa.column("failures"),
    sa.column("last_error"),
    sa.column("raw"),
    sa.column("latest_at"),
    sa.column("latest_sandbox"),
    *(sa.column(f"latest_{name}") for name in WIDE + COUNTS),
)
posts = sa.table(
    "posts",
    sa.column("id"),
    sa.column("org_id"),
    sa.column("profile_id"),
    sa.column("connector"),
    sa.column("status"),
    sa.column("published_at"),
    sa.column("updated_at"),
)
snapshots = sa.table(
    "post_metric_snapshots",
    sa.column("series_id"),
    sa.column("part"),
    sa.column("collected_at"),
    sa.column("sandbox"),
    *(sa.column(name) for name in WIDE + COUNTS),
)


def upgrade() -> None:
    with op.batch_alter_table("post_metric_series", schema=None) as batch_op:
        batch_op.add_column(sa.Column("profile_id", sa.String(length=32), server_default="", nullable=False))
        batch_op.add_column(sa.Column("connector", sa.String(length=16), server_default="", nullable=False))
        batch_op.add_column(sa.Column("latest_at", core.db.types.UTCDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("latest_sandbox", sa.Boolean(), nullable=True))
        for name in WIDE:
            batch_op.add_column(sa.Column(f"latest_{name}", sa.BigInteger(), nullable=True))
        for name in COUNTS:
            batch_op.add_column(sa.Column(f"latest_{name}", sa.Integer(), nullable=True))
        batch_op.create_index("ix_post_metric_series_org_id_published_at", ["org_id", "published_at"], unique=False)
    post = posts.alias("p")
    op.execute(
        series.update().values(
            profile_id=sa.select(post.c.profile_id).where(post.c.id == series.c.post_id).scalar_subquery(),
            connector=sa.select(post.c.connector).where(post.c.id == series.c.post_id).scalar_subquery(),
        )
    )
    own = sa.and_(snapshots.c.series_id == series.c.id, snapshots.c.part == -1)
    op.execute(
        series.update().values(latest_at=sa.select(sa.func.max(snapshots.c.collected_at)).where(own).scalar_subquery())
    )
    latest = sa.and_(own, snapshots.c.collected_at == series.c.latest_at)
    values = {f"latest_{name}": sa.select(snapshots.c[name]).where(latest).scalar_subquery() for name in WIDE + COUNTS}
    values["latest_sandbox"] = sa.select(snapshots.c.sandbox).where(latest).scalar_subquery()
    op.execute(series.update().where(series.c.latest_at.is_not(None)).values(**values))
    tracked = sa.select(series.c.id).where(series.c.post_id == post.c.id).exists()
    op.execute(
        series.insert().from_select(
            ["post_id", "org_id", "profile_id", "connector", "published_at", "step", "refresh", "failures"]
            + ["last_error", "raw"],
            sa.select(
                post.c.id,
                post.c.org_id,
                post.c.profile_id,
                post.c.connector,
                sa.func.coalesce(post.c.published_at, post.c.updated_at),
                sa.literal(0),
                sa.false(),
                sa.literal(0),
                sa.literal(""),
                sa.literal(""),
            ).where(post.c.status.in_(("published", "partially_published")), ~tracked),
        )
    )


def downgrade() -> None:
    with op.batch_alter_table("post_metric_series", schema=None) as batch_op:
        batch_op.drop_index("ix_post_metric_series_org_id_published_at")
        for name in reversed(WIDE + COUNTS):
            batch_op.drop_column(f"latest_{name}")
        batch_op.drop_column("latest_sandbox")
        batch_op.drop_column("latest_at")
        batch_op.drop_column("connector")
        batch_op.drop_column("profile_id")
