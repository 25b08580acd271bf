"""How long history is kept (docs/operations.md, "Retention"): webhook events with their messages
and attempts for HERALD_WEBHOOK_RETENTION_DAYS (30), finished jobs for HERALD_JOBS_RETENTION_DAYS
(7). Run by every worker beside the housekeeping, in batches, each its own transaction; safe in
several workers at once (each delete names what it found, and deleting a deleted row is a no-op).

Records are found by age through their primary keys: ids are time-ordered (core/ids.py), so
"made before T" is the key range below `id_at(prefix, T)`, with no index on a timestamp that
every insert would pay for.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta

from sqlalchemy import delete, exists, select
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.engine import transaction
from core.db.models import jobs, webhook_attempts, webhook_events, webhook_messages
from core.db.types import utcnow
from core.ids import id_at
from core.settings import CoreSettings

log = logging.getLogger(__name__)

BATCH = 500
# Batches per kind per round: a long backlog (the first run on an old database) is worked
# through over several rounds, never in one long stretch of the database's time.
ROUNDS = 20


def _boundary(prefix: str, moment: datetime) -> str:
    return id_at(prefix, int(moment.timestamp() * 1000))


async def prune_webhook_history(engine: AsyncEngine, before: datetime, batch: int = BATCH) -> int:
    """One batch of events made before `before`, fanned out, none of whose messages is still
    pending, deleted with their messages and attempts; how many events."""
    still_pending = exists().where(
        webhook_messages.c.event_id == webhook_events.c.id, webhook_messages.c.status == "pending"
    )
    async with transaction(engine, writes=True) as conn:
        ids = list(
            (
                await conn.scalars(
                    select(webhook_events.c.id)
                    .where(
                        webhook_events.c.id < _boundary("evt", before),
                        webhook_events.c.fanned_out_at.is_not(None),
                        ~still_pending,
                    )
                    .order_by(webhook_events.c.id)
                    .limit(batch)
                )
            ).all()
        )
        if not ids:
            return 0
        messages = select(webhook_messages.c.id).where(webhook_messages.c.event_id.in_(ids))
        await conn.execute(delete(webhook_attempts).where(webhook_attempts.c.message_id.in_(messages)))
        await conn.execute(delete(webhook_messages).where(webhook_messages.c.event_id.in_(ids)))
        await conn.execute(delete(webhook_events).where(webhook_events.c.id.in_(ids)))
    return len(ids)


async def prune_jobs(engine: AsyncEngine, before: datetime, batch: int = BATCH) -> int:
    """One batch of jobs made before `before` and finished (done or failed), deleted."""
    async with transaction(engine, writes=True) as conn:
        ids = list(
            (
                await conn.scalars(
                    select(jobs.c.id)
                    .where(jobs.c.id < _boundary("job", before), jobs.c.status.in_(("done", "failed")))
                    .order_by(jobs.c.id)
                    .limit(batch)
                )
            ).all()
        )
        if ids:
            await conn.execute(delete(jobs).where(jobs.c.id.in_(ids)))
    return len(ids)


async def prune(engine: AsyncEngine, settings: CoreSettings, now: datetime) -> tuple[int, int]:
    """A round: up to ROUNDS batches of each; (events, jobs) deleted."""
    totals = []
    for pruner, days in (
        (prune_webhook_history, settings.webhook_retention_days),
        (prune_jobs, settings.jobs_retention_days),
    ):
        total = 0
        for _ in range(ROUNDS):
            removed = await pruner(engine, now - timedelta(days=days))
            total += removed
            if removed < BATCH:
                break
        totals.append(total)
    return totals[0], totals[1]


async def run_retention(engine: AsyncEngine, settings: CoreSettings, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            events, finished = await prune(engine, settings, utcnow())
            if events or finished:
                log.info(
                    "retention: %d webhook events (with their deliveries), %d finished jobs removed", events, finished
                )
        except Exception:
            log.exception("retention failed; trying again later")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), settings.housekeeping_seconds)
