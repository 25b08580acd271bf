"""The outbox: one row per delivered post, unique on the post's delivery key."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import outbox
from core.ids import new_id


@dataclass(frozen=True, slots=True)
class OutboxRecord:
    id: str
    post_id: str
    delivery_key: str
    connector: str
    mode: str
    requests: list[dict[str, Any]]
    platform_post_id: str
    platform_url: str
    created_at: datetime


def _record(row) -> OutboxRecord:  # noqa: ANN001 - a Row
    return OutboxRecord(
        row.id,
        row.post_id,
        row.delivery_key,
        row.connector,
        row.mode,
        json.loads(row.requests_json),
        row.platform_post_id,
        row.platform_url,
        row.created_at,
    )


async def list_for_post(conn: AsyncConnection, org_id: str, post_id: str) -> list[OutboxRecord]:
    rows = await conn.execute(
        select(outbox).where(outbox.c.org_id == org_id, outbox.c.post_id == post_id).order_by(outbox.c.id)
    )
    return [_record(r) for r in rows]


async def find(conn: AsyncConnection, delivery_key: str) -> OutboxRecord | None:
    row = (await conn.execute(select(outbox).where(outbox.c.delivery_key == delivery_key))).first()
    return _record(row) if row else None


async def record_once(
    conn: AsyncConnection,
    *,
    org_id: str,
    post_id: str,
    delivery_key: str,
    connector: str,
    mode: str,
    requests: list[dict[str, Any]],
    platform_post_id: str,
    platform_url: str,
    now: datetime,
) -> OutboxRecord:
    """Records a delivery; if one with this delivery key exists, keeps it and returns it."""
    values = {
        "id": new_id("obx"),
        "org_id": org_id,
        "post_id": post_id,
        "delivery_key": delivery_key,
        "connector": connector,
        "mode": mode,
        "requests_json": json.dumps(requests, separators=(",", ":"), sort_keys=True),
        "platform_post_id": platform_post_id,
        "platform_url": platform_url,
        "created_at": now,
    }
    dialect_insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    await conn.execute(dialect_insert(outbox).values(**values).on_conflict_do_nothing(index_elements=["delivery_key"]))
    found = await find(conn, delivery_key)
    assert found is not None
    return found
