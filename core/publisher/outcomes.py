"""Recording what became of a claimed post, fenced on the claiming worker's lease: published,
retried later, failed, a live delivery's progress, and a platform's request that an account wait
(docs/posts.md). Each outcome settles the hold the claim took, in its own transaction: the
post keeps the price of what is out (or may be) and gives the rest back."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.analytics import schedule as metrics_schedule
from core.connectors.base import Delivery
from core.credits import service as credits
from core.db.engine import SQLITE_IMMEDIATE, is_sqlite
from core.db.models import outbox, post_parts, posts, profiles
from core.metrics import PUBLISH_DELAY, PUBLISH_OUTCOMES
from core.posts import events as post_events
from core.posts import history
from core.publisher.queue import Claim


def _fenced(claim: Claim, worker_id: str):
    """Only the claim still holding the lease may record an outcome: the same worker and the same
    attempt (each claim counts one), so a worker that claimed its own expired lease again cannot
    record, or send, through its older claim."""
    return update(posts).where(
        posts.c.id == claim.post_id,
        posts.c.status == "publishing",
        posts.c.lease_owner == worker_id,
        posts.c.attempts == claim.attempts,
    )


async def record_published(
    engine: AsyncEngine,
    claim: Claim,
    worker_id: str,
    platform_post_id: str,
    url: str,
    now: datetime,
    *,
    first_read: timedelta | None = None,
) -> bool:
    """The post is out: published, with its history's step, its event and, `first_read` after
    now, its first metrics read (core/analytics/schedule.py), all in one transaction."""
    async with engine.begin() as conn:
        result = await conn.execute(
            _fenced(claim, worker_id)
            .values(
                status="published",
                platform_post_id=platform_post_id,
                platform_url=url,
                published_at=now,
                lease_owner=None,
                failure_reason="",
                failure_detail="",
                platform_error="",
                updated_at=now,
            )
            .returning(posts.c.schedule_at)
        )
        published = result.first()
        if published is not None:
            await history.record_one(
                conn,
                claim.org_id,
                claim.post_id,
                "published",
                now,
                attempt=claim.attempts,
                platform_post_id=platform_post_id or None,
            )
            await post_events.emit_current(conn, claim.org_id, "post.published", [claim.post_id], now)
            if first_read is not None:
                await metrics_schedule.track(
                    conn,
                    claim.org_id,
                    claim.post_id,
                    now,
                    first_read,
                    profile_id=claim.profile_id,
                    connector=claim.connector,
                )
    if published is not None:
        PUBLISH_OUTCOMES.labels(claim.connector, "published", "").inc()
        PUBLISH_DELAY.labels(claim.connector).observe(max(0.0, (now - published.schedule_at).total_seconds()))
    return published is not None


@asynccontextmanager
async def _writing(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A transaction that moves credits: on SQLite it takes the write lock up front, since a
    deferred one that reads and then writes while another worker writes is refused at once."""
    async with engine.connect() as conn:
        if is_sqlite(engine):
            conn = await conn.execution_options(**{SQLITE_IMMEDIATE: True})
        async with conn.begin():
            yield conn


async def record_retry(
    engine: AsyncEngine,
    claim: Claim,
    worker_id: str,
    error: str,
    next_attempt: datetime,
    now: datetime,
    *,
    keep_hold: bool,
    error_class: str = "retryable",
    part: tuple[str, int] | None = None,
) -> bool:
    """A transient failure: back to `queued` until `next_attempt`. Unless `keep_hold` (part of the
    post is out, or may be), the claim's hold is given back in the same transaction: a post
    waiting for its next attempt holds nothing, so an edit is priced at the next claim and a
    cancel costs nothing. A post part of which is out keeps its hold, so its thread finishes
    on what its claim paid (never half a thread for want of credits). The history records the
    attempt that failed (`error_class`; `part`: the thread item or first comment that failed, as
    (kind, position))."""
    release = 0 if keep_hold else claim.charged
    async with _writing(engine) as conn:
        result = await conn.execute(
            _fenced(claim, worker_id).values(
                status="queued",
                due_at=next_attempt,
                lease_owner=None,
                platform_error=error[:2000],
                charged=claim.charged - release,
                updated_at=now,
            )
        )
        if result.rowcount and release:
            await credits.grant(conn, claim.org_id, release, reason="refund", reference=claim.post_id, now=now)
        if result.rowcount:
            await history.record_one(
                conn,
                claim.org_id,
                claim.post_id,
                "attempt_failed",
                now,
                **_attempt_failed(claim, error_class, error, part),
                will_retry=True,
                next_attempt_at=next_attempt,
            )
    if result.rowcount:
        PUBLISH_OUTCOMES.labels(claim.connector, "retry", "").inc()
    return bool(result.rowcount)


