"""What of a post is on the platform, or may be, read from the database (docs/posts.md, "Credits").

A post's `charged` is what it currently holds of its organization's balance. At rest (scheduled,
queued) it holds nothing unless part of it is out or may be out; then it keeps the hold its claim
took, so its thread can finish without asking the balance again. Edits and cancels need nothing
of the post to be out, and a post that fails outside a delivery attempt (its profile was
disconnected) keeps the charge only for what is out or may be.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import outbox, post_parts, posts


@dataclass(frozen=True, slots=True)
class Out:
    charged: int  # what the post holds now
    units: int  # paid deliveries (the post, its thread items) out or perhaps out
    anything: bool  # any part at all (a first comment too) out or perhaps out
    uncertain: bool  # a request that creates a part was sent and never answered

    def keep(self, post_cost: int) -> int:
        """What the post may keep of its charge: the price of what is out or may be."""
        return min(self.charged, post_cost * self.units)


def sent(state: str) -> bool:
    """True when a live attempt saved that it sent the request creating the post or part."""
    if not state or "create_sent_at" not in state:
        return False
    try:
        parsed = json.loads(state)
    except ValueError:
        return False
    return isinstance(parsed, dict) and "create_sent_at" in parsed


async def out_of(conn: AsyncConnection, post_id: str) -> Out:
    """Three indexed reads: the post, its parts, their outbox entries under the current keys."""
    post = (
        await conn.execute(
            select(posts.c.charged, posts.c.delivery_key, posts.c.delivery_state).where(posts.c.id == post_id)
        )
    ).one()
    parts = (
        await conn.execute(
            select(
                post_parts.c.kind, post_parts.c.status, post_parts.c.delivery_key, post_parts.c.delivery_state
            ).where(post_parts.c.post_id == post_id)
        )
    ).all()
    keys = [post.delivery_key, *(p.delivery_key for p in parts)]
    recorded = set((await conn.execute(select(outbox.c.delivery_key).where(outbox.c.delivery_key.in_(keys)))).scalars())
    main_out = post.delivery_key in recorded
    # The post's progress keeps create_sent_at after it went out: it is uncertain only if unrecorded.
    main_maybe = not main_out and sent(post.delivery_state)
    units, anything, uncertain = int(main_out or main_maybe), main_out or main_maybe, main_maybe
    for part in parts:
        out = part.status == "published" or part.delivery_key in recorded
        maybe = not out and part.status == "pending" and sent(part.delivery_state)
        if out or maybe:
            anything = True
            uncertain = uncertain or maybe
            units += part.kind == "thread"
    return Out(post.charged, units, anything, uncertain)
