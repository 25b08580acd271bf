"""Time slots in the database: each profile's table (`profiles.slot_table`), and giving posts
their profile's next free slot (docs/posts.md "Time slots").

A slot is taken when a post of the profile that is not a draft, canceled or failed has its
`schedule_at` in that minute. Concurrent `next_slot` requests never take one slot twice: the
profiles' rows are locked (FOR UPDATE, in id order so two requests cannot deadlock) before the
taken slots are read, and held until the posts are inserted in the same transaction; on SQLite
the write transaction already serializes them.

A full queue must not make each request read it all: `profiles.slot_watermark` is a slot given
earlier, every slot before it being taken, so the search starts there and reads only the posts
after it; it is moved forward when a search walked past WATERMARK_STEP taken slots. Whatever may free a slot at or before the watermark — a canceled or rescheduled post,
a new slot table — forgets it (`freed`), and the next search reads from now again. (A post only
fails once due, so failing frees no future slot.)
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.engine import is_sqlite
from core.db.models import posts, profiles
from core.errors import NotFound, ValidationError
from core.posts.slots import HORIZON, SlotTable, candidates, parse_table

# The watermark moves when a search walked past this many taken slots (it stays valid, only
# older, in between).
WATERMARK_STEP = 16
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
    starts = {i: max(now, r.slot_watermark) if r.slot_watermark is not None else now for i, r in rows.items()}
    # One read for every profile: the posts after the earliest start (each profile's own start
    # filters them), then one write of the watermarks.
    taken: dict[str, list[datetime]] = {i: [] for i in profile_ids}
    for row in await conn.execute(
        select(posts.c.profile_id, posts.c.schedule_at).where(
            posts.c.profile_id.in_(list(profile_ids)),
            posts.c.schedule_at > min(starts.values()).replace(second=0, microsecond=0),
            posts.c.status.not_in(FREE_STATUSES),
        )
    ):
        taken[row.profile_id].append(row.schedule_at)
    out, marks = {}, []
    for profile_id, slug in profile_ids.items():
        table = tables[profile_id]
        assert table is not None
        held = {t.replace(second=0, microsecond=0) for t in taken[profile_id]}
        skipped = 0
        for instant in candidates(table, starts[profile_id]):
            if instant > now + HORIZON:
                break
            if instant not in held:
                out[profile_id] = instant
                break
            skipped += 1
        if profile_id not in out:
            raise ValidationError(
                f"profile {slug!r}: no free time slot in the next {HORIZON.days} days: every slot is taken"
            )
        if skipped >= WATERMARK_STEP:  # moved only now and then: one write saved on most requests
            marks.append({"profile": profile_id, "mark": out[profile_id]})
    if marks:
        await conn.execute(
            update(profiles).where(profiles.c.id == bindparam("profile")).values(slot_watermark=bindparam("mark")),
            marks,
        )
    return out


async def freed(conn: AsyncConnection, profile_id: str, at: datetime) -> None:
    """A post of the profile no longer holds the slot at `at`: a watermark at or after it is
    forgotten (the slot may be free again)."""
    await conn.execute(
        update(profiles)
        .where(profiles.c.id == profile_id, profiles.c.slot_watermark >= at.replace(second=0, microsecond=0))
        .values(slot_watermark=None)
    )