async def record_failed(
    engine: AsyncEngine,
    claim: Claim,
    worker_id: str,
    reason: str,
    error: str,
    now: datetime,
    *,
    keep: int,
    detail: str = "",
    error_class: str = "permanent",
) -> bool:
    """A final failure: the post keeps `keep` credits of its hold (the price of what may be out:
    `delivery_uncertain`) and the rest is refunded in the same transaction. `error` is the
    platform's own message, `detail` Herald's explanation of `reason`. The history records the
    attempt that failed (`error_class`, not retried) and the failure."""
    keep = max(0, min(keep, claim.charged))
    async with _writing(engine) as conn:
        result = await conn.execute(
            _fenced(claim, worker_id).values(
                status="failed",
                failure_reason=reason,
                failure_detail=detail[:2000],
                platform_error=error[:2000],
                lease_owner=None,
                charged=keep,
                updated_at=now,
            )
        )
        if result.rowcount and claim.charged > keep:
            await credits.grant(
                conn, claim.org_id, claim.charged - keep, reason="refund", reference=claim.post_id, now=now
            )
        if result.rowcount:
            await history.record(
                conn,
                [
                    history.event(
                        claim.org_id,
                        claim.post_id,
                        "attempt_failed",
                        now,
                        **_attempt_failed(claim, error_class, error, None),
                        will_retry=False,
                    ),
                    history.event(
                        claim.org_id,
                        claim.post_id,
                        "failed",
                        now,
                        attempt=claim.attempts,
                        reason=reason,
                        error=detail or None,
                    ),
                ],
            )
            await post_events.emit_current(conn, claim.org_id, "post.failed", [claim.post_id], now)
    if result.rowcount:
        PUBLISH_OUTCOMES.labels(claim.connector, "failed", reason).inc()
    return bool(result.rowcount)


def _attempt_failed(claim: Claim, error_class: str, error: str, part: tuple[str, int] | None) -> dict[str, Any]:
    """The facts of an `attempt_failed` event: the attempt, the error's class and message, and
    the part that failed (a thread item's position, or the first comment)."""
    kind, position = part if part is not None else (None, None)
    return {
        "attempt": claim.attempts,
        "reason": error_class,
        "error": error or None,
        "part": history.part_name(kind) if kind else None,
        "position": position if kind == "thread" else None,
    }


async def save_progress(
    engine: AsyncEngine,
    claim: Claim,
    worker_id: str,
    state: dict[str, Any] | None,
    lease_end: datetime,
    now: datetime,
    *,
    position: int | None = None,
) -> bool:
    """Stores a live delivery's progress (None: only extends the lease) on the post, or on its
    part at `position`, fenced: False when the lease is no longer this worker's, and then it
    must send nothing more."""
    values: dict[str, Any] = {"due_at": lease_end, "updated_at": now}
    saved = json.dumps(state, separators=(",", ":"), sort_keys=True) if state is not None else None
    if saved is not None and position is None:
        values["delivery_state"] = saved
    async with engine.begin() as conn:
        result = await conn.execute(_fenced(claim, worker_id).values(**values))
        if result.rowcount and saved is not None and position is not None:
            await conn.execute(
                update(post_parts)
                .where(post_parts.c.post_id == claim.post_id, post_parts.c.position == position)
                .values(delivery_state=saved)
            )
    return bool(result.rowcount)


