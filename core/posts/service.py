"""Posts: create (all or nothing), read, edit, cancel and retry. Validation lives in
core/posts/validation.py; the publisher (core/publisher) moves posts on from `queued`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.brand import service as brand
from core.connectors.base import TikTokOptions
from core.credits import service as credits
from core.db.models import posts, profiles
from core.errors import NotFound, ValidationError
from core.identity import profile_limits
from core.pagination import Page, next_token
from core.posts import approvals, draft_scheduling, events, history, slot_assignment, thread_parts
from core.posts.approvals import Author
from core.posts.features import refuse_missing_scopes, unsupported
from core.posts.field_checks import (
    check_first_comment,
    check_language,
    check_media_ids,
    check_text,
    check_thread,
    check_tiktok,
)
from core.posts.language import normalized_language
from core.posts.records import EDITABLE, POST_COLUMNS, STATUSES, PostRecord, load
from core.posts.rules import PLATFORMS, MediaInfo
from core.posts.schedule import parse_datetime, parse_schedule
from core.posts.thread_parts import new_delivery_key
from core.posts.validation import (
    InvalidPostState,
    check_content_for,
    check_media_for,
    check_version_media,
    check_version_texts,
    load_media,
)
from core.posts.versions import ThreadItem, Version, tiktok_json
from core.publisher import holds


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
    group_id: str = ""
    # The caller's profile limits (core/identity/profile_limits.py); (): every profile.
    limited_to: tuple[str, ...] = ()


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
        if filters.connector not in PLATFORMS:
            raise ValidationError(f"connector must be one of {', '.join(PLATFORMS)}")
        stmt = stmt.where(posts.c.connector == filters.connector)
    if filters.scheduled_after:
        stmt = stmt.where(posts.c.schedule_at >= parse_datetime(filters.scheduled_after, "scheduled_after"))
    if filters.scheduled_before:
        stmt = stmt.where(posts.c.schedule_at < parse_datetime(filters.scheduled_before, "scheduled_before"))
    if filters.group_id:
        stmt = stmt.where(posts.c.group_id == filters.group_id)
    if page.after:
        stmt = stmt.where(posts.c.id < page.after)
    stmt = profile_limits.narrowed(stmt, posts.c.profile_id, org_id, filters.limited_to)
    found = await load(conn, stmt.order_by(posts.c.id.desc()).limit(page.size + 1))
    return found[: page.size], next_token([p.id for p in found], page.size)


@dataclass(frozen=True, slots=True)
class PostChange:
    content: str | None = None
    schedule_at: str | None = None
    media_ids: list[str] | None = None
    thread: tuple[ThreadItem, ...] | None = None  # () removes the thread
    first_comment: str | None = None  # "" removes it
    language: str | None = None  # "" removes it
    tiktok: TikTokOptions | None = None  # TikTokOptions() (nothing chosen) removes them


# What a PostChange may change, as its history's `edited` names them.
CHANGEABLE = ("content", "schedule_at", "media_ids", "thread", "first_comment", "language", "tiktok")


async def update_post(
    conn: AsyncConnection,
    org_id: str,
    post_id: str,
    change: PostChange,
    now: datetime,
    *,
    live: bool = False,
    author: Author | None = None,
) -> PostRecord:
    """Edits a post that is not yet publishing (a draft too) and nothing of which is out. The row
    is locked for the change, so a worker cannot claim it halfway (it skips locked rows). What
    changes is checked as creation checks it; a draft's texts and media are checked against the
    destination when it is scheduled. The next claim prices the post as edited. A post waiting
    for approval keeps waiting; a scheduled or queued one edited by an `author` whose posts wait
    (core/posts/approvals.py) goes back to waiting for approval."""
    if change == PostChange():
        raise ValidationError(
            "nothing to change: send content, schedule_at, media_ids, thread, first_comment, language or tiktok"
        )
    current = await get_post(conn, org_id, post_id, for_update=True)
    if current.status not in EDITABLE:
        raise InvalidPostState(f"post is {current.status}; only drafts, scheduled or queued posts can be edited")
    held = await _refuse_if_maybe_out(conn, post_id)
    draft = current.status == "draft"
    waits = current.status == "pending_approval" or (
        not draft and author is not None and bool(await author.waiting(conn, [current.profile_id]))
    )
    _check_change_shapes(change)
    if change.tiktok is not None and current.connector != "tiktok":
        raise ValidationError(f"tiktok settings apply to TikTok posts only; this post goes to {current.connector}")
    version = _changed_version(current, change)
    target = [(current.profile, current.connector, version)]
    if (error := unsupported(target)) is not None:
        raise error
    if live and (change.thread or change.first_comment):
        granted = await conn.scalar(select(profiles.c.granted_scopes).where(profiles.c.id == current.profile_id))
        refuse_missing_scopes(target, {current.profile: granted or ""})
    values: dict[str, object] = {"updated_at": now, "content": version.content, "units": version.units}
    if change.language is not None:
        values["language"] = normalized_language(change.language) if change.language else None
    if change.tiktok is not None:
        values["tiktok_options"] = "" if change.tiktok == TikTokOptions() else tiktok_json(change.tiktok)
    media = {m.media_id: m for m in await load_media(conn, org_id, list(dict.fromkeys(version.all_media_ids)))}
    if not draft:
        await _check_changed(conn, org_id, current, change, version, media)
    if change.schedule_at is not None:
        await slot_assignment.freed(conn, current.profile_id, current.schedule_at)
        if draft:
            when = parse_datetime(change.schedule_at, "schedule_at")
            values.update(schedule_at=when, due_at=when)
        else:
            when = parse_schedule(change.schedule_at, now) or now
            values.update(schedule_at=when, due_at=when, status="scheduled" if when > now else "queued")
    if waits:
        # It keeps (or starts) waiting; a new time replaces "as soon as approved", a queued post
        # sent back goes out as soon as approved again.
        values["status"] = "pending_approval"
        if change.schedule_at is not None:
            values["send_now"] = False
        elif current.status == "queued":
            values["send_now"] = True
    if change.media_ids is not None or change.thread is not None or change.first_comment is not None:
        await thread_parts.rewrite(conn, org_id, post_id, version)
    if held:
        # Nothing of it is out, so it should hold nothing (docs/posts.md "Credits"): whatever it
        # holds is given back, and the next claim prices the post as edited.
        values["charged"] = 0
        await credits.grant(conn, org_id, held, reason="refund", reference=post_id, now=now)
    await conn.execute(update(posts).where(posts.c.id == post_id, posts.c.org_id == org_id).values(**values))
    fields = [name for name in CHANGEABLE if getattr(change, name) is not None]
    status = values.get("status")
    await history.changed(
        conn,
        org_id,
        post_id,
        "rescheduled" if fields == ["schedule_at"] else "edited",
        now,
        fields=fields if fields != ["schedule_at"] else None,
        schedule_at=values.get("schedule_at"),
        status=status if status != current.status else None,
    )
    record = await changed(conn, org_id, post_id, "post.updated", now)
    if waits and current.status != "pending_approval":
        await history.changed(conn, org_id, post_id, "approval_requested", now)
        await approvals.emit_requested(conn, org_id, [record], now)
    return record


async def changed(conn: AsyncConnection, org_id: str, post_id: str, event_type: str, now: datetime) -> PostRecord:
    """The post after a change, with the change's event written in the same transaction."""
    record = await get_post(conn, org_id, post_id)
    await events.emit(conn, org_id, event_type, [record], now)
    return record


