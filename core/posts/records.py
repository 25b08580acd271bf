"""Reading posts: the record the servicer renders, loaded with their media in one extra query."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.connectors.base import TikTokOptions
from core.db.models import post_media, posts, users
from core.posts.thread_parts import POST_PART, PartRecord, parts_of
from core.posts.versions import tiktok_from_json

STATUSES = (
    "scheduled",
    "queued",
    "publishing",
    "published",
    "failed",
    "canceled",
    "draft",
    "partially_published",
    "pending_approval",
)
EDITABLE = ("scheduled", "queued", "draft", "pending_approval")
# Why a failed post failed (docs/posts.md "Lifecycle"): the publisher sets one of these.
FAILURE_REASONS = (
    "insufficient_credits",
    "platform_rejected",
    "needs_reauth",
    "retries_exhausted",
    "delivery_uncertain",
    "never_publish_phrase",
    "profile_disconnected",
)


@dataclass(frozen=True, slots=True)
class ReviewRecord:
    """A post's last review (docs/teams.md, "Approvals")."""

    outcome: str  # approved, rejected
    reviewer_id: str
    reviewer_email: str
    at: datetime
    comment: str


@dataclass(frozen=True, slots=True)
class PostRecord:
    id: str
    group_id: str  # the creating request's post group (docs/posts.md "Post groups")
    profile_id: str
    profile: str
    connector: str
    content: str
    status: str
    schedule_at: datetime
    created_at: datetime
    updated_at: datetime
    media_ids: tuple[str, ...]
    post_type: str
    title: str | None
    failure_reason: str
    failure_detail: str
    platform_error: str
    platform_post_id: str
    platform_url: str
    published_at: datetime | None
    attempts: int
    parts: tuple[PartRecord, ...] = ()
    language: str | None = None
    tiktok: TikTokOptions | None = None
    author_id: str = ""
    author_via: str = ""
    review: ReviewRecord | None = None
    send_now: bool = False  # waiting for approval with no time of its own

    @property
    def thread(self) -> tuple[PartRecord, ...]:
        return tuple(p for p in self.parts if p.kind == "thread")

    @property
    def first_comment(self) -> PartRecord | None:
        return next((p for p in self.parts if p.kind == "comment"), None)


POST_COLUMNS = (
    posts.c.id,
    posts.c.group_id,
    posts.c.profile_id,
    posts.c.profile_slug,
    posts.c.connector,
    posts.c.content,
    posts.c.status,
    posts.c.schedule_at,
    posts.c.created_at,
    posts.c.updated_at,
    posts.c.post_type,
    posts.c.title,
    posts.c.failure_reason,
    posts.c.failure_detail,
    posts.c.platform_error,
    posts.c.platform_post_id,
    posts.c.platform_url,
    posts.c.published_at,
    posts.c.attempts,
    posts.c.language,
    posts.c.tiktok_options,
    posts.c.author_id,
    posts.c.author_via,
    posts.c.review_outcome,
    posts.c.reviewer_id,
    posts.c.reviewed_at,
    posts.c.review_comment,
    posts.c.send_now,
)


async def media_of(conn: AsyncConnection, post_ids: list[str]) -> dict[str, tuple[str, ...]]:
    if not post_ids:
        return {}
    rows = await conn.execute(
        select(post_media.c.post_id, post_media.c.media_id)
        .where(post_media.c.post_id.in_(post_ids), post_media.c.part == POST_PART)
        .order_by(post_media.c.post_id, post_media.c.position)
    )
    found: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        found[row.post_id].append(row.media_id)
    return {k: tuple(v) for k, v in found.items()}


async def load(conn: AsyncConnection, stmt: Select) -> list[PostRecord]:
    rows = (await conn.execute(stmt)).all()
    media = await media_of(conn, [r.id for r in rows])
    parts = await parts_of(conn, [r.id for r in rows])
    reviews = await _reviews(conn, rows)
    return [
        PostRecord(
            id=r.id,
            group_id=r.group_id,
            profile_id=r.profile_id,
            profile=r.profile_slug,
            connector=r.connector,
            content=r.content,
            status=r.status,
            schedule_at=r.schedule_at,
            created_at=r.created_at,
            updated_at=r.updated_at,
            media_ids=media.get(r.id, ()),
            post_type=r.post_type,
            title=r.title,
            failure_reason=r.failure_reason,
            failure_detail=r.failure_detail,
            platform_error=r.platform_error,
            platform_post_id=r.platform_post_id,
            platform_url=r.platform_url,
            published_at=r.published_at,
            attempts=r.attempts,
            parts=tuple(parts.get(r.id, ())),
            language=r.language,
            tiktok=tiktok_from_json(r.tiktok_options),
            author_id=r.author_id or "",
            author_via=r.author_via or "",
            review=reviews.get(r.id),
            send_now=r.send_now,
        )
        for r in rows
    ]


async def _reviews(conn: AsyncConnection, rows) -> dict[str, ReviewRecord]:
    """The reviewed posts' reviews, with their reviewers' emails: a query only when one has one."""
    reviewed = [r for r in rows if r.review_outcome]
    if not reviewed:
        return {}
    ids = list({r.reviewer_id for r in reviewed if r.reviewer_id})
    emails = dict((await conn.execute(select(users.c.id, users.c.email).where(users.c.id.in_(ids)))).all())
    return {
        r.id: ReviewRecord(
            r.review_outcome, r.reviewer_id or "", emails.get(r.reviewer_id, ""), r.reviewed_at, r.review_comment or ""
        )
        for r in reviewed
    }
