"""The organization's post groups as the dashboard's posts page lists them (docs/dashboard.md,
"Posts"): the groups of the posts that match the filters, in two sections, one ordered list:

- **upcoming**: groups with a matching post that is a draft, scheduled, queued or publishing,
  soonest first by the earliest `schedule_at` of those posts;
- **history**: the other groups with a matching post (every matching post is done), newest first
  by the earliest `schedule_at` of their matching posts.

Keyset paging over (section, time, group id), without OFFSET, so any page costs about what the
first does. Each group is represented by one post, the first of its matching posts in its
section by (`schedule_at`, id); a section's query walks that section's partial index
(`ix_posts_upcoming`, `ix_posts_history`: organization, `schedule_at`, group) from the token's
position and keeps a post only when no matching post of its group comes before it (NOT EXISTS,
one probe of `ix_posts_org_id_group_id` per post walked), so a group is listed once, at its
first post, whatever page the walk starts on.

A member with profile limits (core/identity/profile_limits.py) sees the groups of their profiles'
posts, each with those posts only: the others are neither listed nor counted."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, exists, literal_column, or_, select, text, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import posts, profile_tags
from core.db.models.posts import HISTORY_SQL, HISTORY_STATUSES, UPCOMING_SQL, UPCOMING_STATUSES
from core.db.types import UTCDateTime
from core.errors import ValidationError
from core.posts.records import POST_COLUMNS, STATUSES, PostRecord, load
from core.posts.schedule import parse_datetime

UPCOMING, HISTORY = UPCOMING_STATUSES, HISTORY_STATUSES
assert set(UPCOMING) | set(HISTORY) == set(STATUSES) and not set(UPCOMING) & set(HISTORY)
SECTIONS = ("upcoming", "history")
# Each section's predicate as the partial index declares it (core/db/models/posts.py), repeated
# word for word, so that both PostgreSQL (whatever the plan's parameters) and SQLite (which
# matches an index's terms as written) use the index.
_SECTION_SQL = {"upcoming": f"posts.{UPCOMING_SQL}", "history": f"posts.{HISTORY_SQL}"}


@dataclass(frozen=True, slots=True)
class GroupFilter:
    status: str = ""
    profile: str = ""
    tag: str = ""
    scheduled_after: str = ""
    scheduled_before: str = ""
    # The caller's profile limits (core/identity/profile_limits.py); (): every profile.
    limited_to: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Position:
    """A place in the list: the section, the time and the group of a listed group."""

    section: str
    at: datetime
    group_id: str


@dataclass(frozen=True, slots=True)
class ListedGroup:
    position: Position
    posts: list[PostRecord]  # every post of the group, in creation (id) order
    matching: frozenset[str]  # the ids of its posts that match the filters


@dataclass(frozen=True, slots=True)
class GroupPage:
    groups: list[ListedGroup]
    next_token: str
    previous_token: str


# -- page tokens ------------------------------------------------------------------------------


def encode_token(direction: str, position: Position) -> str:
    raw = {"d": direction, "s": position.section, "t": position.at.isoformat(), "g": position.group_id}
    return base64.urlsafe_b64encode(json.dumps(raw, separators=(",", ":")).encode()).decode().rstrip("=")


def decode_token(token: str) -> tuple[str, Position]:
    """(`next` or `previous`, the position it continues from); VALIDATION_ERROR when it is not a
    token this module made."""
    try:
        raw = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        direction, section, at, group_id = raw["d"], raw["s"], raw["t"], raw["g"]
        moment = datetime.fromisoformat(at)
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise ValidationError("page_token is malformed") from None
    if (
        direction not in ("next", "previous")
        or section not in SECTIONS
        or moment.tzinfo is None
        or not isinstance(group_id, str)
        or not 0 < len(group_id) <= 64
    ):
        raise ValidationError("page_token is malformed")
    return direction, Position(section, moment, group_id)


# -- the query ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Matching:
    """The filters, checked once; `where` writes them as SQL over posts or an alias of it, and
    `matches` checks a loaded post against them."""

    org_id: str
    status: str
    profile: str
    tagged: frozenset[str] | None  # the profiles carrying the tag; None: no tag asked
    after: datetime | None
    before: datetime | None
    reached: frozenset[str] | None = None  # the profiles within the caller's limits; None: no limits

    @property
    def filtered(self) -> bool:
        return bool(self.status or self.profile or self.tagged is not None or self.after or self.before)

    def sections(self) -> tuple[str, ...]:
        if (self.tagged is not None and not self.tagged) or (self.reached is not None and not self.reached):
            return ()  # no profile carries the tag, or is within the limits: nothing matches
        if not self.status:
            return SECTIONS
        return ("upcoming",) if self.status in UPCOMING else ("history",)

    def where(self, column: Callable[[str], Any]) -> list[ColumnElement[bool]]:
        terms: list[ColumnElement[bool]] = []
        if self.status:
            terms.append(column("status") == self.status)
        if self.profile:
            terms.append(column("profile_slug") == self.profile)
        if self.tagged is not None:
            terms.append(column("profile_id").in_(sorted(self.tagged)))
        if self.after is not None:
            terms.append(column("schedule_at") >= self.after)
        if self.before is not None:
            terms.append(column("schedule_at") < self.before)
        return terms + self.within(column)

    def within(self, column: Callable[[str], Any]) -> list[ColumnElement[bool]]:
        """The limits' term: the posts the caller may see at all."""
        return [] if self.reached is None else [column("profile_id").in_(sorted(self.reached))]

    def matches(self, post: PostRecord) -> bool:
        return (
            (not self.status or post.status == self.status)
            and (not self.profile or post.profile == self.profile)
            and (self.tagged is None or post.profile_id in self.tagged)
            and (self.after is None or post.schedule_at >= self.after)
            and (self.before is None or post.schedule_at < self.before)
            and (self.reached is None or post.profile_id in self.reached)
        )


