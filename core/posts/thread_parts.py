"""A post's parts: its thread items and its first comment, stored in `post_parts` in delivery
order (thread items at positions 0..n-1, the first comment at n), their media in `post_media`
under `part` = the item's position (the post's own media have part -1)."""

from __future__ import annotations

import json
import secrets
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import delete, insert, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import post_media, post_parts
from core.db.prepared import Prepared
from core.posts.versions import Version

POST_PART = -1  # post_media.part and outbox.part of the post itself
PART_STATUSES = ("pending", "published", "failed", "skipped")


@dataclass(frozen=True, slots=True)
class PartRecord:
    position: int
    kind: str  # "thread" or "comment"
    content: str
    media_ids: tuple[str, ...]
    status: str
    platform_post_id: str
    platform_url: str


def new_delivery_key() -> str:
    return secrets.token_hex(16)


def part_rows(org_id: str, post_id: str, version: Version) -> tuple[list[dict], list[dict]]:
    """The post_parts rows and the post_media rows of a version's thread and first comment; the
    media positions follow the post's own (0..len(media_ids)-1)."""
    parts, media = [], []
    position = len(version.media_ids)
    for i, item in enumerate(version.thread):
        parts.append(_part(org_id, post_id, i, "thread", item.content))
        for media_id in item.media_ids:
            media.append({"post_id": post_id, "position": position, "media_id": media_id, "org_id": org_id, "part": i})
            position += 1
    if version.first_comment is not None:
        parts.append(_part(org_id, post_id, len(version.thread), "comment", version.first_comment))
    return parts, media


def _part(org_id: str, post_id: str, position: int, kind: str, content: str) -> dict:
    return {
        "post_id": post_id,
        "position": position,
        "org_id": org_id,
        "kind": kind,
        "content": content,
        "status": "pending",
        "delivery_key": new_delivery_key(),
        "platform_post_id": "",
        "platform_url": "",
        "platform_cid": "",
        "delivery_state": "",
    }


def main_media_rows(org_id: str, post_id: str, version: Version) -> list[dict]:
    return [
        {"post_id": post_id, "position": i, "media_id": m, "org_id": org_id, "part": POST_PART}
        for i, m in enumerate(version.media_ids)
    ]


# PostgreSQL: every part of a request in one statement of a fixed shape, the rows as one JSON
# array (json_to_recordset), instead of one INSERT per row: a 10-item thread to 4 profiles is 40
# rows. (An array per column cost more: psycopg writes each array out in Python.)
_PG_INSERT_PARTS = Prepared(
    text(
        "INSERT INTO post_parts (post_id, position, org_id, kind, content, status, delivery_key, "
        "platform_post_id, platform_url, platform_cid, delivery_state) "
        "SELECT post_id, position, org_id, kind, content, status, delivery_key, "
        "platform_post_id, platform_url, platform_cid, delivery_state "
        "FROM json_to_recordset(CAST(:rows AS json)) AS r(post_id text, position integer, org_id text, "
        "kind text, content text, status text, delivery_key text, platform_post_id text, platform_url text, "
        "platform_cid text, delivery_state text)"
    )
)
_PART_COLUMNS = (
    "post_id",
    "position",
    "org_id",
    "kind",
    "content",
    "status",
    "delivery_key",
    "platform_post_id",
    "platform_url",
    "platform_cid",
    "delivery_state",
)


_INSERT_PARTS = Prepared(insert(post_parts), columns=_PART_COLUMNS)
_INSERT_MEDIA = Prepared(insert(post_media), columns=("post_id", "position", "media_id", "org_id", "part"))


async def insert_parts(conn: AsyncConnection, parts: list[dict], media: list[dict]) -> None:
    """The rows of part_rows and main_media_rows (run on the driver: core/db/prepared.py)."""
    if len(parts) > 1 and conn.dialect.name == "postgresql":
        await _PG_INSERT_PARTS.run(conn, {"rows": json.dumps(parts)})
    elif parts:
        await _INSERT_PARTS.many(conn, parts)
    await _INSERT_MEDIA.many(conn, media)


async def rewrite(conn: AsyncConnection, org_id: str, post_id: str, version: Version) -> None:
    """An edit of a post that has not gone out: its media and parts are written anew."""
    await conn.execute(delete(post_parts).where(post_parts.c.post_id == post_id))
    await conn.execute(delete(post_media).where(post_media.c.post_id == post_id))
    parts, media = part_rows(org_id, post_id, version)
    await insert_parts(conn, parts, main_media_rows(org_id, post_id, version) + media)


async def parts_of(conn: AsyncConnection, post_ids: list[str]) -> dict[str, list[PartRecord]]:
    """Each post's parts in delivery order, with their media: two queries for any number of posts."""
    if not post_ids:
        return {}
    rows = (
        await conn.execute(
            select(
                post_parts.c.post_id,
                post_parts.c.position,
                post_parts.c.kind,
                post_parts.c.content,
                post_parts.c.status,
                post_parts.c.platform_post_id,
                post_parts.c.platform_url,
            )
            .where(post_parts.c.post_id.in_(post_ids))
            .order_by(post_parts.c.post_id, post_parts.c.position)
        )
    ).all()
    if not rows:
        return {}
    media: dict[tuple[str, int], list[str]] = defaultdict(list)
    for m in await conn.execute(
        select(post_media.c.post_id, post_media.c.part, post_media.c.media_id)
        .where(post_media.c.post_id.in_({r.post_id for r in rows}), post_media.c.part != POST_PART)
        .order_by(post_media.c.post_id, post_media.c.position)
    ):
        media[(m.post_id, m.part)].append(m.media_id)
    found: dict[str, list[PartRecord]] = defaultdict(list)
    for r in rows:
        found[r.post_id].append(
            PartRecord(
                r.position,
                r.kind,
                r.content,
                tuple(media.get((r.post_id, r.position), ())),
                r.status,
                r.platform_post_id,
                r.platform_url,
            )
        )
    return found
