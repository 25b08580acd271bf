"""When a published post's metrics are read (docs/analytics.md, "Schedule").

A post is read at growing ages after its publishing, HERALD_METRICS_SCHEDULE (1 h, 6 h, 24 h, 3 d,
7 d and 30 d by default), then never again unless someone asks for a refresh. The schedule is
kept per post as a row of `post_metric_series` whose `due_at` is the next read (NULL: no more),
written by the publisher in the transaction that marks the post published (`track`), so a post
is never out without its first read scheduled.

`step` counts the schedule's reads that are behind the post: done, or covered by a later read.
After any read at time t, every read due by t counts as done, so a worker that was stopped for
a day reads a post once, not once per missed step, and goes on with the next step to come.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from functools import cache

from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import post_metric_series

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")
MAX_READS = 20


@cache
def parse_schedule(text: str) -> tuple[timedelta, ...]:
    """`1h,6h,24h` as offsets after publishing; ValueError unless each is a positive duration
    with a unit, later than the one before, at most MAX_READS of them."""
    offsets: list[timedelta] = []
    for part in text.split(","):
        found = _DURATION.match(part.strip())
        if found is None:
            raise ValueError(f"HERALD_METRICS_SCHEDULE is durations like 1h,6h,24h,3d (units s, m, h, d), not {text!r}")
        offset = timedelta(seconds=float(found[1]) * _UNITS[found[2]])
        if offset <= (offsets[-1] if offsets else timedelta(0)):
            raise ValueError(f"HERALD_METRICS_SCHEDULE's durations must grow, each above zero: {text!r}")
        offsets.append(offset)
    if len(offsets) > MAX_READS:
        raise ValueError(f"HERALD_METRICS_SCHEDULE names at most {MAX_READS} reads")
    return tuple(offsets)


def steps_behind(published_at: datetime, offsets: tuple[timedelta, ...], at: datetime) -> int:
    """How many of the schedule's reads are due by `at`."""
    return sum(1 for offset in offsets if published_at + offset <= at)


def next_read(published_at: datetime, offsets: tuple[timedelta, ...], step: int) -> datetime | None:
    """When the read after `step` is due; None when the schedule is over."""
    return published_at + offsets[step] if step < len(offsets) else None


async def track(
    conn: AsyncConnection,
    org_id: str,
    post_id: str,
    published_at: datetime,
    first_read: timedelta,
    *,
    profile_id: str,
    connector: str,
) -> None:
    """The publisher's hook, in the transaction that marks the post published: its first read
    is due `first_read` after `published_at`. A post published again (a partially published one
    retried) keeps the schedule it has."""
    dialect_insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    await conn.execute(
        dialect_insert(post_metric_series)
        .values(
            post_id=post_id,
            org_id=org_id,
            profile_id=profile_id,
            connector=connector,
            published_at=published_at,
            due_at=published_at + first_read,
            step=0,
            refresh=False,
            failures=0,
            last_error="",
            raw="",
        )
        .on_conflict_do_nothing(index_elements=["post_id"])
    )