def _check_change_shapes(change: PostChange) -> None:
    if change.content is not None:
        check_text("content", change.content)
    if change.media_ids is not None:
        check_media_ids("media_ids", tuple(change.media_ids))
    if change.thread is not None:
        check_thread("", change.thread, allow_empty=True)
    if change.first_comment:
        check_first_comment("", change.first_comment)
    if change.language:
        check_language("language", change.language)
    check_tiktok("", change.tiktok)


def _changed_version(current: PostRecord, change: PostChange) -> Version:
    if change.first_comment is not None:
        first_comment = change.first_comment or None
    else:
        first_comment = current.first_comment.content if current.first_comment else None
    return Version(
        content=current.content if change.content is None else change.content,
        media_ids=current.media_ids if change.media_ids is None else tuple(change.media_ids),
        title=current.title,
        post_type=current.post_type,
        thread=(
            tuple(ThreadItem(p.content, p.media_ids) for p in current.thread)
            if change.thread is None
            else change.thread
        ),
        first_comment=first_comment,
    )


async def _check_changed(
    conn: AsyncConnection,
    org_id: str,
    current: PostRecord,
    change: PostChange,
    version: Version,
    media: dict[str, MediaInfo],
) -> None:
    """A scheduled or queued post: what the change sends anew meets the destination's rules."""
    connector, slug = current.connector, current.profile
    changed = Version(
        content=version.content,
        media_ids=version.media_ids,
        title=current.title,
        post_type=current.post_type,
        thread=change.thread or (),
        first_comment=change.first_comment or None,
    )
    if change.content is not None:
        check_content_for(connector, slug, version.content, current.title, current.post_type)
    check_version_texts(connector, slug, replace(changed, content=""), current.post_type, content=False)
    texts = [text for name, text in changed.texts if name != "content" or change.content is not None]
    found = await brand.matchers(conn, org_id, [current.profile_id])
    brand.refuse_never_publish(found[current.profile_id], slug, *texts)
    if change.media_ids is not None:
        check_media_for(connector, slug, current.post_type, [media[m] for m in version.media_ids])
    check_version_media(connector, slug, replace(changed, media_ids=()), current.post_type, media, main=False)


