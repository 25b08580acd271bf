"""Events, written with the change they describe, and their fan-out to endpoints (docs/webhooks.md).

`emit` inserts the event in the caller's transaction, and nothing else: a change that commits
has its event, one that rolls back has none, and the request that made the change pays one
insert whoever subscribed. The workers then fan events out (`fan_out`, each round of their job
loop): one message and one `webhook.deliver` job per enabled endpoint subscribed to the type, and
the members' notifications the event calls for (core/notes/from_events.py), written in one
transaction with the event marked done, so an event is fanned out exactly once
however many workers share the database (they skip each other's locked rows).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from contract.logs import REQUEST_ID
from core.db.engine import is_sqlite, transaction
from core.db.models import webhook_attempts, webhook_events, webhook_messages, webhooks
from core.db.prepared import Prepared
from core.errors import NotFound
from core.ids import new_id
from core.jobs import queue
from core.notes.from_events import notify_events
from core.settings import CoreSettings
from core.webhooks import service
from core.webhooks.events import ALL, EVENT_TYPES
from core.webhooks.signing import event_body

KIND = "webhook.deliver"
# Events fanned out per transaction of a worker's round.
FAN_OUT_BATCH = 256


# Every change runs it (with the change): built once, run on the driver (core/db/prepared.py).
_INSERT_EVENTS = Prepared(
    insert(webhook_events), columns=["id", "org_id", "type", "body", "created_at", "fanned_out_at", "request_id"]
)


def _event_row(
    org_id: str, event_type: str, data: dict[str, Any], now: datetime, request_id: str | None
) -> dict[str, Any]:
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}")  # a programming error, not a user's
    return {
        "id": new_id("evt"),
        "org_id": org_id,
        "type": event_type,
        "body": event_body(event_type, now, data).decode(),
        "created_at": now,
        "fanned_out_at": None,
        "request_id": request_id,
    }


async def emit(
    conn: AsyncConnection,
    org_id: str,
    event_type: str,
    data: Sequence[dict[str, Any]],
    now: datetime,
    *,
    request_ids: Sequence[str | None] | None = None,
) -> list[str]:
    """One event of `event_type` per item of `data` (in one statement), in the caller's
    transaction; their ids. Each carries the id of the request that caused it: `request_ids`
    (one per item), else the request being served (contract/logs.REQUEST_ID), else none."""
    current = REQUEST_ID.get()
    causes = request_ids or [current] * len(data)
    rows = [_event_row(org_id, event_type, item, now, cause) for item, cause in zip(data, causes, strict=True)]
    await _INSERT_EVENTS.many(conn, rows)
    return [r["id"] for r in rows]


_PENDING = (
    select(webhook_events.c.id, webhook_events.c.org_id, webhook_events.c.type, webhook_events.c.body)
    .where(webhook_events.c.fanned_out_at.is_(None))
    .order_by(webhook_events.c.created_at)
    .limit(FAN_OUT_BATCH)
)
_ANY_PENDING = select(webhook_events.c.id).where(webhook_events.c.fanned_out_at.is_(None)).limit(1)


def _subscribed(events: str, event_type: str) -> bool:
    return bool({ALL, event_type} & set(events.split(",")))


async def fan_out(engine: AsyncEngine, settings: CoreSettings, now: datetime) -> int:
    """One batch of pending events turned into messages and delivery jobs; how many events."""
    if is_sqlite(engine):
        # Looked for first without the write lock: most rounds find nothing, and taking SQLite's
        # one write lock every round would queue the API's writes behind each worker's poll.
        async with transaction(engine) as conn:
            if await conn.scalar(_ANY_PENDING) is None:
                return 0
    async with transaction(engine, writes=True) as conn:
        stmt = _PENDING if is_sqlite(engine) else _PENDING.with_for_update(skip_locked=True)
        pending = (await conn.execute(stmt)).all()
        if not pending:
            return 0
        endpoints: dict[str, list[Any]] = defaultdict(list)
        for endpoint in await conn.execute(
            select(webhooks.c.id, webhooks.c.org_id, webhooks.c.events).where(
                webhooks.c.org_id.in_({e.org_id for e in pending}), webhooks.c.enabled
            )
        ):
            endpoints[endpoint.org_id].append(endpoint)
        targets = [
            (event.org_id, endpoint.id, event.id)
            for event in pending
            for endpoint in endpoints[event.org_id]
            if _subscribed(endpoint.events, event.type)
        ]
        await _messages(conn, targets, now, settings)
        # The members' notifications ride on the same pass, once per event (core/notes/from_events.py).
        await notify_events(conn, pending, now, settings)
        await conn.execute(
            update(webhook_events).where(webhook_events.c.id.in_([e.id for e in pending])).values(fanned_out_at=now)
        )
    return len(pending)


async def _messages(
    conn: AsyncConnection, targets: list[tuple[str, str, str]], now: datetime, settings: CoreSettings
) -> None:
    """A message and its delivery job per (org_id, webhook_id, event_id)."""
    if not targets:
        return
    rows = [
        {
            "id": new_id("msg"),
            "org_id": org_id,
            "webhook_id": webhook_id,
            "event_id": event_id,
            "status": "pending",
            "created_at": now,
            "updated_at": now,
        }
        for org_id, webhook_id, event_id in targets
    ]
    await conn.execute(insert(webhook_messages), rows)
    await queue.enqueue_many(
        conn,
        KIND,
        [(r["id"], r["org_id"], r["webhook_id"]) for r in rows],
        now,
        max_attempts=len(settings.webhook_retry_schedule) + 1,
    )


async def send_test(conn: AsyncConnection, org_id: str, webhook_id: str, now: datetime, settings: CoreSettings) -> str:
    """A `webhook.test` event for this endpoint alone, whatever it subscribed to (fanned out here)."""
    await service.get(conn, org_id, webhook_id)
    row = _event_row(org_id, "webhook.test", {"webhook_id": webhook_id}, now, REQUEST_ID.get()) | {"fanned_out_at": now}
    await conn.execute(insert(webhook_events).values(**row))
    await _messages(conn, [(org_id, webhook_id, row["id"])], now, settings)
    return row["id"]


async def replay(
    conn: AsyncConnection, org_id: str, webhook_id: str, delivery_id: str, now: datetime, settings: CoreSettings
) -> str:
    """The attempt's event sent again to the endpoint: a new message, the same event (and so the
    same webhook-id and body)."""
    await service.get(conn, org_id, webhook_id)
    event_id = await conn.scalar(
        select(webhook_attempts.c.event_id).where(
            webhook_attempts.c.id == delivery_id, webhook_attempts.c.webhook_id == webhook_id
        )
    )
    if event_id is None:
        raise NotFound("no such delivery of this webhook")
    await _messages(conn, [(org_id, webhook_id, event_id)], now, settings)
    return event_id
