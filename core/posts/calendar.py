"""The dashboard's calendar (docs/dashboard.md, "Calendar"): an organization's posts scheduled in
a range, lean — what a calendar shows of each, never the whole text — and one profile's free
time slots in it.

A month of a busy organization is thousands of posts: one indexed range read
(`ix_posts_org_id_schedule_at`) of seven short columns, the text cut to an excerpt by the
database (`substr`), run on the driver (core/db/prepared.py), one statement per combination of
filters so each keeps a plan of its own. A member with profile limits (core/identity/profile_limits.py)
sees their profiles' posts, and free slots of those profiles only."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import posts, profile_tags, profiles
from core.db.prepared import Prepared
from core.errors import ValidationError
from core.identity import profile_limits
from core.posts.records import STATUSES
from core.posts.slot_assignment import FREE_STATUSES
from core.posts.slot_table import HORIZON, SlotTable, candidates

MAX_RANGE = timedelta(days=62)  # a month's grid (six weeks) and more; never a year at once
MAX_POSTS = 5000
MAX_FREE_SLOTS = 200
EXCERPT = 80  # characters of text shown
_READ = EXCERPT * 2  # characters read: whitespace runs collapse, so read more than is shown


@dataclass(frozen=True, slots=True)
class CalendarFilter:
    profile: str = ""
    tag: str = ""
    status: str = ""
    # The caller's profile limits (core/identity/profile_limits.py); (): every profile.
    limited_to: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CalendarEntry:
    id: str
    group_id: str
    profile: str
    connector: str
    status: str
    schedule_at: datetime
    excerpt: str


@dataclass(frozen=True, slots=True)
class CalendarRange:
    posts: list[CalendarEntry]
    truncated: bool
    free_slots: list[datetime]


@functools.cache
def _statement(profile: bool, tag: bool, status: bool, limits: int) -> Prepared:
    """The range's posts, for a combination of filters and a number of limiting tags (0: none)."""
    stmt = select(
        posts.c.id,
        posts.c.group_id,
        posts.c.profile_slug,
        posts.c.connector,
        posts.c.status,
        posts.c.schedule_at,
        func.substr(posts.c.content, 1, _READ).label("head"),
    ).where(
        posts.c.org_id == bindparam("org"),
        posts.c.schedule_at >= bindparam("start", type_=posts.c.schedule_at.type),
        posts.c.schedule_at < bindparam("end", type_=posts.c.schedule_at.type),
    )
    if profile:
        stmt = stmt.where(posts.c.profile_slug == bindparam("profile"))
    if tag:
        tagged = select(profile_tags.c.profile_id).where(
            profile_tags.c.org_id == bindparam("org"), profile_tags.c.tag == bindparam("tag")
        )
        stmt = stmt.where(posts.c.profile_id.in_(tagged))
    if status:
        stmt = stmt.where(posts.c.status == bindparam("status"))
    if limits:
        stmt = stmt.where(profile_limits.within(posts.c.profile_id, bindparam("org"), profile_limits.bound(limits)))
    return Prepared(stmt.order_by(posts.c.schedule_at, posts.c.id).limit(bindparam("limit")))


# The profile's table and the minutes its posts hold in the range (ix_posts_profile_id_schedule_at).
@functools.cache
def _profile(limits: int) -> Prepared:
    stmt = select(profiles.c.id, profiles.c.slot_table).where(
        profiles.c.org_id == bindparam("org"), profiles.c.slug == bindparam("slug")
    )
    if limits:
        stmt = stmt.where(profile_limits.within(profiles.c.id, bindparam("org"), profile_limits.bound(limits)))
    return Prepared(stmt)


_HELD = Prepared(
    select(posts.c.schedule_at).where(
        posts.c.profile_id == bindparam("profile"),
        posts.c.schedule_at >= bindparam("start", type_=posts.c.schedule_at.type),
        posts.c.schedule_at < bindparam("end", type_=posts.c.schedule_at.type),
        # One comparison each: a prepared statement takes no list parameter.
        *(posts.c.status != status for status in FREE_STATUSES),
    )
)


def excerpt(head: str) -> str:
    """The start of a text as the calendar names a post by it: whitespace runs made one space,
    at most EXCERPT characters, the last one "…" when the text goes on."""
    text = " ".join(head.split())
    return text if len(text) <= EXCERPT else f"{text[: EXCERPT - 1].rstrip()}…"


async def list_calendar(
    conn: AsyncConnection, org_id: str, start: datetime, end: datetime, filters: CalendarFilter, now: datetime
) -> CalendarRange:
    """The posts scheduled in [start, end), by schedule_at then id, at most MAX_POSTS; with a
    profile, its free slots in the range from `now` on, at most MAX_FREE_SLOTS."""
    if end <= start:
        raise ValidationError("end_time must be after start_time")
    if end - start > MAX_RANGE:
        raise ValidationError(f"a calendar range is at most {MAX_RANGE.days} days")
    if filters.status and filters.status not in STATUSES:
        raise ValidationError(f"status must be one of {', '.join(STATUSES)}")
    params = {"org": org_id, "start": start, "end": end, "limit": MAX_POSTS + 1}
    if filters.profile:
        params["profile"] = filters.profile
    if filters.tag:
        params["tag"] = filters.tag
    if filters.status:
        params["status"] = filters.status
    limits = filters.limited_to
    statement = _statement(bool(filters.profile), bool(filters.tag), bool(filters.status), len(limits))
    rows = await statement.all(conn, params | profile_limits.bound_values(limits))
    entries = [
        CalendarEntry(r.id, r.group_id, r.profile_slug, r.connector, r.status, r.schedule_at, excerpt(r.head or ""))
        for r in rows[:MAX_POSTS]
    ]
    free = await free_slots(conn, org_id, filters.profile, start, end, now, limits) if filters.profile else []
    return CalendarRange(entries, len(rows) > MAX_POSTS, free)


async def free_slots(
    conn: AsyncConnection,
    org_id: str,
    slug: str,
    start: datetime,
    end: datetime,
    now: datetime,
    limited_to: tuple[str, ...] = (),
) -> list[datetime]:
    """The profile's slots in [max(start, now), end) that no post holds (the rule next_slot
    gives slots by: core/posts/slot_assignment.py), earliest first; none for an unknown profile,
    one outside `limited_to` (the caller's profile limits) or one without a table."""
    params = {"org": org_id, "slug": slug} | profile_limits.bound_values(limited_to)
    profile = await _profile(len(limited_to)).first(conn, params)
    table = SlotTable.from_json(profile.slot_table) if profile is not None and profile.slot_table else None
    if profile is None or table is None or not table.slots:
        return []
    after = max(start, now)
    if after >= end:
        return []
    held = {
        row.schedule_at.replace(second=0, microsecond=0)
        for row in await _HELD.all(conn, {"profile": profile.id, "start": after, "end": end})
    }
    # candidates() gives instants strictly after its argument: a slot exactly at `start` counts.
    found = []
    for instant in candidates(table, after - timedelta(microseconds=1)):
        if instant >= end or instant > now + HORIZON or len(found) == MAX_FREE_SLOTS:
            break
        if instant >= after and instant not in held:
            found.append(instant)
    return found
