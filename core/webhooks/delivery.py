"""Webhook delivery (docs/webhooks.md): each message (an event for one endpoint, written by
core/webhooks/fanout.py) is a job of the lease queue (core/jobs) that the workers run: signed (core/webhooks/signing.py),
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

from contract.logs import REQUEST_ID, REQUEST_ID_HEADER
from core.connectors.transport import PlatformEndpoints
from core.db.engine import transaction
from core.db.models import webhook_attempts, webhook_events, webhook_messages, webhooks
from core.db.types import utcnow
from core.ids import new_id
from core.jobs.queue import Job
from core.jobs.runner import JobFailure
from core.pagination import Page, next_token
from core.platform_accounts.vault import TokenVault
from core.settings import CoreSettings
from core.webhooks import service
from core.webhooks.fanout import KIND
from core.webhooks.signing import signed_headers

log = logging.getLogger(__name__)

# The first bytes of an endpoint's answer kept in the attempt log.
MAX_RESPONSE_BYTES = 1024
USER_AGENT = "Herald-Webhooks/1"


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
        webhooks.c.failing_since,
        *service.SECRET_COLUMNS,
        webhook_events.c.type,
        webhook_events.c.body,
        webhook_events.c.request_id,
    )
    .join(webhooks, webhooks.c.id == webhook_messages.c.webhook_id)
    .join(webhook_events, webhook_events.c.id == webhook_messages.c.event_id)
    .where(webhook_messages.c.id == bindparam("message"))
)


@dataclass(frozen=True, slots=True)
class Delivered:
    """A 2xx answer: its attempt log row, and whether the endpoint was marked failing."""

    attempt: dict[str, Any]
    was_failing: bool


class WebhookDeliveries:
    """The job handler of `webhook.deliver` (core/jobs/runner.py)."""

    kind = KIND

    def __init__(self, settings: CoreSettings, engine: AsyncEngine) -> None:
        self.settings = settings
        self.engine = engine
        # One endpoint's deliveries in flight on this worker at once (jobs are partitioned by
        # endpoint): a slow endpoint takes that many of the worker's slots, never the others'.
        self.partition_limit = settings.webhook_endpoint_concurrency
        self.vault = TokenVault.from_settings(settings)
        endpoints = PlatformEndpoints({}, allow_private=settings.allows_private_targets)
        self.client = endpoints.client(timeout=settings.webhook_timeout_seconds)

    async def close(self) -> None:
        await self.client.aclose()

    async def work(self, job: Job) -> Delivered | None:
        """One attempt. A delivery's log entry is written by `record`, in the transaction that
        ends the job (one transaction fewer per delivery); a failed attempt's is written here."""
        async with self.engine.connect() as conn:
            target = (await conn.execute(_TARGET, {"message": job.subject_id})).one_or_none()
            await conn.rollback()
        if target is None or not target.enabled:
            return None  # the endpoint was deleted or disabled since
        now = utcnow()
        secrets = service.secrets_of(self.vault, target.webhook_id, target, now)
        body = target.body.encode()
        headers = signed_headers(secrets, target.event_id, now, body)
        headers.update({"content-type": "application/json", "user-agent": USER_AGENT})
        if target.request_id:
            # The request that caused the event, for an operator following it to the receiver;
            # this job's log lines carry it too (its own task: nothing else sees it).
            headers[REQUEST_ID_HEADER] = target.request_id
            REQUEST_ID.set(target.request_id)
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
        answer = answer[:MAX_RESPONSE_BYTES]
        if delivered:
            attempt = self._attempt(job, target, status, duration, "", answer, None, utcnow())
            return Delivered(attempt, was_failing=target.failing_since is not None)
        retry = None if status == 410 else self._delay(job)
        await self._log(job, target, status, duration, error, answer, retry)
        if status == 410:
            raise JobFailure("GONE", "the endpoint answered 410 Gone", retryable=False)
        raise JobFailure("UNDELIVERED", error, retryable=retry is not None, delay=retry)

    def _delay(self, job: Job) -> timedelta | None:
        schedule = self.settings.webhook_retry_schedule
        return timedelta(seconds=schedule[job.attempts - 1]) if job.attempts <= len(schedule) else None

    @staticmethod
    def _attempt(
        job: Job,
        target: Any,  # a result row
        status: int,
        duration: int,
        error: str,
        answer: bytes,
        retry: timedelta | None,
        now: datetime,
    ) -> dict[str, Any]:
        """The attempt log's row."""
        return {
            "id": new_id("wat"),
            "webhook_id": target.webhook_id,
            "message_id": job.subject_id,
            "event_id": target.event_id,
            "type": target.type,
            "attempt": job.attempts,
            "status_code": status,
            "duration_ms": duration,
            "error": error[:500],
            "response_body": answer.decode("utf-8", "replace"),
            "delivered_at": now,
            "next_attempt_at": now + retry if retry is not None else None,
        }

    async def _log(
        self, job: Job, target: Any, status: int, duration: int, error: str, answer: bytes, retry: timedelta | None
    ) -> None:  # a result row
        """A failed attempt: logged now (whatever becomes of the job), the endpoint's failures tracked."""
        now = utcnow()
        async with transaction(self.engine, writes=True) as conn:
            await conn.execute(
                insert(webhook_attempts).values(
                    **self._attempt(job, target, status, duration, error, answer, retry, now)
                )
            )
            await self._track_failures(conn, target.webhook_id, delivered=False, now=now)

    async def _track_failures(self, conn: AsyncConnection, webhook_id: str, *, delivered: bool, now: datetime) -> None:
        """An endpoint whose every attempt has failed since `failing_since` for longer than
        HERALD_WEBHOOK_DISABLE_AFTER_SECONDS (5 days) is disabled; any delivery clears the mark."""
        endpoint = webhooks.c
        if delivered:
            await conn.execute(
                update(webhooks)
                .where(endpoint.id == webhook_id, endpoint.failing_since.is_not(None))
                .values(failing_since=None)
            )
            return
        await conn.execute(
            update(webhooks)
            .where(endpoint.id == webhook_id, endpoint.failing_since.is_(None))
            .values(failing_since=now)
        )
        since = await conn.scalar(select(endpoint.failing_since).where(endpoint.id == webhook_id, endpoint.enabled))
        limit = self.settings.webhook_disable_after_seconds
        if since is not None and (now - since).total_seconds() >= limit:
            await conn.execute(
                update(webhooks)
                .where(endpoint.id == webhook_id)
                .values(enabled=False, disabled_reason=f"every delivery failed for {_span(limit)}", updated_at=now)
            )
            log.warning("webhook %s disabled: every delivery failed for %s", webhook_id, _span(limit))

    async def record(self, conn: AsyncConnection, job: Job, outcome: Delivered | None, now: datetime) -> None:
        """In the job's fenced transaction: the message's end, and a delivery's log entry (a
        worker whose lease ran out meanwhile records neither; the next holder sends it again)."""
        await conn.execute(
            update(webhook_messages)
            .where(webhook_messages.c.id == job.subject_id)
            .values(status="skipped" if outcome is None else "delivered", updated_at=now)
        )
        if outcome is None:
            return
        await conn.execute(insert(webhook_attempts).values(**outcome.attempt))
        if outcome.was_failing:
            await self._track_failures(conn, outcome.attempt["webhook_id"], delivered=True, now=now)

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


def _span(seconds: float) -> str:
    """5 days, 3 hours, 40 seconds: the disabling period as a person says it."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} seconds"
