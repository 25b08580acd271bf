"""Approvals (docs/teams.md, "Approvals"): which posts wait for a person, and a person's review.

A post waits (`pending_approval`) when what wrote it needs approval: a contributor (a role that may
not publish) always; an agent (an OAuth token) or a server (an API key) when the organization's
`approvals_required_for` names `agents` or `api_keys`, for every profile or only those carrying
one of `approval_profile_tags`. The settings ride on the principal (read with the credential), so
deciding costs nothing unless tags narrow it (one query on the profiles' tags).

A post waiting for approval is never claimed, published or charged; its time slot stays held, as a
scheduled post's. Approving it runs every check of creation again (the draft's path:
core/posts/draft_scheduling.py), then schedules or queues it; rejecting it returns it to draft.
Either way the review (who, when, comment) stays on the post. Two reviews at once: the row is
locked, so the second finds the post no longer waiting (INVALID_POST_STATE).

Only people review (the method's policy: sessions and API keys whose role may approve). A post its
member wrote themselves (the dashboard, their own API key) needs another approver unless the
organization allows self-approval; a post their agent wrote is theirs to approve."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import posts, profile_tags
from core.errors import Forbidden, ValidationError
from core.identity.principal import CredentialKind, Principal
from core.identity.roles import allows
from core.posts import draft_scheduling, events, history
from core.posts.records import PostRecord
from core.posts.validation import InvalidPostState

MAX_COMMENT = 2000
VIA = {
    CredentialKind.SESSION: "dashboard",
    CredentialKind.API_KEY: "api_key",
    CredentialKind.OAUTH_ACCESS_TOKEN: "agent",
}
# The approvals_required_for value (core/identity/organization.py CHANNELS) that covers each way of writing.
_CHANNEL = {"agent": "agents", "api_key": "api_keys"}


@dataclass(frozen=True, slots=True)
class Author:
    """Who writes, how, and whether what they write waits for a person."""

    user_id: str
    via: str
    # Every post waits (a contributor; or the channel, for every profile).
    everything: bool = False
    # Posts to profiles with one of these tags wait (the channel, narrowed by tags).
    tags: tuple[str, ...] = ()

    async def waiting(self, conn: AsyncConnection, profile_ids: list[str]) -> set[str]:
        """The profiles (of `profile_ids`) whose posts by this author wait for approval."""
        if self.everything:
            return set(profile_ids)
        if not self.tags or not profile_ids:
            return set()
        rows = await conn.execute(
            select(profile_tags.c.profile_id).where(
                profile_tags.c.profile_id.in_(profile_ids), profile_tags.c.tag.in_(self.tags)
            )
        )
        return {r.profile_id for r in rows}


def author_of(principal: Principal) -> Author:
    via = VIA[principal.credential_kind]
    contributor = not allows(principal.role, "publish")
    channel = _CHANNEL.get(via) in principal.approvals_required_for
    narrowed = principal.approval_profile_tags if channel else ()
    return Author(principal.user_id, via, everything=contributor or (channel and not narrowed), tags=narrowed)


def check_comment(comment: str) -> str:
    if len(comment) > MAX_COMMENT:
        raise ValidationError(f"comment must be at most {MAX_COMMENT} characters (it has {len(comment)})")
    return comment.strip()


def _check_reviewer(principal: Principal, current: PostRecord) -> None:
    if current.status != "pending_approval":
        raise InvalidPostState(f"post is {current.status}; only posts pending approval are approved or rejected")
    own = current.author_id == principal.user_id and current.author_via != "agent"
    if own and not principal.self_approval:
        raise Forbidden(
            "you wrote this post yourself: another member who may approve must review it "
            "(or the organization allows self-approval)"
        )


async def _review(
    conn: AsyncConnection, principal: Principal, post_id: str, outcome: str, comment: str, now: datetime, **values
) -> None:
    await conn.execute(
        update(posts)
        .where(posts.c.id == post_id, posts.c.org_id == principal.org_id)
        .values(
            review_outcome=outcome,
            reviewer_id=principal.user_id,
            reviewed_at=now,
            review_comment=comment or None,
            updated_at=now,
            **values,
        )
    )


def _send_time(current: PostRecord, schedule_at: str | None, publish_now: bool, now: datetime) -> str | None:
    """The schedule_at the approval takes the post out with (None: now). A post with a time of its
    own keeps it while it is ahead; one that had none (send_now) goes now; one whose time passed
    while it waited asks for a decision."""
    if publish_now and schedule_at is not None:
        raise ValidationError("send schedule_at or publish_now, not both")
    if publish_now or (schedule_at is None and current.send_now):
        return None
    if schedule_at is not None:
        return schedule_at
    if current.schedule_at > now:
        return current.schedule_at.isoformat()
    raise ValidationError(
        "the post's schedule_at has passed while it waited for approval: approve it with publish_now, "
        "or with a new schedule_at",
        argument="schedule_at",
    )


async def approve(
    conn: AsyncConnection,
    principal: Principal,
    current: PostRecord,
    *,
    comment: str,
    schedule_at: str | None,
    publish_now: bool,
    now: datetime,
    live: bool,
) -> None:
    """`current`: the post read FOR UPDATE by the caller, who reads it again afterwards."""
    _check_reviewer(principal, current)
    comment = check_comment(comment)
    when = _send_time(current, schedule_at, publish_now, now)
    await draft_scheduling.schedule_draft(
        conn,
        principal.org_id,
        current,
        schedule_at=when,
        next_slot=False,
        now=now,
        live=live,
        waiting="pending_approval",
    )
    await _review(conn, principal, current.id, "approved", comment, now, send_now=False)
    await history.changed(conn, principal.org_id, current.id, "approved", now, comment=comment or None)


async def reject(
    conn: AsyncConnection, principal: Principal, current: PostRecord, *, comment: str, now: datetime
) -> None:
    _check_reviewer(principal, current)
    comment = check_comment(comment)
    await _review(conn, principal, current.id, "rejected", comment, now, status="draft", send_now=False)
    await history.changed(conn, principal.org_id, current.id, "rejected", now, comment=comment or None)


async def submit(conn: AsyncConnection, org_id: str, post_id: str, *, send_now: bool) -> None:
    """A post taken out of draft by someone whose posts wait: it waits for approval instead."""
    await conn.execute(
        update(posts)
        .where(posts.c.id == post_id, posts.c.org_id == org_id)
        .values(status="pending_approval", send_now=send_now)
    )


async def emit_requested(conn: AsyncConnection, org_id: str, records: list[PostRecord], now: datetime) -> None:
    """post.approval_requested for the posts that now wait."""
    waiting = [r for r in records if r.status == "pending_approval"]
    if waiting:
        await events.emit(conn, org_id, "post.approval_requested", waiting, now)
