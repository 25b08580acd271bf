"""Periodic housekeeping the workers share: expired unconfirmed uploads (record and bytes), stored
bytes no media record references (orphans), expired idempotency keys, and sessions, OAuth codes
and tokens a day past expiry (core/identity/cleanup.py). Safe to run in every
worker at once: each deletion is conditional.

Orphans are bytes whose record is gone (a delete whose storage call failed, a record removed
while its upload was still landing) and temp files of uploads that never completed (a storage
process that died midway). They are swept from a listing of the storage (`list_objects`), at most
once per ORPHAN_SWEEP_INTERVAL per worker, under these rules:

- only objects whose key has the shape the API gives media (`org_.../med_...`) or their
  thumbnails (`org_.../med_....thumb`): anything else in the bucket is not ours to remove;
- only what was last modified before the upload URL lifetime plus ORPHAN_GRACE: an upload still
  allowed to land (its URL is valid) or still arriving (its temp file is being written) is younger;
- a complete object only when no media record has it as `storage_key` or `thumbnail_key`, whatever
  the record's state
  (a pending record's bytes go with the record, above). Media keys embed a new media id, so no record
  referencing an object older than the lifetime can appear after the check;
- `delete_listed` removes exactly what was listed: an object replaced since is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from datetime import datetime, timedelta

from sqlalchemy import delete, or_, select
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.models import media
from core.db.types import utcnow
from core.identity.cleanup import purge_expired_credentials
from core.media.thumbnails import THUMBNAIL_SUFFIX
from core.posts import slot_lock_turns
from core.posts.idempotency import purge_expired
from core.storage.base import UPLOAD_URL_LIFETIME, ListedObject, ObjectStorage

log = logging.getLogger(__name__)

# An unconfirmed upload is removed once its URL has expired and a grace period has passed.
PENDING_GRACE = timedelta(minutes=10)
BATCH = 200
ORPHAN_GRACE = timedelta(minutes=10)
ORPHAN_SWEEP_INTERVAL = 3600.0  # seconds; a sweep lists every stored object
MEDIA_KEY_RE = re.compile(r"^org_[A-Za-z0-9_-]+/med_[A-Za-z0-9_-]+(?:\.thumb)?$")


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


async def remove_orphaned_objects(engine: AsyncEngine, storage: ObjectStorage, now: datetime) -> int:
    """Removes stored bytes no media record references, once older than the upload URL lifetime
    plus ORPHAN_GRACE (rules in the module docstring); returns how many entries were removed."""
    cutoff = now - timedelta(seconds=UPLOAD_URL_LIFETIME) - ORPHAN_GRACE
    removed = 0
    candidates: list[ListedObject] = []
    async for listed in storage.list_objects():
        if listed.modified < cutoff and MEDIA_KEY_RE.match(listed.key):
            candidates.append(listed)
            if len(candidates) >= BATCH:
                removed += await _remove_unreferenced(engine, storage, candidates)
                candidates = []
    if candidates:
        removed += await _remove_unreferenced(engine, storage, candidates)
    return removed


async def _remove_unreferenced(engine: AsyncEngine, storage: ObjectStorage, candidates: list[ListedObject]) -> int:
    complete = {c.key for c in candidates if not c.partial}
    referenced: set[str] = set()
    if complete:
        async with engine.connect() as conn:
            # By primary key first (a media key ends with its record's id, a thumbnail's with it and
            # `.thumb`), which settles the many objects that are in use; then by storage_key and
            # thumbnail_key for the rest, whatever their ids.
            ids = sorted({key.rpartition("/")[2].removesuffix(THUMBNAIL_SUFFIX) for key in complete})
            rows = await conn.execute(select(media.c.storage_key, media.c.thumbnail_key).where(media.c.id.in_(ids)))
            referenced = {key for row in rows for key in row if key} & complete
            if rest := sorted(complete - referenced):
                rows = await conn.execute(
                    select(media.c.storage_key, media.c.thumbnail_key).where(
                        or_(media.c.storage_key.in_(rest), media.c.thumbnail_key.in_(rest))
                    )
                )
                referenced |= {key for row in rows for key in row if key}
    removed = 0
    for listed in candidates:
        if listed.partial or listed.key not in referenced:
            try:
                if await storage.delete_listed(listed):
                    removed += 1
                    log.info(
                        "housekeeping: removed %s %s", "partial upload" if listed.partial else "orphan", listed.name
                    )
            except Exception:
                log.exception("housekeeping: could not remove %s", listed.name)
    return removed


async def housekeeping(engine: AsyncEngine, storage: ObjectStorage, *, orphans: bool = True) -> None:
    now = utcnow()
    uploads = await remove_expired_uploads(engine, storage, now)
    swept = await remove_orphaned_objects(engine, storage, now) if orphans else 0
    async with engine.begin() as conn:
        keys = await purge_expired(conn, now)
        holds = await slot_lock_turns.purge_expired(conn, now)
    credentials = await purge_expired_credentials(engine, now)
    if uploads or swept or keys or holds or credentials:
        log.info(
            "housekeeping: %d expired uploads, %d orphaned objects, %d idempotency keys, %d slot holds, "
            "%d expired sessions/codes/tokens removed",
            uploads,
            swept,
            keys,
            holds,
            credentials,
        )


async def run_housekeeping(engine: AsyncEngine, storage: ObjectStorage, stop: asyncio.Event, every: float) -> None:
    last_sweep: float | None = None
    while not stop.is_set():
        sweep = last_sweep is None or time.monotonic() - last_sweep >= ORPHAN_SWEEP_INTERVAL
        try:
            await housekeeping(engine, storage, orphans=sweep)
            if sweep:
                last_sweep = time.monotonic()
        except Exception:
            log.exception("housekeeping failed; trying again later")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)
