"""Housekeeping: expired unconfirmed uploads go (record and bytes); fresh and confirmed stay."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import select

from core import admin
from core.db.engine import create_engine
from core.db.models import media
from core.db.types import utcnow
from core.settings import CoreSettings
from core.storage.local import LocalStorage
from core.worker.maintenance import remove_expired_uploads
from tests.harness import database


async def _scenario(url: str, data_dir) -> tuple[set[str], dict[str, bool]]:  # noqa: ANN001
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

            async def chunks(body: bytes = b"bytes of " + name.encode()):  # noqa: ANN202
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


def test_expired_unconfirmed_uploads_are_removed(backend, tmp_path) -> None:  # noqa: ANN001
    with database(backend, tmp_path) as url:
        left, on_disk = asyncio.run(_scenario(url, tmp_path / "data"))
    assert left == {"med_fresh_pending", "med_old_confirmed"}
    assert on_disk == {"old_pending": False, "fresh_pending": True, "old_confirmed": True}
