"""Comments on a post or a post group (docs/teams.md, "Comments and notifications"): the team's
internal notes, never published. Every comment belongs to a group (a post's comment to the post's
group, so the group's page shows all of them); `@email` of a member mentions them, and a mention
notifies them in the comment's own transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import memberships, post_comments, posts, profile_tags, users
from core.errors import NotFound, ValidationError
from core.identity import profile_limits
from core.identity.principal import Principal
from core.ids import new_id
from core.notes.notifications import notify
from core.settings import CoreSettings

MAX_BODY = 5000
MAX_LISTED = 500
# `@` then an email address; trailing punctuation is the sentence's, not the address's.
_MENTION = re.compile(r"(?<![\w.+-])@([\w.+-]+@[\w-]+(?:\.[\w-]+)+)", re.UNICODE)


@dataclass(frozen=True, slots=True)
class CommentRecord:
    id: str
    group_id: str
    post_id: str
    author_id: str
    author_email: str
    body: str
    mentions: tuple[str, ...]  # emails
    created_at: datetime


def check_body(body: str) -> str:
    text = body.strip()
    if not text:
        raise ValidationError("body must not be empty")
    if len(text) > MAX_BODY:
        raise ValidationError(f"body must be at most {MAX_BODY} characters (it has {len(text)})")
    return text


async def _subject(conn: AsyncConnection, org_id: str, post_id: str, group_id: str) -> tuple[str, str]:
    """(group_id, post_id or "") of the organization's post or group; NotFound otherwise."""
    if post_id:
        found = await conn.scalar(select(posts.c.group_id).where(posts.c.org_id == org_id, posts.c.id == post_id))
        if found is None:
            raise NotFound(f"no post {post_id[:40]!r} in this organization")
        return found, post_id
    if not group_id:
        raise ValidationError("name a post_id or a group_id")
    found = await conn.scalar(
        select(posts.c.group_id).where(posts.c.org_id == org_id, posts.c.group_id == group_id).limit(1)
    )
    if found is None:
        raise NotFound(f"no post group {group_id[:40]!r} in this organization")
    return group_id, ""


async def _members_by_email(conn: AsyncConnection, org_id: str, emails: set[str]) -> dict[str, tuple[str, str]]:
    """email -> (user id, their profile limits as stored) of the organization's members."""
    if not emails:
        return {}
    rows = await conn.execute(
        select(users.c.email, users.c.id, memberships.c.profile_tags)
        .select_from(users.join(memberships, memberships.c.user_id == users.c.id))
        .where(memberships.c.org_id == org_id, users.c.email.in_(emails))
    )
    return {r.email: (r.id, r.profile_tags) for r in rows}


async def _reaching(
    conn: AsyncConnection, org_id: str, group: str, post: str, found: dict[str, tuple[str, str]]
) -> list[str]:
    """The mentioned members told of it: those whose profile limits reach the post's profile (a
    group's: one of its posts'), so nobody reads of a post they cannot see."""
    limited = {user: tags.split() for user, tags in found.values() if tags}
    told = [user for user, tags in found.values() if not tags]
    if limited:
        subject = select(posts.c.profile_id).where(posts.c.org_id == org_id, posts.c.group_id == group)
        if post:
            subject = subject.where(posts.c.id == post)
        carried = (await conn.scalars(select(profile_tags.c.tag).where(profile_tags.c.profile_id.in_(subject)))).all()
        told += [user for user, tags in limited.items() if profile_limits.reaches(tags, carried)]
    return told


async def add(
    conn: AsyncConnection,
    caller: Principal,
    *,
    post_id: str,
    group_id: str,
    body: str,
    now: datetime,
    settings: CoreSettings,
) -> CommentRecord:
    text = check_body(body)
    group, post = await _subject(conn, caller.org_id, post_id, group_id)
    mentioned = await _members_by_email(conn, caller.org_id, {m.lower() for m in _MENTION.findall(text)})
    comment_id = new_id("cmt")
    await conn.execute(
        insert(post_comments).values(
            id=comment_id,
            org_id=caller.org_id,
            group_id=group,
            post_id=post or None,
            author_id=caller.user_id,
            body=text,
            mentions=" ".join(sorted(user for user, _ in mentioned.values())),
            created_at=now,
        )
    )
    author = await conn.scalar(select(users.c.email).where(users.c.id == caller.user_id)) or ""
    excerpt = " ".join(text.split())
    await notify(
        conn,
        caller.org_id,
        [u for u in await _reaching(conn, caller.org_id, group, post, mentioned) if u != caller.user_id],
        "mentioned",
        text=f"{author} mentioned you: “{excerpt[:80]}{'…' if len(excerpt) > 80 else ''}”",
        subject_id=comment_id,
        link=f"/dashboard/posts/{post}" if post else f"/dashboard/posts?group_id={group}",
        dedupe_key=f"comment:{comment_id}",
        now=now,
        settings=settings,
    )
    return CommentRecord(comment_id, group, post, caller.user_id, author, text, tuple(sorted(mentioned)), now)


async def list_for(conn: AsyncConnection, org_id: str, *, post_id: str, group_id: str) -> list[CommentRecord]:
    """A post's comments (its own and its group's), or a group's (all), oldest first."""
    group, post = await _subject(conn, org_id, post_id, group_id)
    c = post_comments.c
    stmt = (
        select(c.id, c.group_id, c.post_id, c.author_id, users.c.email, c.body, c.mentions, c.created_at)
        .select_from(post_comments.join(users, users.c.id == c.author_id))
        .where(c.org_id == org_id, c.group_id == group)
    )
    if post:
        stmt = stmt.where(or_(c.post_id == post, c.post_id.is_(None)))
    rows = (await conn.execute(stmt.order_by(c.created_at, c.id).limit(MAX_LISTED))).all()
    mentioned_ids = {u for r in rows for u in r.mentions.split()}
    emails = (
        dict((await conn.execute(select(users.c.id, users.c.email).where(users.c.id.in_(mentioned_ids)))).all())
        if mentioned_ids
        else {}
    )
    return [
        CommentRecord(
            r.id,
            r.group_id,
            r.post_id or "",
            r.author_id,
            r.email,
            r.body,
            tuple(sorted(emails[u] for u in r.mentions.split() if u in emails)),
            r.created_at,
        )
        for r in rows
    ]
