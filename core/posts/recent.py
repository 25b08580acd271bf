"""Recent posts (get_recent_posts): an organization's published posts, newest first by the time
they went out, with the text as delivered."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import posts
from core.errors import ValidationError
from core.identity import profile_limits
from core.pagination import Page, encode_token
from core.posts.records import POST_COLUMNS, PostRecord, load
from core.posts.rules import PLATFORMS


def _after(token: str) -> tuple[datetime, str]:
    when, _, post_id = token.partition("|")
    try:
        return datetime.fromisoformat(when), post_id
    except ValueError:
        raise ValidationError("page_token is malformed") from None


async def list_recent_posts(
    conn: AsyncConnection,
    org_id: str,
    *,
    profile: str,
    connector: str,
    page: Page,
    limited_to: tuple[str, ...] = (),
) -> tuple[list[PostRecord], str]:
    """Keyset pages on (published_at, id), both descending (ix_posts_org_id_published_at);
    `limited_to`: the caller's profile limits (core/identity/profile_limits.py)."""
    stmt = select(*POST_COLUMNS).where(
        posts.c.org_id == org_id, posts.c.status == "published", posts.c.published_at.is_not(None)
    )
    if profile:
        stmt = stmt.where(posts.c.profile_slug == profile)
    if connector:
        if connector not in PLATFORMS:
            raise ValidationError(f"connector must be one of {', '.join(PLATFORMS)}")
        stmt = stmt.where(posts.c.connector == connector)
    if page.after:
        when, post_id = _after(page.after)
        stmt = stmt.where(or_(posts.c.published_at < when, and_(posts.c.published_at == when, posts.c.id < post_id)))
    stmt = profile_limits.narrowed(stmt, posts.c.profile_id, org_id, limited_to)
    found = await load(conn, stmt.order_by(posts.c.published_at.desc(), posts.c.id.desc()).limit(page.size + 1))
    token = ""
    if len(found) > page.size:
        last = found[page.size - 1]
        token = encode_token(f"{last.published_at.isoformat()}|{last.id}")
    return found[: page.size], token
