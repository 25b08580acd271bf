"""A post's history (docs/posts.md, "History"): its first step, `created`, read from the post's
own row, then one `post_events` row per later step, written in the transaction of the change it
records (a change that rolls back leaves none), one INSERT each and no read. The edits, cancels
and retries of core/posts/service.py (and so the group actions) and the publisher's claim and
outcomes (core/publisher) write theirs beside their UPDATE.

Creation writes no event: the `created` step's facts go into the post row's `created_detail`
in the INSERT creation does anyway (core/posts/create.py; `created_detail`), and its time is the
row's created_at. A row of its own cost POST /v1/posts 9% of its throughput (docs/performance.md).
The reader puts the step first, as it is by definition; its id is `pev_` and the post's id (no
stored id has a `_` after `pev_`), so a page token that names it is told apart without comparing
it with stored ids in SQL, whose collation need not be byte order.

`detail` is a small JSON object with the kind's own facts, only those that apply (DETAIL_KEYS);
the API renders it as it is. A post's events go with it (ON DELETE CASCADE): posts have no
retention of their own, so neither has their history."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, literal, select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.logs import REQUEST_ID
from core.db.models import post_events, posts
from core.db.prepared import Prepared
from core.db.types import UTCDateTime
from core.errors import NotFound, ValidationError
from core.ids import new_id
from core.pagination import Page, encode_token

KINDS: dict[str, str] = {
    "created": "The post was created: as a draft, scheduled, or queued to go out now.",
    "edited": "Its content, media, thread, first comment, language or TikTok settings changed (`fields`).",
    "rescheduled": "Only its send time changed (PATCH schedule_at, a group's reschedule, the calendar).",
    "scheduled": "A draft was taken out of draft: scheduled, or queued to go out now.",
    "canceled": "It was canceled before it went out.",
    "retried": "A failed post was put back in the queue (`reason`: why it had failed).",
    "claimed": "A worker took it to deliver: attempt `attempt` began (`recovered`: after a lost lease).",
    "attempt_failed": "An attempt did not deliver: `reason` is the error's class, `will_retry` and "
    "`next_attempt_at` what happens next.",
    "part_published": "A thread item or the first comment went out.",
    "part_failed": "A thread item or the first comment failed for good.",
    "published": "The post went out.",
    "partially_published": "The post went out, but a later part of it failed for good.",
    "failed": "It failed for good: `reason` is the post's failure_reason.",
    "approval_requested": "An edit by someone whose posts need approval sent it back to wait for one.",
    "approved": "A person approved it (`comment`); it is scheduled or queued (`status`, `schedule_at`).",
    "rejected": "A person rejected it (`comment`); it is a draft again.",
}
# The facts `detail` may hold (each only where it applies).
DETAIL_KEYS = (
    "attempt",  # which delivery attempt (1-based): claimed, attempt_failed, published, failed, part_*
    "recovered",  # claimed: after the previous worker's lease ran out
    "reason",  # attempt_failed: the error's class; failed, part_failed, partially_published: failure_reason
    "error",  # what the platform (or Herald) said
    "will_retry",  # attempt_failed
    "next_attempt_at",  # attempt_failed, when it will retry
    "part",  # part_*, attempt_failed of a part: thread or first_comment
    "position",  # the thread item's index (0-based)
    "platform_post_id",  # published, part_published
    "status",  # created, scheduled, edited/rescheduled (when it changed): the post's status after
    "schedule_at",  # created, scheduled, rescheduled, edited: the send time after
    "fields",  # edited: what changed
    "comment",  # approved, rejected: what the reviewer said
    "request_id",  # the X-Request-Id of the request that made the change (none for the publisher's)
)
ERROR_CHARS = 500


@dataclass(frozen=True, slots=True)
class PostEventRecord:
    id: str
    post_id: str
    at: datetime
    kind: str
    detail: dict[str, Any]


_INSERT = Prepared(insert(post_events), columns=["id", "org_id", "post_id", "at", "kind", "detail"])


def event(org_id: str, post_id: str, kind: str, at: datetime, **detail: Any) -> dict[str, Any]:
    """One row of `post_events`; `detail`'s None values are left out, an error is cut to
    ERROR_CHARS characters and datetimes are written as ISO 8601 in UTC."""
    if kind not in KINDS or kind == "created":  # a programming error, not a user's
        raise ValueError(f"no post event row of kind {kind!r} (`created` is the post row's: created_detail)")
    return {"id": new_id("pev"), "org_id": org_id, "post_id": post_id, "at": at, "kind": kind, "detail": dumps(detail)}


def dumps(detail: dict[str, Any]) -> str:
    kept = {}
    for key, value in detail.items():
        if value is None:
            continue
        if key not in DETAIL_KEYS:
            raise ValueError(f"unknown post event detail {key!r}")
        if isinstance(value, datetime):
            value = value.isoformat()
        elif key == "error":
            value = str(value)[:ERROR_CHARS]
        kept[key] = value
    return json.dumps(kept, separators=(",", ":")) if kept else ""


def created_detail(status: str, schedule_at: datetime | None, request_id: str | None) -> str:
    """The post row's `created_detail`: its status after creation, its send time when it has
    one of its own (else it goes now, or is a draft without one), the creating request's id."""
    return dumps({"status": status, "schedule_at": schedule_at, "request_id": request_id})


