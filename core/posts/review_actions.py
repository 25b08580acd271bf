"""Approving and rejecting a post, or every waiting post of a group (docs/teams.md, "Approvals"):
the row (or the group's rows) locked, the review (core/posts/approvals.py), the post's event
(post.approved, post.rejected) in the same transaction. A group is all or nothing: the first post
that refuses names itself and the unit of work rolls every change back."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from core.identity.principal import Principal
from core.posts import approvals, groups, service
from core.posts.records import PostRecord
from core.posts.validation import InvalidPostState


async def approve_post(
    conn: AsyncConnection,
    principal: Principal,
    post_id: str,
    *,
    comment: str,
    schedule_at: str | None,
    publish_now: bool,
    now: datetime,
    live: bool,
) -> PostRecord:
    current = await service.get_post(conn, principal.org_id, post_id, for_update=True)
    await approvals.approve(
        conn, principal, current, comment=comment, schedule_at=schedule_at, publish_now=publish_now, now=now, live=live
    )
    return await service.changed(conn, principal.org_id, post_id, "post.approved", now)


async def reject_post(
    conn: AsyncConnection, principal: Principal, post_id: str, *, comment: str, now: datetime
) -> PostRecord:
    current = await service.get_post(conn, principal.org_id, post_id, for_update=True)
    await approvals.reject(conn, principal, current, comment=comment, now=now)
    return await service.changed(conn, principal.org_id, post_id, "post.rejected", now)


def _waiting(members: list[PostRecord]) -> list[PostRecord]:
    found = [m for m in members if m.status == "pending_approval"]
    if not found:
        raise InvalidPostState("no post of this group is pending approval")
    return found


async def approve_group(
    conn: AsyncConnection,
    principal: Principal,
    group_id: str,
    *,
    comment: str,
    schedule_at: str | None,
    publish_now: bool,
    now: datetime,
    live: bool,
) -> list[PostRecord]:
    """Approves the group's posts that wait; the others are left as they are."""
    for member in _waiting(await groups.get_group(conn, principal.org_id, group_id, for_update=True)):
        with groups.naming(member.id):
            await approve_post(
                conn,
                principal,
                member.id,
                comment=comment,
                schedule_at=schedule_at,
                publish_now=publish_now,
                now=now,
                live=live,
            )
    return await groups.get_group(conn, principal.org_id, group_id)


async def reject_group(
    conn: AsyncConnection, principal: Principal, group_id: str, *, comment: str, now: datetime
) -> list[PostRecord]:
    for member in _waiting(await groups.get_group(conn, principal.org_id, group_id, for_update=True)):
        with groups.naming(member.id):
            await reject_post(conn, principal, member.id, comment=comment, now=now)
    return await groups.get_group(conn, principal.org_id, group_id)
