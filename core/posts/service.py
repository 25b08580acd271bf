"""Posts: create (all or nothing), read, edit, cancel and retry. Validation lives in
core/posts/validation.py; the publisher (core/publisher) moves posts on from `queued`."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.brand import service as brand
from core.db.models import post_media, posts
from core.errors import NotFound, ValidationError
from core.ids import new_id
from core.pagination import Page, next_token
from core.posts import idempotency
from core.posts.records import EDITABLE, POST_COLUMNS, STATUSES, PostRecord, load
from core.posts.schedule import parse_datetime, parse_schedule
from core.posts.validation import (
    CreateRequest,
    InvalidPostState,
    check_content_for,
    check_media_for,
    load_media,
    validate_create,
)
from core.profiles.service import CONNECTORS


@dataclass(frozen=True, slots=True)
class CreateOutcome:
    records: list[PostRecord]
    # The stored first response, when the request replays an Idempotency-Key.
    replay: bytes | None = None


def new_delivery_key() -> str:
    return secrets.token_hex(16)


async def create_posts(
    conn: AsyncConnection,
    org_id: str,
    request: CreateRequest,
    now: datetime,
    *,
    idempotency_key: str = "",
    request_digest: str = "",
    encode: Callable[[list[PostRecord]], bytes] | None = None,
    live: bool = False,
) -> CreateOutcome:
    """Creates one post per profile, or nothing: every check runs before the first insert.
    `live`: every profile must have a connected account (PROFILE_NOT_CONNECTED)."""
    if idempotency_key:
        reservation = await idempotency.reserve(conn, org_id, idempotency_key, request_digest, now)
        if reservation.replay is not None:
            return CreateOutcome([], reservation.replay)
    plan = await validate_create(conn, org_id, request, now, live=live)
    rows, media_rows = [], []
    for profile in plan.profiles:
        post_id = new_id("pst")
        rows.append(
            {
                "id": post_id,
                "org_id": org_id,
                "profile_id": profile.id,
                "profile_slug": profile.slug,
                "connector": profile.connector,
                "content": request.content,
                "title": request.title,
                "post_type": plan.post_types[profile.connector],
                "status": "scheduled" if plan.schedule_at else "queued",
                "schedule_at": plan.schedule_at or now,
                "due_at": plan.schedule_at or now,
                "created_at": now,
                "updated_at": now,
                "attempts": 0,
                "charged": 0,
                "delivery_key": new_delivery_key(),
                "failure_reason": "",
                "failure_detail": "",
                "platform_error": "",
                "platform_post_id": "",
                "platform_url": "",
            }
        )
        media_rows += [
            {"post_id": post_id, "position": i, "media_id": m.media_id, "org_id": org_id}
            for i, m in enumerate(plan.media)
        ]
    await conn.execute(insert(posts), rows)
    if media_rows:
        await conn.execute(insert(post_media), media_rows)
    # Built from what was inserted: reading the rows back cost two round trips per request.
    media_ids = tuple(m.media_id for m in plan.media)
    records = [
        PostRecord(
            id=r["id"],
            profile_id=r["profile_id"],
            profile=r["profile_slug"],
            connector=r["connector"],
            content=r["content"],
            status=r["status"],
            schedule_at=r["schedule_at"],
            created_at=now,
            updated_at=now,
            media_ids=media_ids,
            post_type=r["post_type"],
            title=r["title"],
            failure_reason="",
            failure_detail="",
            platform_error="",
            platform_post_id="",
            platform_url="",
            published_at=None,
            attempts=0,
        )
        for r in rows
    ]
    if idempotency_key and encode is not None:
        await idempotency.store_response(conn, org_id, idempotency_key, encode(records))
    return CreateOutcome(records)


async def get_post(conn: AsyncConnection, org_id: str, post_id: str, *, for_update: bool = False) -> PostRecord:
    stmt = select(*POST_COLUMNS).where(posts.c.org_id == org_id, posts.c.id == post_id)
    if for_update:
        stmt = stmt.with_for_update()
    found = await load(conn, stmt)
    if not found:
        raise NotFound(f"no post {post_id[:40]!r} in this organization")
    return found[0]


@dataclass(frozen=True, slots=True)
class ListFilter:
    status: str = ""
    profile: str = ""
    connector: str = ""
    scheduled_after: str = ""
    scheduled_before: str = ""


async def list_posts(
    conn: AsyncConnection, org_id: str, filters: ListFilter, page: Page
) -> tuple[list[PostRecord], str]:
    stmt = select(*POST_COLUMNS).where(posts.c.org_id == org_id)
    if filters.status:
        if filters.status not in STATUSES:
            raise ValidationError(f"status must be one of {', '.join(STATUSES)}")
        stmt = stmt.where(posts.c.status == filters.status)
    if filters.profile:
        stmt = stmt.where(posts.c.profile_slug == filters.profile)
    if filters.connector:
        if filters.connector not in CONNECTORS:
            raise ValidationError(f"connector must be one of {', '.join(CONNECTORS)}")
        stmt = stmt.where(posts.c.connector == filters.connector)
    if filters.scheduled_after:
        stmt = stmt.where(posts.c.schedule_at >= parse_datetime(filters.scheduled_after, "scheduled_after"))
    if filters.scheduled_before:
        stmt = stmt.where(posts.c.schedule_at < parse_datetime(filters.scheduled_before, "scheduled_before"))
    if page.after:
        stmt = stmt.where(posts.c.id < page.after)
    found = await load(conn, stmt.order_by(posts.c.id.desc()).limit(page.size + 1))
    return found[: page.size], next_token([p.id for p in found], page.size)


@dataclass(frozen=True, slots=True)
class PostChange:
    content: str | None = None
    schedule_at: str | None = None
    media_ids: list[str] | None = None


async def update_post(
    conn: AsyncConnection, org_id: str, post_id: str, change: PostChange, now: datetime
) -> PostRecord:
    """Edits a post that is not yet publishing. The row is locked for the change, so a worker
    cannot claim it halfway (it skips locked rows)."""
    if change.content is None and change.schedule_at is None and change.media_ids is None:
        raise ValidationError("nothing to change: send content, schedule_at or media_ids")
    current = await get_post(conn, org_id, post_id, for_update=True)
    if current.status not in EDITABLE:
        raise InvalidPostState(f"post is {current.status}; only scheduled or queued posts can be edited")
    await _refuse_if_maybe_out(conn, post_id)
    values: dict[str, object] = {"updated_at": now}
    content = current.content if change.content is None else change.content
    if change.content is not None:
        check_content_for(current.connector, current.profile, content, current.title, current.post_type)
        found = await brand.matchers(conn, org_id, [current.profile_id])
        brand.refuse_never_publish(found[current.profile_id], current.profile, content)
        values["content"] = content
    if change.schedule_at is not None:
        when = parse_schedule(change.schedule_at, now)
        values.update(schedule_at=when, due_at=when, status="scheduled" if when > now else "queued")
    if change.media_ids is not None:
        media = await load_media(conn, org_id, change.media_ids)
        check_media_for(current.connector, current.profile, current.post_type, media)
        await conn.execute(post_media.delete().where(post_media.c.post_id == post_id))
        if media:
            await conn.execute(
                insert(post_media),
                [
                    {"post_id": post_id, "position": i, "media_id": m.media_id, "org_id": org_id}
                    for i, m in enumerate(media)
                ],
            )
    await conn.execute(update(posts).where(posts.c.id == post_id, posts.c.org_id == org_id).values(**values))
    return await get_post(conn, org_id, post_id)


async def cancel_post(conn: AsyncConnection, org_id: str, post_id: str, now: datetime) -> PostRecord:
    current = await get_post(conn, org_id, post_id, for_update=True)
    if current.status not in EDITABLE:
        raise InvalidPostState(f"post is {current.status}; only scheduled or queued posts can be canceled")
    await _refuse_if_maybe_out(conn, post_id)
    await conn.execute(
        update(posts).where(posts.c.id == post_id, posts.c.org_id == org_id).values(status="canceled", updated_at=now)
    )
    return await get_post(conn, org_id, post_id)


async def retry_post(conn: AsyncConnection, org_id: str, post_id: str, now: datetime) -> PostRecord:
    """Puts a failed post back in the queue with a fresh delivery key; it is charged again when
    a worker delivers it (a failed post was refunded or never charged)."""
    current = await get_post(conn, org_id, post_id, for_update=True)
    if current.status != "failed":
        raise InvalidPostState(f"post is {current.status}; only failed posts can be retried")
    await conn.execute(
        update(posts)
        .where(posts.c.id == post_id, posts.c.org_id == org_id)
        .values(
            status="queued",
            due_at=now,
            failure_reason="",
            failure_detail="",
            platform_error="",
            delivery_key=new_delivery_key(),
            delivery_state="",
            attempts=0,
            updated_at=now,
        )
    )
    return await get_post(conn, org_id, post_id)


async def _refuse_if_maybe_out(conn: AsyncConnection, post_id: str) -> None:
    """A queued post whose last attempt may have reached the platform (live mode, no answer)
    waits for Herald to look it up: changing or canceling it now could publish it twice, or
    cancel a post that is already out."""
    state = await conn.scalar(select(posts.c.delivery_state).where(posts.c.id == post_id))
    if state and "create_sent_at" in state:
        raise InvalidPostState(
            "an earlier delivery attempt may have reached the platform; Herald is checking before anything changes"
        )