async def _matching(conn: AsyncConnection, org_id: str, filters: GroupFilter) -> _Matching:
    if filters.status and filters.status not in STATUSES:
        raise ValidationError(f"status must be one of {', '.join(STATUSES)}")
    after = parse_datetime(filters.scheduled_after, "scheduled_after") if filters.scheduled_after else None
    before = parse_datetime(filters.scheduled_before, "scheduled_before") if filters.scheduled_before else None
    tagged = None
    if filters.tag:
        rows = await conn.execute(
            select(profile_tags.c.profile_id).where(profile_tags.c.org_id == org_id, profile_tags.c.tag == filters.tag)
        )
        tagged = frozenset(r.profile_id for r in rows)
    reached = None
    if filters.limited_to:
        rows = await conn.execute(
            select(profile_tags.c.profile_id).where(
                profile_tags.c.org_id == org_id, profile_tags.c.tag.in_(filters.limited_to)
            )
        )
        reached = frozenset(r.profile_id for r in rows)
    return _Matching(org_id, filters.status, filters.profile, tagged, after, before, reached)


# The NOT EXISTS probe's alias of posts, made once (an alias builds its column collection anew).
_OTHER = posts.alias("other")


def walk(
    matching: _Matching, section: str, *, ascending: bool, beyond: Position | None, limit: int, sqlite: bool = False
) -> Select:
    """One section's groups in the order asked, each once, at its first matching post of the
    section by (schedule_at, id); strictly past `beyond` when given."""
    other = _OTHER

    def probed(name: str) -> Any:
        # The NOT EXISTS probe is meant to find a group's posts by ix_posts_org_id_group_id.
        # SQLite, which has no statistics here, would rather range over schedule_at or a profile's
        # posts; a unary + on the other columns (SQLite's own way to say so) keeps it on the group.
        column = other.c[name]
        return literal_column(f"+other.{name}", type_=column.type) if sqlite else column

    earlier = or_(
        probed("schedule_at") < posts.c.schedule_at,
        and_(probed("schedule_at") == posts.c.schedule_at, probed("id") < posts.c.id),
    )
    if section == "upcoming":
        comes_first = and_(probed("status").in_(UPCOMING), earlier)
    else:  # a group with a matching upcoming post is listed in upcoming, not here
        comes_first = or_(probed("status").in_(UPCOMING), earlier)
    stmt = select(posts.c.group_id, posts.c.schedule_at).where(
        text(_SECTION_SQL[section]),
        posts.c.org_id == matching.org_id,
        *matching.where(lambda name: posts.c[name]),
        ~exists().where(
            other.c.org_id == matching.org_id,
            other.c.group_id == posts.c.group_id,
            *matching.where(probed),
            comes_first,
        ),
    )
    if beyond is not None:
        key = tuple_(posts.c.schedule_at, posts.c.group_id)
        bound = tuple_(
            bindparam("beyond_at", beyond.at, type_=UTCDateTime()),
            bindparam("beyond_group", beyond.group_id, type_=posts.c.group_id.type),
        )
        stmt = stmt.where(key > bound if ascending else key < bound)
    if ascending:
        return stmt.order_by(posts.c.schedule_at, posts.c.group_id).limit(limit)
    return stmt.order_by(posts.c.schedule_at.desc(), posts.c.group_id.desc()).limit(limit)


