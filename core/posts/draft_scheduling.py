"""Taking a draft out of draft (`POST /v1/posts/{id}/schedule`), or a post waiting for approval
out of waiting (its approval, core/posts/approvals.py): every check of creation, then scheduled at
`schedule_at`, at the profile's next free time slot, or queued to publish now."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import posts, profiles
from core.errors import ValidationError
from core.posts import slot_assignment
from core.posts.features import refuse_missing_scopes
from core.posts.records import PostRecord
from core.posts.schedule import parse_schedule
from core.posts.validation import (
    InvalidPostState,
    Target,
    TargetProfile,
    check_destinations,
    load_media,
    refuse_unconnected,
    refuse_unsupported,
)
from core.posts.versions import ThreadItem, Version


async def schedule_draft(
    conn: AsyncConnection,
    org_id: str,
    current: PostRecord,
    *,
    schedule_at: str | None,
    next_slot: bool,
    now: datetime,
    live: bool = False,
    waiting: str = "draft",
) -> None:
    """`current` is the post read FOR UPDATE by the caller, who reads it again afterwards;
    `waiting`: the status it must be in (a draft, or a post pending approval)."""
    if current.status != waiting:
        raise InvalidPostState(f"post is {current.status}; only {waiting.replace('_', ' ')} posts can be scheduled")
    if schedule_at is not None and next_slot:
        raise ValidationError("send schedule_at or next_slot, not both")
    when = parse_schedule(schedule_at, now)
    row = (
        await conn.execute(
            select(profiles.c.connection_status, profiles.c.granted_scopes).where(profiles.c.id == current.profile_id)
        )
    ).one()
    profile = TargetProfile(current.profile_id, current.profile, current.connector, *row)
    version = Version(
        content=current.content,
        media_ids=current.media_ids,
        title=current.title,
        post_type=current.post_type,
        thread=tuple(ThreadItem(p.content, p.media_ids) for p in current.thread),
        first_comment=current.first_comment.content if current.first_comment else None,
    )
    target = Target(profile, version, current.post_type)
    refuse_unsupported([target])
    if live:
        refuse_unconnected([profile])
        refuse_missing_scopes([(profile.slug, profile.connector, version)], {profile.slug: profile.granted_scopes})
    media = {m.media_id: m for m in await load_media(conn, org_id, list(dict.fromkeys(version.all_media_ids)))}
    await check_destinations(conn, org_id, [target], media)
    if next_slot:
        when = (await slot_assignment.next_slots(conn, [profile.id], now))[profile.id]
    await conn.execute(
        update(posts)
        .where(posts.c.id == current.id, posts.c.org_id == org_id)
        .values(
            status="scheduled" if when else "queued",
            schedule_at=when or now,
            due_at=when or now,
            updated_at=now,
        )
    )
