"""Claiming due posts and recording outcomes (docs/posts.md, "The publisher").

A claim is one transaction: the due rows are locked with FOR UPDATE SKIP LOCKED (PostgreSQL; on
SQLite the transaction holds the write lock), each is charged with one conditional debit (a post
that cannot be paid fails with `insufficient_credits` and is never sent), and the paid ones move
to `publishing` under a lease: their `due_at` becomes the lease's end. A worker that dies leaves
them there; once the lease ends another worker claims them again as *recovered* and resolves the
uncertain outcome by looking the delivery up before sending anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from core.brand import service as brand
from core.connectors.base import OutgoingMedia
from core.credits import service as credits
from core.db.engine import SQLITE_IMMEDIATE, is_sqlite
from core.db.models import media, post_media, posts, profiles
from core.errors import InsufficientCredits
from core.settings import CoreSettings

CLAIMABLE = ("scheduled", "queued", "publishing")


@dataclass(frozen=True, slots=True)
class Claim:
    post_id: str
    org_id: str
    profile_slug: str
    display_name: str
    connector: str
    content: str
    title: str | None
    post_type: str
    delivery_key: str
    attempts: int
    charged: int
    # True when a previous worker's lease ran out: the delivery may or may not have happened.
    recovered: bool
    media: tuple[OutgoingMedia, ...]


def _media_url(settings: CoreSettings, media_id: str) -> str:
    # Where a platform would fetch the bytes from. No route serves this yet: sandbox deliveries
    # only record it. Live connectors need fetchable URLs (signed read URLs from object storage)
    # and must replace this before HERALD_PUBLISH_MODE=live is allowed (docs/posts.md).
    return f"{settings.base_url}/media/{media_id}"


async def claim_due(
    engine: AsyncEngine, settings: CoreSettings, worker_id: str, now: datetime, limit: int
) -> list[Claim]:
    lease_end = now + timedelta(seconds=settings.publish_lease_seconds)
    async with engine.connect() as conn:
        if is_sqlite(engine):
            conn = await conn.execution_options(**{SQLITE_IMMEDIATE: True})
        async with conn.begin():
            stmt = (
                select(
                    posts.c.id,
                    posts.c.org_id,
                    posts.c.profile_slug,
                    posts.c.connector,
                    posts.c.content,
                    posts.c.title,
                    posts.c.post_type,
                    posts.c.status,
                    posts.c.delivery_key,
                    posts.c.attempts,
                    posts.c.charged,
                    posts.c.profile_id,
                )
                .where(posts.c.status.in_(CLAIMABLE), posts.c.due_at <= now)
                .order_by(posts.c.due_at)
                .limit(limit)
            )
            if not is_sqlite(engine):
                stmt = stmt.with_for_update(skip_locked=True, of=posts)
            rows = (await conn.execute(stmt)).all()
            if not rows:
                return []
            phrases = await _never_publish(conn, [row for row in rows if row.charged == 0])
            claimed = []
            for row in rows:
                charged = row.charged
                found = phrases.get(row.id)
                if charged == 0 and found is not None:
                    # The voice may have changed since the post was accepted: it fails, uncharged.
                    await conn.execute(
                        update(posts)
                        .where(posts.c.id == row.id)
                        .values(
                            status="failed",
                            failure_reason="never_publish_phrase",
                            failure_detail=f"the text contains {found!r}, which the brand voice never publishes",
                            updated_at=now,
                        )
                    )
                    continue
                if charged == 0:
                    try:
                        await credits.debit(
                            conn, row.org_id, settings.post_cost, reason="post_delivery", reference=row.id, now=now
                        )
                        charged = settings.post_cost
                    except InsufficientCredits:
                        await conn.execute(
                            update(posts)
                            .where(posts.c.id == row.id)
                            .values(status="failed", failure_reason="insufficient_credits", updated_at=now)
                        )
                        continue
                await conn.execute(
                    update(posts)
                    .where(posts.c.id == row.id)
                    .values(
                        status="publishing",
                        lease_owner=worker_id,
                        due_at=lease_end,
                        attempts=posts.c.attempts + 1,
                        charged=charged,
                        updated_at=now,
                    )
                )
                claimed.append((row, charged))
            ids = [row.id for row, _ in claimed]
            attachments = await _attachments(conn, settings, ids)
            names = dict(
                (
                    await conn.execute(
                        select(profiles.c.id, profiles.c.display_name).where(
                            profiles.c.id.in_({row.profile_id for row, _ in claimed})
                        )
                    )
                ).all()
            )
    return [
        Claim(
            post_id=row.id,
            org_id=row.org_id,
            profile_slug=row.profile_slug,
            display_name=names.get(row.profile_id, row.profile_slug),
            connector=row.connector,
            content=row.content,
            title=row.title,
            post_type=row.post_type,
            delivery_key=row.delivery_key,
            attempts=row.attempts + 1,
            charged=charged,
            recovered=row.status == "publishing",
            media=attachments.get(row.id, ()),
        )
        for row, charged in claimed
    ]


async def _never_publish(conn, rows: list) -> dict[str, str]:  # noqa: ANN001
    """The posts among `rows` whose content or title holds a never-publish phrase of the voice
    in effect now, with the phrase: one query per organization in the batch."""
    by_org: dict[str, list] = {}
    for row in rows:
        by_org.setdefault(row.org_id, []).append(row)
    found = {}
    for org_id, org_rows in by_org.items():
        matchers = await brand.matchers(conn, org_id, [row.profile_id for row in org_rows])
        for row in org_rows:
            matcher = matchers[row.profile_id]
            phrase = matcher.find(row.content) or (matcher.find(row.title) if row.title else None) if matcher else None
            if phrase is not None:
                found[row.id] = phrase
    return found


async def _attachments(conn, settings: CoreSettings, post_ids: list[str]) -> dict[str, tuple[OutgoingMedia, ...]]:  # noqa: ANN001
    if not post_ids:
        return {}
    rows = await conn.execute(
        select(
            post_media.c.post_id,
            media.c.id,
            media.c.kind,
            media.c.mime_type,
            media.c.size_bytes,
            media.c.description,
            media.c.width,
            media.c.height,
        )
        .select_from(post_media.join(media, media.c.id == post_media.c.media_id))
        .where(post_media.c.post_id.in_(post_ids))
        .order_by(post_media.c.post_id, post_media.c.position)
    )
    found: dict[str, list[OutgoingMedia]] = {}
    for r in rows:
        found.setdefault(r.post_id, []).append(
            OutgoingMedia(
                r.id,
                r.kind,
                r.mime_type,
                r.size_bytes,
                _media_url(settings, r.id),
                r.description or "",
                r.width,
                r.height,
            )
        )
    return {k: tuple(v) for k, v in found.items()}


def _fenced(claim: Claim, worker_id: str):  # noqa: ANN202
    """Only the worker still holding the lease may record an outcome."""
    return update(posts).where(
        posts.c.id == claim.post_id, posts.c.status == "publishing", posts.c.lease_owner == worker_id
    )


async def record_published(
    engine: AsyncEngine, claim: Claim, worker_id: str, platform_post_id: str, url: str, now: datetime
) -> bool:
    async with engine.begin() as conn:
        result = await conn.execute(
            _fenced(claim, worker_id).values(
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
        )
    return bool(result.rowcount)


async def record_retry(
    engine: AsyncEngine, claim: Claim, worker_id: str, error: str, next_attempt: datetime, now: datetime
) -> bool:
    """A transient failure: back to `queued` until `next_attempt`; the charge stays with the post."""
    async with engine.begin() as conn:
        result = await conn.execute(
            _fenced(claim, worker_id).values(
                status="queued", due_at=next_attempt, lease_owner=None, platform_error=error[:2000], updated_at=now
            )
        )
    return bool(result.rowcount)


async def record_failed(
    engine: AsyncEngine, claim: Claim, worker_id: str, reason: str, error: str, now: datetime, *, refund: bool
) -> bool:
    """A final failure; when nothing went out the charge is refunded in the same transaction."""
    async with engine.connect() as conn:
        if is_sqlite(engine):
            conn = await conn.execution_options(**{SQLITE_IMMEDIATE: True})
        async with conn.begin():
            result = await conn.execute(
                _fenced(claim, worker_id).values(
                    status="failed",
                    failure_reason=reason,
                    platform_error=error[:2000],
                    lease_owner=None,
                    charged=0 if refund else claim.charged,
                    updated_at=now,
                )
            )
            if result.rowcount and refund and claim.charged:
                await credits.grant(
                    conn, claim.org_id, claim.charged, reason="refund", reference=claim.post_id, now=now
                )
    return bool(result.rowcount)
