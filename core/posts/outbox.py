"""The outbox: one row per delivery (a post, each of its thread items, its first comment),
unique on the delivery key."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import outbox, post_parts
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
    part: int = -1  # the post itself, or its part at this post_parts.position
    platform_cid: str = ""
    part_kind: str = ""  # the part's kind ("thread", "comment") when listed

    @property
    def part_name(self) -> str:
        """`post`, `thread` or `first_comment`, as the outbox shows it."""
        if self.part < 0:
            return "post"
        return "first_comment" if self.part_kind == "comment" else "thread"


def _record(row, kind: str = "") -> OutboxRecord:  # a Row
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
        row.part,
        row.platform_cid,
        kind,
    )


async def list_for_post(conn: AsyncConnection, org_id: str, post_id: str) -> list[OutboxRecord]:
    """The post's deliveries in the order they were made, each naming what it delivered."""
    joined = outbox.outerjoin(
        post_parts, and_(post_parts.c.post_id == outbox.c.post_id, post_parts.c.position == outbox.c.part)
    )
    rows = await conn.execute(
        select(outbox, post_parts.c.kind)
        .select_from(joined)
        .where(outbox.c.org_id == org_id, outbox.c.post_id == post_id)
        .order_by(outbox.c.created_at, outbox.c.part)
    )
    return [_record(r, r.kind or "") for r in rows]


async def find(conn: AsyncConnection, delivery_key: str) -> OutboxRecord | None:
    row = (await conn.execute(select(outbox).where(outbox.c.delivery_key == delivery_key))).first()
    return _record(row) if row else None


async def find_many(conn: AsyncConnection, delivery_keys: list[str]) -> list[OutboxRecord]:
    rows = await conn.execute(select(outbox).where(outbox.c.delivery_key.in_(delivery_keys)))
    return [_record(r) for r in rows]


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
    part: int = -1,
    platform_cid: str = "",
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
        "part": part,
        "platform_cid": platform_cid,
    }
    dialect_insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    await conn.execute(dialect_insert(outbox).values(**values).on_conflict_do_nothing(index_elements=["delivery_key"]))
    found = await find(conn, delivery_key)
    assert found is not None
    return found
