"""Webhook delivery (docs/webhooks.md): events become one message per subscribed endpoint, each
a job of the lease queue (core/jobs) that the workers run: signed (core/webhooks/signing.py),
POSTed through the guarded transport (core/connectors/transport.py), every attempt logged,
retried on the settings' schedule, given up after its last entry.

At least once: a worker that dies mid-delivery leaves its job to another, which sends the same
event again with the same `webhook-id` (receivers deduplicate on it). A slow or dead endpoint
holds only its own messages: each runs as its own job, bounded by each request's deadline.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx2
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.connections.vault import TokenVault
from core.connectors.transport import PlatformEndpoints
from core.db.engine import transaction
from core.db.models import webhook_attempts, webhook_events, webhook_messages, webhooks
from core.db.types import utcnow
from core.errors import NotFound
from core.ids import new_id
from core.jobs import queue
from core.jobs.queue import Job
from core.jobs.runner import JobFailure
from core.pagination import Page, next_token
from core.settings import CoreSettings
from core.webhooks import service
from core.webhooks.events import ALL
from core.webhooks.signing import event_body, signed_headers

log = logging.getLogger(__name__)

KIND = "webhook.deliver"
# The first bytes of an endpoint's answer kept in the attempt log.
MAX_RESPONSE_BYTES = 1024
USER_AGENT = "Herald-Webhooks/1"


def private_targets_allowed(settings: CoreSettings) -> bool:
    """HERALD_ALLOW_PRIVATE_TARGETS, or when unset: only on sandbox publishing (make run's default)."""
    if settings.allow_private_targets is not None:
        return settings.allow_private_targets
    return settings.publish_mode == "sandbox"


async def emit(
    conn: AsyncConnection,
    org_id: str,
    event_type: str,
    data: dict[str, Any],
    now: datetime,
    *,
    settings: CoreSettings,
    only: str | None = None,
) -> str:
    """Writes the event in the caller's transaction, with one message and one delivery job per
    enabled endpoint subscribed to its type (`only`: that endpoint alone, whatever it subscribed
    to: a test). Returns the event's id."""
    event_id = new_id("evt")
    await conn.execute(
        insert(webhook_events).values(
            id=event_id, org_id=org_id, type=event_type, body=event_body(event_type, now, data).decode(), created_at=now
        )
    )
    stmt = select(webhooks.c.id, webhooks.c.events).where(webhooks.c.org_id == org_id, webhooks.c.enabled)
    if only is not None:
        stmt = stmt.where(webhooks.c.id == only)
    for endpoint in await conn.execute(stmt):
        if only is None and not ({ALL, event_type} & set(endpoint.events.split(","))):
            continue
        await _message(conn, org_id, endpoint.id, event_id, now, settings)
    return event_id


async def _message(
    conn: AsyncConnection, org_id: str, webhook_id: str, event_id: str, now: datetime, settings: CoreSettings
) -> None:
    message_id = new_id("msg")
    await conn.execute(
        insert(webhook_messages).values(
            id=message_id,
            org_id=org_id,
            webhook_id=webhook_id,
            event_id=event_id,
            status="pending",
            created_at=now,
            updated_at=now,
        )
    )
    await queue.enqueue(conn, KIND, message_id, org_id, now, max_attempts=len(settings.webhook_retry_schedule) + 1)


async def send_test(conn: AsyncConnection, org_id: str, webhook_id: str, now: datetime, settings: CoreSettings) -> str:
    await service.get(conn, org_id, webhook_id)
    return await emit(conn, org_id, "webhook.test", {"webhook_id": webhook_id}, now, settings=settings, only=webhook_id)


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
    await _message(conn, org_id, webhook_id, event_id, now, settings)
    return event_id


@dataclass(frozen=True, slots=True)
class Attempt:
    id: str
    event_id: str
    type: str
    attempt: int
    status_code: int
    duration_ms: int
    error: str
    response_body: str
    delivered_at: datetime
    next_attempt_at: datetime | None


async def list_attempts(conn: AsyncConnection, org_id: str, webhook_id: str, page: Page) -> tuple[list[Attempt], str]:
    """Newest first."""
    await service.get(conn, org_id, webhook_id)
    stmt = select(webhook_attempts).where(webhook_attempts.c.webhook_id == webhook_id)
    if page.after:
        stmt = stmt.where(webhook_attempts.c.id < page.after)
    rows = (await conn.execute(stmt.order_by(webhook_attempts.c.id.desc()).limit(page.size + 1))).all()
    found = [
        Attempt(
            r.id,
            r.event_id,
            r.type,
            r.attempt,
            r.status_code,
            r.duration_ms,
            r.error,
            r.response_body,
            r.delivered_at,
            r.next_attempt_at,
        )
        for r in rows[: page.size]
    ]
    return found, next_token([r.id for r in rows], page.size)


_TARGET = (
    select(
        webhook_messages.c.webhook_id,
        webhook_messages.c.event_id,
        webhooks.c.url,
        webhooks.c.enabled,
        webhook_events.c.type,
        webhook_events.c.body,
    )
    .join(webhooks, webhooks.c.id == webhook_messages.c.webhook_id)
    .join(webhook_events, webhook_events.c.id == webhook_messages.c.event_id)
    .where(webhook_messages.c.id == bindparam("message"))
)


class WebhookDeliveries:
    """The job handler of `webhook.deliver` (core/jobs/runner.py)."""

    kind = KIND

    def __init__(self, settings: CoreSettings, engine: AsyncEngine) -> None:
        self.settings = settings
        self.engine = engine
        self.vault = TokenVault.from_settings(settings)
        endpoints = PlatformEndpoints({}, allow_private=private_targets_allowed(settings))
        self.client = endpoints.client(timeout=settings.webhook_timeout_seconds)

    async def close(self) -> None:
        await self.client.aclose()

    async def work(self, job: Job) -> str:
        async with transaction(self.engine) as conn:
            target = (await conn.execute(_TARGET, {"message": job.subject_id})).one_or_none()
            if target is None or not target.enabled:
                return "skipped"  # the endpoint was deleted or disabled since
            now = utcnow()
            secrets = await service.signing_secrets(conn, self.vault, target.webhook_id, now)
        body = target.body.encode()
        headers = signed_headers(secrets, target.event_id, now, body)
        headers.update({"content-type": "application/json", "user-agent": USER_AGENT})
        started = time.perf_counter()
        status, answer, error = 0, b"", ""
        try:
            async with self.client.stream("POST", target.url, content=body, headers=headers) as response:
                status = response.status_code
                async for chunk in response.aiter_raw():
                    answer += chunk
                    if len(answer) >= MAX_RESPONSE_BYTES:
                        break
        except httpx2.HTTPError as failure:
            error = f"{type(failure).__name__}: {failure}"[:500] or type(failure).__name__
        duration = int((time.perf_counter() - started) * 1000)
        delivered = 200 <= status < 300
        if not delivered and not error:
            error = f"HTTP {status}"
        retry = None if delivered or status == 410 else self._delay(job)
        await self._log(job, target, status, duration, error, answer[:MAX_RESPONSE_BYTES], retry)
        if delivered:
            return "delivered"
        if status == 410:
            raise JobFailure("GONE", "the endpoint answered 410 Gone", retryable=False)
        raise JobFailure("UNDELIVERED", error, retryable=retry is not None, delay=retry)

    def _delay(self, job: Job) -> timedelta | None:
        schedule = self.settings.webhook_retry_schedule
        return timedelta(seconds=schedule[job.attempts - 1]) if job.attempts <= len(schedule) else None

    async def _log(
        self, job: Job, target: Any, status: int, duration: int, error: str, answer: bytes, retry: timedelta | None
    ) -> None:  # noqa: ANN401 - a result row
        now = utcnow()
        async with transaction(self.engine, writes=True) as conn:
            await conn.execute(
                insert(webhook_attempts).values(
                    id=new_id("wat"),
                    webhook_id=target.webhook_id,
                    message_id=job.subject_id,
                    event_id=target.event_id,
                    type=target.type,
                    attempt=job.attempts,
                    status_code=status,
                    duration_ms=duration,
                    error="" if 200 <= status < 300 else error[:500],
                    response_body=answer.decode("utf-8", "replace"),
                    delivered_at=now,
                    next_attempt_at=now + retry if retry is not None else None,
                )
            )

    async def record(self, conn: AsyncConnection, job: Job, outcome: str, now: datetime) -> None:
        await conn.execute(
            update(webhook_messages)
            .where(webhook_messages.c.id == job.subject_id)
            .values(status=outcome, updated_at=now)
        )

    async def give_up(self, conn: AsyncConnection, job: Job, failure: JobFailure, now: datetime) -> None:
        await conn.execute(
            update(webhook_messages)
            .where(webhook_messages.c.id == job.subject_id)
            .values(status="failed", updated_at=now)
        )
        if failure.code == "GONE":
            webhook_id = await conn.scalar(
                select(webhook_messages.c.webhook_id).where(webhook_messages.c.id == job.subject_id)
            )
            await conn.execute(
                update(webhooks)
                .where(webhooks.c.id == webhook_id)
                .values(enabled=False, disabled_reason="the endpoint answered 410 Gone", updated_at=now)
            )