async def _scan(
    conn: AsyncConnection, matching: _Matching, start: Position | None, size: int, *, forward: bool
) -> tuple[list[Position], bool]:
    """Up to `size` positions after `start` (forward) or before it (backward, nearest first),
    crossing from one section into the next; and whether there are more."""
    wanted = matching.sections()
    if start is not None:
        at = SECTIONS.index(start.section)
        wanted = tuple(s for s in wanted if (SECTIONS.index(s) >= at if forward else SECTIONS.index(s) <= at))
    found: list[Position] = []
    sqlite = conn.dialect.name == "sqlite"
    for section in wanted if forward else reversed(wanted):
        beyond = start if start is not None and start.section == section else None
        # upcoming is listed soonest first and history newest first; backward walks each the other way
        ascending = (section == "upcoming") == forward
        stmt = walk(matching, section, ascending=ascending, beyond=beyond, limit=size + 1 - len(found), sqlite=sqlite)
        found += [Position(section, r.schedule_at, r.group_id) for r in await conn.execute(stmt)]
        if len(found) > size:
            break
    return found[:size], len(found) > size


async def list_groups(conn: AsyncConnection, org_id: str, filters: GroupFilter, *, size: int, token: str) -> GroupPage:
    """A page of the organization's groups (`token`: "" for the first page, else one a page
    answered); each with every post of it and which of them match the filters."""
    direction, start = decode_token(token) if token else ("next", None)
    matching = await _matching(conn, org_id, filters)
    if direction == "previous":
        found, more = await _scan(conn, matching, start, size, forward=False)
        found.reverse()
        if more:
            next_token, previous_token = encode_token("next", found[-1]), encode_token("previous", found[0])
        else:  # back at the start: the first page, full
            direction, start = "next", None
    if direction == "next":
        found, more = await _scan(conn, matching, start, size, forward=True)
        next_token = encode_token("next", found[-1]) if more else ""
        previous_token = encode_token("previous", found[0]) if start is not None and found else ""
    return GroupPage(await _groups(conn, matching, found), next_token, previous_token)


async def _groups(conn: AsyncConnection, matching: _Matching, found: list[Position]) -> list[ListedGroup]:
    """Every post of the listed groups (one query, then their media and parts), in creation
    order, and which of them match."""
    if not found:
        return []
    # No ORDER BY: SQLite would walk the organization's (org_id, id) index for it.
    records = await load(
        conn,
        select(*POST_COLUMNS).where(
            posts.c.org_id == matching.org_id,
            posts.c.group_id.in_([p.group_id for p in found]),
            *matching.within(lambda name: posts.c[name]),
        ),
    )
    members: dict[str, list[PostRecord]] = {}
    for record in sorted(records, key=lambda r: r.id):
        members.setdefault(record.group_id, []).append(record)
    return [
        ListedGroup(p, members[p.group_id], frozenset(r.id for r in members[p.group_id] if matching.matches(r)))
        for p in found
        if p.group_id in members
    ]
