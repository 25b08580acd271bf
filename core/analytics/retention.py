"""How long posts' raw readings are kept (docs/analytics.md, "Retention"): every snapshot for
HERALD_METRICS_RETENTION_DAYS (90), then one per day per item (the post and each thread item):
the last of each UTC day. Run by every worker beside the other retention, in bounded batches,
each its own transaction; safe in several workers at once (a delete names the rows it found, and
deleting a deleted row is a no-op).

Only whole days are thinned: the cut is the start of the UTC day `days` before now, so a day is
never thinned while part of it is still kept raw. A snapshot older than the cut exists only for
a post published before it, so a batch is up to BATCH such series, in id order from a cursor the
worker keeps; their old snapshots' keys are read (a range of the primary key per series), every
one but the last of its item's day is deleted by key. When the cursor reaches the end it starts
again, so refreshes of old posts are thinned on the next pass. A pass costs reading the old
series' remaining snapshots' keys: about one a day per item once thinned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from sqlalchemy import bindparam, delete, select
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.engine import transaction
from core.db.models import post_metric_series, post_metric_snapshots
from core.db.types import utcnow
from core.settings import CoreSettings

log = logging.getLogger(__name__)

BATCH = 500  # series per batch
ROUNDS = 20  # batches per round (a long backlog takes several rounds)

series = post_metric_series.c
snapshots = post_metric_snapshots.c

_DELETE = delete(post_metric_snapshots).where(
    snapshots.series_id == bindparam("b_series"),
    snapshots.part == bindparam("b_part"),
    snapshots.collected_at == bindparam("b_at"),
)


def cut(now: datetime, days: float) -> datetime:
    """The start of the UTC day `days` before now: snapshots before it are thinned."""
    moment = (now - timedelta(days=days)).astimezone(UTC)
    return datetime.combine(moment.date(), time(0), tzinfo=UTC)


@dataclass
class Thinning:
    """A worker's pass over the old series: the last series id a batch covered."""

    cursor: int = 0

    async def batch(self, engine: AsyncEngine, before: datetime, size: int = BATCH) -> tuple[int, bool]:
        """One batch: (snapshots deleted, whether the pass reached the end; the cursor then
        starts again)."""
        async with transaction(engine, writes=True) as conn:
            ids = list(
                await conn.scalars(
                    select(series.id)
                    .where(series.id > self.cursor, series.published_at < before)
                    .order_by(series.id)
                    .limit(size)
                )
            )
            if not ids:
                self.cursor = 0
                return 0, True
            rows = await conn.execute(
                select(snapshots.series_id, snapshots.part, snapshots.collected_at)
                .where(snapshots.series_id.in_(ids), snapshots.collected_at < before)
                .order_by(snapshots.series_id, snapshots.part, snapshots.collected_at.desc())
            )
            doomed, seen = [], set()
            for row in rows:  # newest first within each item: the first of a day is kept
                day = (row.series_id, row.part, row.collected_at.astimezone(UTC).date())
                if day in seen:
                    doomed.append({"b_series": row.series_id, "b_part": row.part, "b_at": row.collected_at})
                seen.add(day)
            if doomed:
                await conn.execute(_DELETE, doomed)
        self.cursor = ids[-1]
        done = len(ids) < size
        if done:
            self.cursor = 0
        return len(doomed), done

    async def round(self, engine: AsyncEngine, now: datetime, days: float, size: int = BATCH) -> int:
        """Up to ROUNDS batches, stopping at the pass's end; how many snapshots it deleted."""
        before, total = cut(now, days), 0
        for _ in range(ROUNDS):
            deleted, done = await self.batch(engine, before, size)
            total += deleted
            if done:
                break
        return total


async def run_metrics_retention(engine: AsyncEngine, settings: CoreSettings, stop: asyncio.Event) -> None:
    thinning = Thinning()
    while not stop.is_set():
        try:
            deleted = await thinning.round(engine, utcnow(), settings.metrics_retention_days)
            if deleted:
                log.info("retention: %d metric snapshots thinned to one a day", deleted)
        except Exception:
            log.exception("thinning metric snapshots failed; trying again later")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), settings.housekeeping_seconds)