async def record_part(
    engine: AsyncEngine,
    claim: Claim,
    worker_id: str,
    position: int,
    delivery: Delivery,
    lease_end: datetime,
    now: datetime,
    *,
    kind: str = "thread",
) -> bool:
    """A part (`kind` thread or comment) went out (its outbox entry is recorded): its status and
    ids, its history's `part_published`, and the lease extended. The part is marked whatever the
    lease (it is on the platform); False when the lease is lost."""
    async with engine.begin() as conn:
        await conn.execute(
            update(post_parts)
            .where(post_parts.c.post_id == claim.post_id, post_parts.c.position == position)
            .values(
                status="published",
                platform_post_id=delivery.platform_post_id,
                platform_url=delivery.url,
                platform_cid=delivery.cid,
            )
        )
        await history.record_one(
            conn,
            claim.org_id,
            claim.post_id,
            "part_published",
            now,
            attempt=claim.attempts,
            part=history.part_name(kind),
            position=position if kind == "thread" else None,
            platform_post_id=delivery.platform_post_id or None,
        )
        result = await conn.execute(_fenced(claim, worker_id).values(due_at=lease_end, updated_at=now))
    return bool(result.rowcount)


async def record_partial(
    engine: AsyncEngine,
    claim: Claim,
    worker_id: str,
    *,
    position: int,
    part_status: str,
    reason: str,
    error: str,
    detail: str,
    refund: int,
    now: datetime,
    kind: str = "thread",
    first_read: timedelta | None = None,
) -> bool:
    """The post went out but its part at `position` (`kind` thread or comment) failed for good:
    the post is `partially_published` (its own id and URL from the outbox), that part
    `part_status`, the later ones `skipped`, and `refund` credits (what never went out) given
    back, all at once, with the history's `part_failed` and `partially_published`, and its
    first metrics read `first_read` after now."""
    async with _writing(engine) as conn:
        main = (
            await conn.execute(
                select(outbox.c.platform_post_id, outbox.c.platform_url).where(
                    outbox.c.delivery_key == claim.delivery_key
                )
            )
        ).first()
        result = await conn.execute(
            _fenced(claim, worker_id).values(
                status="partially_published",
                failure_reason=reason,
                failure_detail=detail[:2000],
                platform_error=error[:2000],
                platform_post_id=main.platform_post_id if main else "",
                platform_url=main.platform_url if main else "",
                published_at=now,
                lease_owner=None,
                charged=claim.charged - refund,
                updated_at=now,
            )
        )
        if not result.rowcount:
            return False
        parts = post_parts.c
        await conn.execute(
            update(post_parts)
            .where(parts.post_id == claim.post_id, parts.position == position)
            .values(status=part_status)
        )
        await conn.execute(
            update(post_parts)
            .where(parts.post_id == claim.post_id, parts.position > position, parts.status == "pending")
            .values(status="skipped")
        )
        if refund:
            await credits.grant(conn, claim.org_id, refund, reason="refund", reference=claim.post_id, now=now)
        facts = {"attempt": claim.attempts, "reason": reason}
        where = {"part": history.part_name(kind), "position": position if kind == "thread" else None}
        await history.record(
            conn,
            [
                history.event(claim.org_id, claim.post_id, "part_failed", now, **facts, **where, error=error or None),
                history.event(claim.org_id, claim.post_id, "partially_published", now, **facts),
            ],
        )
        await post_events.emit_current(conn, claim.org_id, "post.partially_published", [claim.post_id], now)
        if first_read is not None:
            await metrics_schedule.track(
                conn,
                claim.org_id,
                claim.post_id,
                now,
                first_read,
                profile_id=claim.profile_id,
                connector=claim.connector,
            )
    PUBLISH_OUTCOMES.labels(claim.connector, "partially_published", reason).inc()
    return True


async def throttle_profile(engine: AsyncEngine, profile_id: str, until: datetime, now: datetime) -> None:
    """The platform asked this account to wait until `until`: the profile remembers it, and its
    other due posts wait with it (they are not claimed, charged or tried before then)."""
    async with engine.begin() as conn:
        await conn.execute(
            update(profiles)
            .where(profiles.c.id == profile_id)
            .where((profiles.c.throttled_until.is_(None)) | (profiles.c.throttled_until < until))
            .values(throttled_until=until)
        )
        await conn.execute(
            update(posts)
            .where(
                posts.c.profile_id == profile_id,
                posts.c.status.in_(("scheduled", "queued")),
                posts.c.due_at < until,
            )
            .values(due_at=until, updated_at=now)
        )
