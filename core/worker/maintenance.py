"""Periodic housekeeping the workers share: expired unconfirmed uploads (record and bytes) and
expired idempotency keys. Safe to run in every worker at once: each deletion is conditional."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.models import media
from core.db.types import utcnow
from core.posts.idempotency import purge_expired
from core.storage.base import UPLOAD_URL_LIFETIME, ObjectStorage

log = logging.getLogger(__name__)

# An unconfirmed upload is removed once its URL has expired and a grace period has passed.
PENDING_GRACE = timedelta(minutes=10)
BATCH = 200


async def remove_expired_uploads(engine: AsyncEngine, storage: ObjectStorage, now: datetime) -> int:
    cutoff = now - timedelta(seconds=UPLOAD_URL_LIFETIME) - PENDING_GRACE
    async with engine.connect() as conn:
        rows = (
            await conn.execute(
                select(media.c.id, media.c.storage_key)
                .where(media.c.status == "pending", media.c.created_at < cutoff)
                .limit(BATCH)
            )
        ).all()
    removed = 0
    for row in rows:
        async with engine.begin() as conn:
            result = await conn.execute(delete(media).where(media.c.id == row.id, media.c.status == "pending"))
        if result.rowcount:
            removed += 1
            with contextlib.suppress(Exception):
                await storage.delete(row.storage_key)
    return removed


async def housekeeping(engine: AsyncEngine, storage: ObjectStorage) -> None:
    now = utcnow()
    uploads = await remove_expired_uploads(engine, storage, now)
    async with engine.begin() as conn:
        keys = await purge_expired(conn, now)
    if uploads or keys:
        log.info("housekeeping: %d expired uploads, %d idempotency keys removed", uploads, keys)


async def run_housekeeping(engine: AsyncEngine, storage: ObjectStorage, stop: asyncio.Event, every: float) -> None:
    while not stop.is_set():
        try:
            await housekeeping(engine, storage)
        except Exception:
            log.exception("housekeeping failed; trying again later")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)
