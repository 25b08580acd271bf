"""The posts' webhook events (docs/webhooks.md). Each carries the post exactly as
GET /v1/posts/{id} renders it (the contract's Post, the one renderer), and is written in the
transaction of the change it describes (core/webhooks/fanout.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.resources import Post
from core.db.models import posts
from core.posts.messages import post_message
from core.posts.records import POST_COLUMNS, PostRecord, load
from core.webhooks import fanout


async def emit(
    conn: AsyncConnection, org_id: str, event_type: str, records: Sequence[PostRecord], now: datetime
) -> None:
    await fanout.emit(conn, org_id, event_type, [Post.from_proto(post_message(r)) for r in records], now)


async def emit_current(
    conn: AsyncConnection, org_id: str, event_type: str, post_ids: Sequence[str], now: datetime
) -> None:
    """The posts as they now are in this transaction (after the change), one event each."""
    if post_ids:
        stmt = select(*POST_COLUMNS).where(posts.c.org_id == org_id, posts.c.id.in_(list(post_ids)))
        await emit(conn, org_id, event_type, await load(conn, stmt.order_by(posts.c.id)), now)
