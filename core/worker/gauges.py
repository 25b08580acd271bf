"""The queues' depth and lag, sampled by each worker for Prometheus (core/metrics.py): how much
work is due now and not taken, and how long the oldest of it has waited, for the publish queue
(posts) and each job kind. Sampled only when metrics are exported (PROMETHEUS_MULTIPROC_DIR):
two indexed aggregate reads every HERALD_METRICS_SAMPLE_SECONDS."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.models import jobs, posts
from core.db.types import utcnow
from core.jobs.queue import CLAIMABLE
from core.metrics import QUEUE_DEPTH, QUEUE_LAG
from core.publisher.queue import CLAIMABLE as POST_CLAIMABLE

log = logging.getLogger(__name__)


async def sample(engine: AsyncEngine, now: datetime) -> dict[str, tuple[int, float]]:
    """{queue: (due and waiting, seconds the oldest has waited)}."""
    async with engine.connect() as conn:
        due_posts = (
            await conn.execute(
                select(func.count(), func.min(posts.c.due_at)).where(
                    posts.c.status.in_(POST_CLAIMABLE), posts.c.due_at <= now
                )
            )
        ).one()
        due_jobs = (
            await conn.execute(
                select(jobs.c.kind, func.count(), func.min(jobs.c.due_at))
                .where(jobs.c.status.in_(CLAIMABLE), jobs.c.due_at <= now)
                .group_by(jobs.c.kind)
            )
        ).all()
        await conn.rollback()
    found = {"publish": (due_posts[0], _age(now, due_posts[1]))}
    found.update({kind: (count, _age(now, oldest)) for kind, count, oldest in due_jobs})
    return found


def _age(now: datetime, oldest: datetime | str | None) -> float:
    if oldest is None:
        return 0.0
    if isinstance(oldest, str):  # SQLite's min() of a timestamp comes back as its text
        oldest = datetime.fromisoformat(oldest).replace(tzinfo=now.tzinfo)
    return max(0.0, (now - oldest).total_seconds())


async def run_queue_gauges(engine: AsyncEngine, stop: asyncio.Event, interval: float) -> None:
    seen: set[str] = set()
    while not stop.is_set():
        try:
            found = await sample(engine, utcnow())
            for queue in seen - set(found):  # drained since the last sample
                QUEUE_DEPTH.labels(queue).set(0)
                QUEUE_LAG.labels(queue).set(0)
            for queue, (depth, lag) in found.items():
                QUEUE_DEPTH.labels(queue).set(depth)
                QUEUE_LAG.labels(queue).set(lag)
            seen |= set(found)
        except Exception:
            log.exception("sampling the queues failed; trying again")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)
