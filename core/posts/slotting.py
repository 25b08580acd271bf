"""Time slots in the database: each profile's table (`profiles.slot_table`), and giving posts
their profile's next free slot (docs/posts.md "Time slots").

A slot is taken when a post of the profile that is not a draft, canceled or failed has its
`schedule_at` in that minute. Concurrent `next_slot` requests never take one slot twice: the
profiles' rows are locked (FOR UPDATE, in id order so two requests cannot deadlock) before the
taken slots are read, and held until the posts are inserted in the same transaction; on SQLite
the write transaction already serializes them.

A full queue must not make each request read it all: `profiles.slot_watermark` is the last slot
given, every slot before it being taken, so the search starts there and reads only the posts
after it. Whatever may free a slot at or before the watermark — a canceled or rescheduled post,
a new slot table — forgets it (`freed`), and the next search reads from now again. (A post only
fails once due, so failing frees no future slot.)
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.engine import is_sqlite
from core.db.models import posts, profiles
from core.errors import NotFound, ValidationError
from core.posts.slots import SlotTable, next_free_slot, parse_table

# Statuses whose posts do not hold their slot.
FREE_STATUSES = ("draft", "canceled", "failed")
EMPTY = SlotTable("UTC", ())


async def get_slots(conn: AsyncConnection, org_id: str, slug: str) -> SlotTable:
    stored = await conn.scalar(
        select(profiles.c.slot_table).where(profiles.c.org_id == org_id, profiles.c.slug == slug)
    )
    if stored is None:
        raise NotFound(f"no profile {slug[:64]!r} in this organization")
    return SlotTable.from_json(stored) or EMPTY


async def set_slots(conn: AsyncConnection, org_id: str, slug: str, timezone: object, slots: object) -> SlotTable:
    table = parse_table(timezone, slots)
    result = await conn.execute(
        update(profiles)
        .where(profiles.c.org_id == org_id, profiles.c.slug == slug)
        .values(slot_table=table.to_json() if table.slots else "", slot_watermark=None)
    )
    if not result.rowcount:
        raise NotFound(f"no profile {slug[:64]!r} in this organization")
    return table if table.slots else EMPTY


async def next_slots(conn: AsyncConnection, profile_ids: dict[str, str], now: datetime) -> dict[str, datetime]:
    """The next free slot after `now` of each profile (id → slug, for the messages), with the
    profiles' rows locked until the caller's transaction ends; each profile's watermark moves
    to the slot it gave."""
    stmt = select(profiles.c.id, profiles.c.slot_table, profiles.c.slot_watermark).where(
        profiles.c.id.in_(sorted(profile_ids))
    )
    if not is_sqlite(conn.engine):
        stmt = stmt.order_by(profiles.c.id).with_for_update()
    rows = {r.id: r for r in await conn.execute(stmt)}
    tables = {i: SlotTable.from_json(r.slot_table) for i, r in rows.items()}
    bare = [profile_ids[i] for i in profile_ids if not tables.get(i) or not tables[i].slots]
    if bare:
        raise ValidationError(
            f"{', '.join(map(repr, bare))} has no time slots: set them with PUT /v1/profiles/{{slug}}/slots"
        )
    out = {}
    for profile_id, slug in profile_ids.items():
        table = tables[profile_id]
        assert table is not None
        mark = rows[profile_id].slot_watermark
        start = max(now, mark) if mark is not None else now
        taken = (
            await conn.scalars(
                select(posts.c.schedule_at).where(
                    posts.c.profile_id == profile_id,
                    posts.c.schedule_at > start.replace(second=0, microsecond=0),
                    posts.c.status.not_in(FREE_STATUSES),
                )
            )
        ).all()
        try:
            out[profile_id] = next_free_slot(table, start, taken)
        except ValidationError as error:
            raise ValidationError(f"profile {slug!r}: {error.message}") from None
        await conn.execute(update(profiles).where(profiles.c.id == profile_id).values(slot_watermark=out[profile_id]))
    return out


async def freed(conn: AsyncConnection, profile_id: str, at: datetime) -> None:
    """A post of the profile no longer holds the slot at `at`: a watermark at or after it is
    forgotten (the slot may be free again)."""
    await conn.execute(
        update(profiles)
        .where(profiles.c.id == profile_id, profiles.c.slot_watermark >= at.replace(second=0, microsecond=0))
        .values(slot_watermark=None)
    )
