"""Notifications made from the events changes emit (docs/webhooks.md's catalogue): the workers'
pass over new events (core/webhooks/fanout.py) hands each batch here in the same transaction that
marks them fanned out, so every event notifies once and no request waits for it.

Who is told (docs/teams.md, "Comments and notifications"):
- post.approval_requested: the members who may approve, but not the author of a post they wrote
  themselves (unless self-approval is on); an agent's post is its member's to approve, so they are told;
- post.approved, post.rejected, post.failed: the post's author (not the reviewer of their own act);
  a post from before authors were recorded: the owners;
- profile.needs_reauth: the members who manage connections;
- credits.low: the members who manage the organization."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import memberships, organizations, posts, profile_tags
from core.identity import profile_limits
from core.identity.roles import ROLES
from core.notes.notifications import notify
from core.settings import CoreSettings

NOTIFYING = frozenset(
    {"post.approval_requested", "post.approved", "post.rejected", "post.failed", "profile.needs_reauth", "credits.low"}
)


async def members_who_may(conn: AsyncConnection, org_id: str, permission: str, *, profile_id: str = "") -> list[str]:
    """The members whose role carries `permission`; with `profile_id`, those of them whose profile
    limits reach that profile (core/identity/profile_limits.py): nobody is told of a profile, or a
    post to it, they cannot see."""
    roles = [role for role, granted in ROLES.items() if permission in granted]
    rows = (
        await conn.execute(
            select(memberships.c.user_id, memberships.c.profile_tags).where(
                memberships.c.org_id == org_id, memberships.c.role.in_(roles)
            )
        )
    ).all()
    if profile_id and any(r.profile_tags for r in rows):
        carried = (await conn.scalars(select(profile_tags.c.tag).where(profile_tags.c.profile_id == profile_id))).all()
        rows = [r for r in rows if profile_limits.reaches(r.profile_tags.split(), carried)]
    return [r.user_id for r in rows]


async def _post_facts(conn: AsyncConnection, post_id: str):  # a Row or None
    return (
        await conn.execute(
            select(
                posts.c.author_id,
                posts.c.author_via,
                posts.c.reviewer_id,
                posts.c.profile_id,
                organizations.c.self_approval,
            )
            .select_from(posts.join(organizations, organizations.c.id == posts.c.org_id))
            .where(posts.c.id == post_id)
        )
    ).first()


def _excerpt(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:59] + "…"


async def _post_event(
    conn: AsyncConnection, org_id: str, event_id: str, kind: str, post: dict[str, Any], now: datetime, settings
) -> None:
    facts = await _post_facts(conn, post["id"])
    if facts is None:
        return  # deleted since (its profile was)
    where = f"{post['profile']}: “{_excerpt(post.get('content', ''))}”"
    link = f"/dashboard/posts/{post['id']}"
    if kind == "post.approval_requested":
        told = await members_who_may(conn, org_id, "approve", profile_id=facts.profile_id)
        if facts.author_via != "agent" and not facts.self_approval:
            told = [u for u in told if u != facts.author_id]
        text, what = f"Waiting for your approval: {where}", "approval_requested"
    else:
        author = facts.author_id
        told = [author] if author else await _owners(conn, org_id)
        if kind == "post.failed":
            reason = post.get("failure_reason") or "failed"
            text, what = f"A post failed ({reason}): {where}", "post_failed"
        else:
            told = [u for u in told if u != facts.reviewer_id]
            review = post.get("review") or {}
            said = f" ({review['comment']})" if review.get("comment") else ""
            verdict = "approved" if kind == "post.approved" else "rejected"
            text, what = f"{review.get('reviewer', 'Someone')} {verdict} your post{said}: {where}", f"post_{verdict}"
    await notify(
        conn, org_id, told, what, text=text, subject_id=post["id"], link=link, dedupe_key=f"event:{event_id}",
        now=now, settings=settings,
    )  # fmt: skip


async def _owners(conn: AsyncConnection, org_id: str) -> list[str]:
    rows = await conn.execute(
        select(memberships.c.user_id).where(memberships.c.org_id == org_id, memberships.c.role == "owner")
    )
    return [r.user_id for r in rows]


async def notify_events(conn: AsyncConnection, events: Sequence[Any], now: datetime, settings: CoreSettings) -> None:
    """`events`: rows with id, org_id, type and body (the delivered JSON)."""
    for event in events:
        if event.type not in NOTIFYING:
            continue
        data = json.loads(event.body)["data"]
        key = f"event:{event.id}"
        if event.type.startswith("post."):
            await _post_event(conn, event.org_id, event.id, event.type, data, now, settings)
        elif event.type == "profile.needs_reauth":
            await notify(
                conn,
                event.org_id,
                await members_who_may(conn, event.org_id, "manage_integrations", profile_id=data["id"]),
                "profile_needs_reauth",
                text=f"Connect {data['slug']} again: the platform no longer accepts its access",
                subject_id=data["slug"],
                link=f"/dashboard/profiles/{data['slug']}",
                dedupe_key=key,
                now=now,
                settings=settings,
            )
        else:  # credits.low
            await notify(
                conn,
                event.org_id,
                await members_who_may(conn, event.org_id, "manage_members"),
                "credits_low",
                text=f"Credits are low: {data['balance']} left",
                subject_id="",
                link="/dashboard/credits",
                dedupe_key=key,
                now=now,
                settings=settings,
            )
