"""Housekeeping: expired unconfirmed uploads go (record and bytes); fresh and confirmed stay.
Orphaned bytes and thumbnails (no record references them) go once older than the URL lifetime plus a grace
period; the local storage listing they are found with. (GCS: tests/core/test_storage_gcs.py.)"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select

from core import admin
from core.db.engine import create_engine
from core.db.models import media
from core.db.types import utcnow
from core.settings import CoreSettings
from core.storage.local import LocalStorage
from core.worker.maintenance import remove_expired_uploads, remove_orphaned_objects
from harness.stack import database


async def _scenario(url: str, data_dir) -> tuple[set[str], dict[str, bool]]:
    settings = CoreSettings(database_url=url, data_dir=data_dir)
    engine = create_engine(settings)
    storage = LocalStorage(settings)
    try:
        boot = await admin.bootstrap(
            engine, email="c@example.com", password="a long password", org="cleanup", credits_=0, plan="active"
        )
        now = utcnow()
        rows = {
            "old_pending": ("pending", now - timedelta(hours=2)),
            "fresh_pending": ("pending", now - timedelta(minutes=5)),
            "old_confirmed": ("confirmed", now - timedelta(days=3)),
        }
        for name, (status, created) in rows.items():
            key = f"{boot['org_id']}/med_{name}"

            async def chunks(body: bytes = b"bytes of " + name.encode()):
                yield body

            await storage.write(key, chunks(), content_type="image/png", max_bytes=1000)
            async with engine.begin() as conn:
                await conn.execute(
                    media.insert().values(
                        id=f"med_{name}",
                        org_id=boot["org_id"],
                        kind="image",
                        mime_type="image/png",
                        size_bytes=10,
                        name=name,
                        description="",
                        tags="",
                        status=status,
                        content_hash=None,
                        width=None,
                        height=None,
                        storage_key=key,
                        created_at=created,
                        confirmed_at=None,
                    )
                )
        removed = await remove_expired_uploads(engine, storage, now)
        assert removed == 1
        async with engine.connect() as conn:
            left = {r.id for r in await conn.execute(select(media.c.id))}
        on_disk = {name: (await storage.stat(f"{boot['org_id']}/med_{name}")) is not None for name in rows}
        return left, on_disk
    finally:
        await engine.dispose()


def test_expired_unconfirmed_uploads_are_removed(backend, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        left, on_disk = asyncio.run(_scenario(url, tmp_path / "data"))
    assert left == {"med_fresh_pending", "med_old_confirmed"}
    assert on_disk == {"old_pending": False, "fresh_pending": True, "old_confirmed": True}


# -- orphaned bytes: the storage listing and the sweep


def _age(path: Path, hours: float) -> None:
    then = time.time() - hours * 3600
    os.utime(path, (then, then))


def _write(path: Path, text: str) -> None:
    path.write_text(text)


def _leftover(storage: LocalStorage, key: str, suffix: str = ".part") -> Path:
    """A temp file exactly as an upload in progress leaves it (same mkstemp pattern as staging)."""
    path = storage.path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    os.write(fd, b"half an upload")
    os.close(fd)
    return Path(name)


async def _put(storage: LocalStorage, key: str, body: bytes = b"some bytes") -> Path:
    async def chunks() -> AsyncIterator[bytes]:
        yield body

    await storage.write(key, chunks(), content_type="image/png", max_bytes=len(body))
    return storage.path(key)


async def test_local_listing_shows_objects_and_leftovers(tmp_path: Path) -> None:
    storage = LocalStorage(CoreSettings(data_dir=tmp_path))
    assert [x async for x in storage.list_objects()] == []  # no objects directory yet
    a = await _put(storage, "org_a/med_1", b"12345")
    await _put(storage, "org_a/med_2.v2")
    await _put(storage, "org_b/med_3")
    part = _leftover(storage, "org_a/med_4")
    part_type = Path(f"{part}.type")
    _write(part_type, "image/png")
    _write(a.parent / ".med_gone.type", "image/png")  # the type file of an object that is gone

    listed = {x.name: x async for x in storage.list_objects()}
    assert {n for n, x in listed.items() if not x.partial} == {"org_a/med_1", "org_a/med_2.v2", "org_b/med_3"}
    partial = {n: x.key for n, x in listed.items() if x.partial}
    assert partial == {
        f"org_a/{part.name}": "org_a/med_4",
        f"org_a/{part_type.name}": "org_a/med_4",
        "org_a/.med_gone.type": "org_a/med_gone",
    }
    assert ".med_1.type" not in " ".join(listed)  # listed with its object, not on its own
    one = listed["org_a/med_1"]
    assert (one.key, one.size_bytes) == ("org_a/med_1", 5)
    assert abs((one.modified - utcnow()).total_seconds()) < 60
    assert {x.key async for x in storage.list_objects("org_b/")} == {"org_b/med_3"}
    assert {x.key async for x in storage.list_objects("org_a/med_2")} == {"org_a/med_2.v2"}

    # delete_listed removes what was listed, with its type file; not an object replaced since.
    assert await storage.delete_listed(one) is True
    assert await storage.stat("org_a/med_1") is None and not (a.parent / ".med_1.type").exists()
    assert await storage.delete_listed(one) is False  # already gone
    three = listed["org_b/med_3"]
    await asyncio.sleep(0.01)
    await _put(storage, "org_b/med_3", b"replaced")
    assert await storage.delete_listed(three) is False
    assert (await storage.stat("org_b/med_3")).size_bytes == 8
    assert await storage.delete_listed(listed[f"org_a/{part.name}"]) is True and not part.exists()


async def _sweep_scenario(url: str, data_dir: Path) -> tuple[int, dict[str, bool], set[str]]:
    settings = CoreSettings(database_url=url, data_dir=data_dir)
    engine = create_engine(settings)
    storage = LocalStorage(settings)
    try:
        boot = await admin.bootstrap(
            engine, email="o@example.com", password="a long password", org="orphans", credits_=0, plan="active"
        )
        org, now = boot["org_id"], utcnow()
        # Records: confirmed (old bytes), pending within its URL lifetime, pending long expired (the
        # other sweep's business), and one whose storage_key does not end with its own id.
        records = {
            "med_confirmed": ("confirmed", now - timedelta(days=3), f"{org}/med_confirmed"),
            "med_fresh_pending": ("pending", now - timedelta(minutes=50), f"{org}/med_fresh_pending"),
            "med_old_pending": ("pending", now - timedelta(hours=5), f"{org}/med_old_pending"),
            "med_other": ("confirmed", now - timedelta(days=1), f"{org}/med_elsewhere"),
        }
        thumbnails = {"med_confirmed": f"{org}/med_confirmed.thumb", "med_other": f"{org}/med_elsewhere.thumb"}
        for media_id, (status, created, key) in records.items():
            await _insert_media(engine, org, media_id, status, created, key, thumbnails.get(media_id))
        paths = {
            "confirmed": await _put(storage, f"{org}/med_confirmed"),
            "fresh_pending": await _put(storage, f"{org}/med_fresh_pending"),
            "old_pending": await _put(storage, f"{org}/med_old_pending"),
            "elsewhere": await _put(storage, f"{org}/med_elsewhere"),
            "orphan_old": await _put(storage, f"{org}/med_orphan_old"),
            "orphan_recent": await _put(storage, f"{org}/med_orphan_recent"),
            "not_media_shaped": await _put(storage, "backups/db.dump"),
            "partial_old": _leftover(storage, f"{org}/med_crashed"),
            "partial_recent": _leftover(storage, f"{org}/med_fresh_pending"),
            "type_file_old": storage.path(f"{org}/med_gone").with_name(".med_gone.type"),
            "thumbnail": await _put(storage, f"{org}/med_confirmed.thumb"),
            "thumbnail_elsewhere": await _put(storage, f"{org}/med_elsewhere.thumb"),
            "thumbnail_orphan": await _put(storage, f"{org}/med_orphan_old.thumb"),
        }
        _write(paths["type_file_old"], "image/png")
        for name, path in paths.items():
            if name in ("fresh_pending", "partial_recent"):
                _age(path, 0.5)  # within the URL lifetime
            elif name == "orphan_recent":
                _age(path, 1.1)  # the lifetime has passed, the grace period has not
            else:
                _age(path, 6)
        removed = await remove_orphaned_objects(engine, storage, now)
        on_disk = {name: path.exists() for name, path in paths.items()}
        async with engine.connect() as conn:
            left = {r.id for r in await conn.execute(select(media.c.id))}
        return removed, on_disk, left
    finally:
        await engine.dispose()


async def _insert_media(
    engine, org: str, media_id: str, status: str, created, key: str, thumbnail_key: str | None = None
) -> None:
    async with engine.begin() as conn:
        await conn.execute(
            media.insert().values(
                id=media_id,
                org_id=org,
                kind="image",
                mime_type="image/png",
                size_bytes=10,
                name=media_id,
                description="",
                tags="",
                status=status,
                content_hash=None,
                width=None,
                height=None,
                storage_key=key,
                created_at=created,
                confirmed_at=None,
                thumbnail_key=thumbnail_key,
            )
        )


def test_orphaned_bytes_are_swept_and_nothing_else(backend, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        removed, on_disk, left = asyncio.run(_sweep_scenario(url, tmp_path / "data"))
    assert on_disk == {
        "confirmed": True,  # a record references it
        "fresh_pending": True,  # referenced, and its URL is still valid
        "old_pending": True,  # referenced: goes with its record (remove_expired_uploads)
        "elsewhere": True,  # referenced by storage_key, whatever the record's id
        "orphan_old": False,
        "orphan_recent": True,  # younger than the URL lifetime plus the grace period
        "not_media_shaped": True,  # not a key the API hands out: not ours to remove
        "partial_old": False,  # an upload that died hours ago
        "partial_recent": True,  # an upload that may still be arriving
        "type_file_old": False,
        "thumbnail": True,  # a record's thumbnail_key
        "thumbnail_elsewhere": True,  # referenced by thumbnail_key, whatever the record's id
        "thumbnail_orphan": False,  # its record is gone
    }
    assert removed == 4
    assert left == {"med_confirmed", "med_fresh_pending", "med_old_pending", "med_other"}  # records untouched