async def schedule_post(
    conn: AsyncConnection,
    org_id: str,
    post_id: str,
    *,
    schedule_at: str | None,
    next_slot: bool,
    now: datetime,
    live: bool = False,
    author: Author | None = None,
) -> PostRecord:
    """Takes a draft out of draft; one whose `author` must have posts approved is submitted for
    approval instead (pending_approval, with its time kept), after the same checks."""
    current = await get_post(conn, org_id, post_id, for_update=True)
    await draft_scheduling.schedule_draft(
        conn, org_id, current, schedule_at=schedule_at, next_slot=next_slot, now=now, live=live
    )
    submitted = author is not None and bool(await author.waiting(conn, [current.profile_id]))
    if submitted:
        await approvals.submit(conn, org_id, post_id, send_now=schedule_at is None and not next_slot)
    record = await changed(conn, org_id, post_id, "post.updated", now)
    when = record.schedule_at if record.status in ("scheduled", "pending_approval") else None
    await history.changed(conn, org_id, post_id, "scheduled", now, status=record.status, schedule_at=when)
    if submitted:
        await approvals.emit_requested(conn, org_id, [record], now)
    return record


async def cancel_post(conn: AsyncConnection, org_id: str, post_id: str, now: datetime) -> tuple[PostRecord, int | None]:
    """Cancels a post nothing of which is out. Such a post holds no credits (a transient failure
    gave its hold back: docs/posts.md "Credits"); whatever it still holds is refunded here, with a
    ledger row naming the post, so a canceled post never costs anything. Returns the post and,
    when credits came back, the balance after."""
    current = await get_post(conn, org_id, post_id, for_update=True)
    if current.status not in EDITABLE:
        raise InvalidPostState(f"post is {current.status}; only drafts, scheduled or queued posts can be canceled")
    held = await _refuse_if_maybe_out(conn, post_id)
    await conn.execute(
        update(posts)
        .where(posts.c.id == post_id, posts.c.org_id == org_id)
        .values(status="canceled", charged=0, updated_at=now)
    )
    balance = await credits.grant(conn, org_id, held, reason="refund", reference=post_id, now=now) if held else None
    await slot_assignment.freed(conn, current.profile_id, current.schedule_at)
    await history.changed(conn, org_id, post_id, "canceled", now)
    return await changed(conn, org_id, post_id, "post.canceled", now), balance


async def retry_post(conn: AsyncConnection, org_id: str, post_id: str, now: datetime) -> PostRecord:
    """Puts a failed post back in the queue with a fresh delivery key; the next claim charges it
    anew. A failed post holds nothing, except one that failed `delivery_uncertain`: that charge
    stays in the ledger as the price of the delivery that may be out, and the new attempt (a new
    delivery, under a new key) pays for itself (docs/posts.md "Credits")."""
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
            charged=0,
            updated_at=now,
        )
    )
    await history.changed(conn, org_id, post_id, "retried", now, reason=current.failure_reason or None)
    return await changed(conn, org_id, post_id, "post.updated", now)


async def _refuse_if_maybe_out(conn: AsyncConnection, post_id: str) -> int:
    """A post any part of which is out, or may be (an attempt sent it and got no answer; Herald
    looks it up before anything else), cannot be edited or canceled: that could publish it twice,
    rewrite or re-price what is already on the platform, or cancel a post that is out. Returns
    the credits the post holds (0 when nothing of it is out)."""
    out = await holds.out_of(conn, post_id)
    if out.uncertain:
        raise InvalidPostState(
            "an earlier delivery attempt may have reached the platform; Herald is checking before anything changes"
        )
    if out.anything:
        raise InvalidPostState("part of this post is already published; it can no longer be edited or canceled")
    return out.charged
