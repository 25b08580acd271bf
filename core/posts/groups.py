"""Post groups (docs/posts.md, "Post groups"): the posts one creating request made, under the
`group_id` creation gave them all, read and acted on as one.

A group action locks every post of the group (in id order, so two actions on one group cannot
deadlock; the publisher skips locked rows), then changes each post that is not canceled exactly
as the single-post action does: its own rules, its time slot, its held credits, its webhook
event. All of it runs in the caller's transaction: when one post refuses, the error names it and
the unit of work rolls every change back, events and refunds included."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import posts
from core.errors import DomainError, NotFound
from core.identity import profile_limits
from core.posts import service
from core.posts.records import EDITABLE, POST_COLUMNS, PostRecord, load
from core.posts.schedule import parse_datetime
from core.posts.validation import InvalidPostState


async def get_group(
    conn: AsyncConnection, org_id: str, group_id: str, *, for_update: bool = False, limited_to: tuple[str, ...] = ()
) -> list[PostRecord]:
    """Every post of the organization's group, canceled ones too, in creation (id) order; with
    `limited_to` (the caller's profile limits: core/identity/profile_limits.py), those within
    them only."""
    stmt = select(*POST_COLUMNS).where(posts.c.org_id == org_id, posts.c.group_id == group_id).order_by(posts.c.id)
    stmt = profile_limits.narrowed(stmt, posts.c.profile_id, org_id, limited_to)
    if for_update:
        stmt = stmt.with_for_update()
    found = await load(conn, stmt)
    if not found:
        raise NotFound(f"no post group {group_id[:40]!r} in this organization")
    return found


async def reschedule_group(
    conn: AsyncConnection, org_id: str, group_id: str, schedule_at: str, now: datetime, *, live: bool = False
) -> list[PostRecord]:
    """Moves every post of the group that is not canceled to `schedule_at`, each as
    `PATCH {schedule_at}` moves it (a draft keeps being a draft); the group afterwards. A
    malformed time is the request's problem, refused before any post is looked at; whether the
    time may be taken (the past, the horizon) is each post's, as for PATCH."""
    parse_datetime(schedule_at, "schedule_at")
    members = _acting_on(await get_group(conn, org_id, group_id, for_update=True), "rescheduled")
    if not members:
        raise InvalidPostState("every post of this group is canceled; there is nothing to reschedule")
    change = service.PostChange(schedule_at=schedule_at)
    for member in members:
        with naming(member.id):
            await service.update_post(conn, org_id, member.id, change, now, live=live)
    return await get_group(conn, org_id, group_id)


async def cancel_group(
    conn: AsyncConnection, org_id: str, group_id: str, now: datetime
) -> tuple[list[PostRecord], int | None]:
    """Cancels every post of the group that is not canceled yet, each as `DELETE` cancels it; the
    group afterwards and, when credits came back, the balance after the last refund. A group all
    canceled is answered as it is."""
    members = _acting_on(await get_group(conn, org_id, group_id, for_update=True), "canceled")
    if not members:
        return await get_group(conn, org_id, group_id), None
    balance = None
    for member in members:
        with naming(member.id):
            _, refunded = await service.cancel_post(conn, org_id, member.id, now)
        balance = refunded if refunded is not None else balance
    return await get_group(conn, org_id, group_id), balance


def _acting_on(members: list[PostRecord], verb: str) -> list[PostRecord]:
    """The posts a group action changes: every one not canceled, once each of them may change.
    The first that may not (publishing, published, failed…) refuses the whole action before
    anything changes; the single-post action still checks each one (e.g. for parts already out)."""
    live = [m for m in members if m.status != "canceled"]
    for member in live:
        if member.status not in EDITABLE:
            raise InvalidPostState(
                f"post {member.id} ({member.profile}) is {member.status}; a group is {verb} only while each of "
                "its posts is a draft, scheduled or queued"
            )
    return live


@contextmanager
def naming(post_id: str) -> Iterator[None]:
    """A refusal of one post, raised for the whole group with the post's id in its message."""
    try:
        yield
    except DomainError as error:
        error.message = f"post {post_id}: {error.message}"
        error.args = (error.message,)
        raise
