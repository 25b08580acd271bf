"""A post's metrics as read, and a refresh asked (docs/analytics.md, "Surfaces")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.analytics import POST_METRICS
from core.analytics.schedule import steps_behind
from core.db.models import post_metric_series, post_metric_snapshots, posts
from core.errors import NotFound
from core.posts.validation import InvalidPostState

# Earlier readings a post's metrics show, newest first.
HISTORY = 100
OUT = ("published", "partially_published")

series = post_metric_series.c
snapshots = post_metric_snapshots.c


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One reading: the part it is of (-1 the post, else a thread item's position), when, whether
    synthetic, and the metrics the platform gave."""

    part: int
    collected_at: datetime
    sandbox: bool
    values: dict[str, int]


@dataclass(frozen=True, slots=True)
class PostMetricsRecord:
    post_id: str
    latest: Snapshot | None
    history: list[Snapshot]
    # Each thread item's latest reading, in thread order.
    thread: list[Snapshot]
    next_read_at: datetime | None
    # Where the reading stands (contract/analytics.py TRACKING): what the series row says.
    tracking: str


def _not_found(post_id: str) -> NotFound:
    return NotFound(f"no post {post_id[:40]!r} in this organization")


async def post_metrics(conn: AsyncConnection, org_id: str, post_id: str) -> PostMetricsRecord:
    """The post's readings: the latest and up to HISTORY earlier ones of the post itself, and
    each thread item's latest. NOT_FOUND for a post of another organization."""
    found = (
        await conn.execute(
            select(posts.c.status, series.id, series.due_at, series.lease_owner, series.gone_at)
            .select_from(posts.outerjoin(post_metric_series, series.post_id == posts.c.id))
            .where(posts.c.org_id == org_id, posts.c.id == post_id)
        )
    ).first()
    if found is None:
        raise _not_found(post_id)
    if found.id is None:  # not out (yet); a post out before analytics existed was given a series
        return PostMetricsRecord(post_id, None, [], [], None, "done" if found.status in OUT else "not_published")
    columns = (snapshots.part, snapshots.collected_at, snapshots.sandbox, *(snapshots[n] for n in POST_METRICS))
    own = await conn.execute(
        select(*columns)
        .where(snapshots.series_id == found.id, snapshots.part == -1)
        .order_by(snapshots.collected_at.desc())
        .limit(HISTORY + 1)
    )
    items = await conn.execute(
        select(*columns)
        .where(snapshots.series_id == found.id, snapshots.part >= 0)
        .order_by(snapshots.part, snapshots.collected_at.desc())
    )
    readings = [_snapshot(row) for row in own]
    thread: dict[int, Snapshot] = {}
    for row in items:
        thread.setdefault(row.part, _snapshot(row))
    # While a worker holds the series, due_at is its lease's end: the read is under way.
    next_read_at = found.due_at if found.lease_owner is None else None
    return PostMetricsRecord(
        post_id, readings[0] if readings else None, readings[1:], list(thread.values()), next_read_at, _tracking(found)
    )


def _tracking(found) -> str:  # a row of the series with its post's status
    """The smallest honest account of the series row: deleted on the platform (`gone_at`), a
    worker's lease on it, a read due, or none due (the schedule is over)."""
    if found.gone_at is not None:
        return "gone"
    if found.lease_owner is not None:
        return "reading"
    return "scheduled" if found.due_at is not None else "done"


def _snapshot(row) -> Snapshot:  # a row of `columns`
    values = {name: getattr(row, name) for name in POST_METRICS if getattr(row, name) is not None}
    return Snapshot(row.part, row.collected_at, row.sandbox, values)


async def refresh(
    conn: AsyncConnection, org_id: str, post_id: str, now: datetime, offsets: tuple[timedelta, ...]
) -> bool:
    """Makes the post's next read due now; False when one is pending already (a refresh asked,
    a read under way or due), which changes nothing. A post out before analytics existed gets
    its series now, with the schedule's reads behind it counted as done. INVALID_POST_STATE for
    a post that is not out."""
    post = (
        await conn.execute(
            select(posts.c.status, posts.c.published_at, posts.c.profile_id, posts.c.connector).where(
                posts.c.org_id == org_id, posts.c.id == post_id
            )
        )
    ).first()
    if post is None:
        raise _not_found(post_id)
    if post.status not in OUT:
        raise InvalidPostState(f"only a published post has metrics to read; this one is {post.status}")
    asked = await conn.execute(
        update(post_metric_series)
        .where(
            series.post_id == post_id,
            series.refresh.is_(False),
            series.lease_owner.is_(None),
            series.gone_at.is_(None),  # deleted on its platform: read no more
            (series.due_at.is_(None)) | (series.due_at > now),
        )
        .values(refresh=True, due_at=now)
    )
    if asked.rowcount:
        return True
    published_at = post.published_at or now
    dialect_insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    added = await conn.execute(
        dialect_insert(post_metric_series)
        .values(
            post_id=post_id,
            org_id=org_id,
            profile_id=post.profile_id,
            connector=post.connector,
            published_at=published_at,
            due_at=now,
            step=steps_behind(published_at, offsets, now),
            refresh=True,
            failures=0,
            last_error="",
            raw="",
        )
        .on_conflict_do_nothing(index_elements=["post_id"])
        .returning(series.id)  # (the rowcount of an insert returning its id is -1 on PostgreSQL)
    )
    return added.first() is not None