def created_id(post_id: str) -> str:
    """The `created` step's id: stable, and never a stored one's (new_id puts no `_` after `pev_`)."""
    return f"pev_{post_id}"


async def record(conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
    """The rows `event` built, in the caller's transaction (one statement; psycopg pipelines a
    batch: one round trip)."""
    await _INSERT.many(conn, rows)


async def record_one(conn: AsyncConnection, org_id: str, post_id: str, kind: str, at: datetime, **detail: Any) -> None:
    await _INSERT.run(conn, event(org_id, post_id, kind, at, **detail))


async def changed(conn: AsyncConnection, org_id: str, post_id: str, kind: str, at: datetime, **detail: Any) -> None:
    """A change a request made: its event carries the request's id."""
    await record_one(conn, org_id, post_id, kind, at, request_id=REQUEST_ID.get(), **detail)


def part_name(kind: str) -> str:
    """A part as the history and the outbox name it: `thread` or `first_comment` (a post_parts kind)."""
    return "first_comment" if kind == "comment" else kind


def _token(row: PostEventRecord) -> str:
    return encode_token(f"{row.at.isoformat()}|{row.id}")


def _position(after: str, post_id: str) -> tuple[datetime, str] | None:
    """The stored step's (time, id) a page token names (core/pagination.py decoded it), or None
    when it names the post's `created` step."""
    at, _, event_id = after.partition("|")
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        raise ValidationError("page_token is malformed") from None
    if not event_id.startswith("pev_") or when.tzinfo is None:
        raise ValidationError("page_token is malformed")
    if event_id == created_id(post_id):
        return None
    if "_" in event_id[4:]:  # another post's created step
        raise ValidationError("page_token is malformed")
    return when, event_id


async def list_events(
    conn: AsyncConnection, org_id: str, post_id: str, page: Page, *, newest_first: bool = False
) -> tuple[list[PostEventRecord], str]:
    """The post's steps in order of time (oldest first, or newest), one page, and the next
    page's token. The `created` step comes before every stored one. NotFound unless the post is
    the organization's."""
    post = (
        await conn.execute(
            select(posts.c.created_at, posts.c.created_detail).where(posts.c.org_id == org_id, posts.c.id == post_id)
        )
    ).first()
    if post is None:
        raise NotFound(f"no post {post_id[:40]!r} in this organization")
    created = [] if post.created_detail is None else [_created(post_id, post.created_at, post.created_detail)]
    position = _position(page.after, post_id) if page.after else None  # None: the start, or created
    if newest_first:  # the created step comes last: a token that names it has nothing after it
        at_created = page.after is not None and position is None
        steps = [] if at_created else await _stored(conn, org_id, post_id, page, position, newest_first=True) + created
    else:  # the created step comes first: any token is past it
        stored = await _stored(conn, org_id, post_id, page, position, newest_first=False)
        steps = stored if page.after else created + stored
    token = _token(steps[page.size - 1]) if len(steps) > page.size else ""
    return steps[: page.size], token


def _created(post_id: str, at: datetime, detail: str) -> PostEventRecord:
    return PostEventRecord(created_id(post_id), post_id, at, "created", json.loads(detail))


async def _stored(
    conn: AsyncConnection,
    org_id: str,
    post_id: str,
    page: Page,
    position: tuple[datetime, str] | None,
    *,
    newest_first: bool,
) -> list[PostEventRecord]:
    """Up to a page and one of the post's `post_events` rows after `position` (None: from the
    first), a keyset walk of (at, id)."""
    e = post_events.c
    stmt = select(e.id, e.post_id, e.at, e.kind, e.detail).where(e.post_id == post_id, e.org_id == org_id)
    order = (e.at.desc(), e.id.desc()) if newest_first else (e.at, e.id)
    if position is not None:
        key, at = tuple_(e.at, e.id), tuple_(literal(position[0], UTCDateTime()), literal(position[1], e.id.type))
        stmt = stmt.where(key < at if newest_first else key > at)
    rows = (await conn.execute(stmt.order_by(*order).limit(page.size + 1))).all()
    return [PostEventRecord(r.id, r.post_id, r.at, r.kind, json.loads(r.detail) if r.detail else {}) for r in rows]
