"""The posts' webhook events (docs/webhooks.md). Each carries the post exactly as
GET /v1/posts/{id} renders it (the contract's Post, the one renderer), and is written in the
transaction of the change it describes (core/webhooks/fanout.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from herald.posts.v1 import posts_pb2
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.logs import REQUEST_ID
from contract.post_resources import Post
from core.db.models import posts
from core.posts.messages import post_message
from core.posts.records import POST_COLUMNS, PostRecord, load
from core.webhooks import fanout


async def emit(
    conn: AsyncConnection,
    org_id: str,
    event_type: str,
    records: Sequence[PostRecord],
    now: datetime,
    *,
    request_ids: Sequence[str | None] | None = None,
    data: Sequence[dict[str, Any]] | None = None,
) -> None:
    """One event per record; `data`: the records' `post_data` when the caller already built it."""
    if data is None:
        data = post_data([post_message(r) for r in records])
    await fanout.emit(conn, org_id, event_type, data, now, request_ids=request_ids)


def post_data(messages: Sequence[posts_pb2.Post]) -> list[dict[str, Any]]:
    """What a post's event carries: the post as GET /v1/posts/{id} renders it."""
    return [Post.from_proto(m) for m in messages]


async def emit_current(
    conn: AsyncConnection, org_id: str, event_type: str, post_ids: Sequence[str], now: datetime
) -> None:
    """The posts as they now are in this transaction (after the change), one event each. Outside
    a request (the publisher's outcomes), each event carries the id of the request that created
    its post, so an operator follows one POST /v1/posts to the receiver of its post.published."""
    if not post_ids:
        return
    stmt = select(*POST_COLUMNS).where(posts.c.org_id == org_id, posts.c.id.in_(list(post_ids)))
    records = await load(conn, stmt.order_by(posts.c.id))
    request_ids = None
    if REQUEST_ID.get() is None:
        rows = await conn.execute(select(posts.c.id, posts.c.request_id).where(posts.c.id.in_(list(post_ids))))
        created_by = {r.id: r.request_id for r in rows}
        request_ids = [created_by.get(r.id) for r in records]
    await emit(conn, org_id, event_type, records, now, request_ids=request_ids)
