"""Time slots in the database: each profile's table (`profiles.slot_table`), and giving posts
their profile's next free slot (docs/posts.md "Time slots").

A slot is taken when a post of the profile that is not a draft, canceled or failed has its
`schedule_at` in that minute. Concurrent `next_slot` requests never take one slot twice: on
PostgreSQL each profile's lock (a transaction-level advisory lock, taken in key order so two
requests cannot deadlock: migration 0019) is taken before the taken slots are read and held
until the posts are inserted in the same transaction; on SQLite the write transaction already
serializes them.

A full queue must not make each request read it all: `profiles.slot_watermark` is a slot given
earlier, every slot before it being taken, so the search starts there and reads only the posts
after it; it is moved forward when a search walked past WATERMARK_STEP taken slots. Whatever
may free a slot at or before the watermark — a canceled or rescheduled post, a new slot table —
forgets it (`freed`, `set_slots`), and the next search reads from now again. (A post only fails
once due, so failing frees no future slot.) A search moves the watermark only if it is still the
one it read: one forgotten meanwhile stays forgotten.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Text, bindparam, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.types import NullType

from core.db.engine import is_sqlite
from core.db.models import posts, profiles
from core.db.prepared import Prepared
from core.db.types import UTCDateTime
from core.errors import NotFound, ValidationError
from core.posts.slot_table import HORIZON, SlotTable, candidates, parse_table

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


@dataclass(frozen=True, slots=True)
class SlotState:
    """A profile's row as next_slot reads it: its table and watermark."""

    id: str
    slug: str
    slot_table: str | None
    slot_watermark: datetime | None


_READ = select(profiles.c.id, profiles.c.slug, profiles.c.slot_table, profiles.c.slot_watermark).where(
    profiles.c.id.in_(bindparam("ids", expanding=True))
)
_TAKEN = select(posts.c.profile_id, posts.c.schedule_at).where(
    posts.c.profile_id.in_(bindparam("ids", expanding=True)),
    posts.c.schedule_at > bindparam("after"),
    posts.c.status.not_in(FREE_STATUSES),
)
# PostgreSQL: the locks and the read in one round trip (migration 0019 has the function), the
# taken slots as minutes since the epoch; run on the driver (core/db/prepared.py). The locks are
# held from here to the commit.
_LOCKED_READ = Prepared(
    text(
        "SELECT profile_id AS id, profile_slug AS slug, table_json AS slot_table, watermark AS slot_watermark, "
        "taken, held FROM herald_slot_state(:ids, :at)"
    ).columns(id=Text, slug=Text, slot_table=Text, slot_watermark=UTCDateTime, taken=NullType, held=NullType)
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Moved only from the watermark the search read (None included): one forgotten meanwhile
# (`freed`, `set_slots`) stays forgotten.
_MARK = (
    update(profiles)
    .where(profiles.c.id == bindparam("profile"), profiles.c.slot_watermark.is_not_distinct_from(bindparam("seen")))
    .values(slot_watermark=bindparam("mark"))
)


async def next_slots(
    conn: AsyncConnection, profile_ids: list[str], now: datetime, *, read: list[SlotState] | None = None
) -> dict[str, datetime]:
    """The next free slot after `now` of each profile, with each profile locked until the
    caller's transaction ends; each profile's watermark moves to the slot it gave when the
    search walked past WATERMARK_STEP. `read`: the rows as this write transaction read them
    already (creation reads them with the profiles). On SQLite the write transaction holds the
    database's write lock from its start, so they are current; on PostgreSQL they are read
    again, once locked, as late as possible: the locks are held until the posts are committed."""
    if is_sqlite(conn.engine):
        states = read or [
            SlotState(r.id, r.slug, r.slot_table, r.slot_watermark)
            for r in await conn.execute(_READ, {"ids": profile_ids})
        ]
        taken: dict[str, set[datetime]] = {s.id: set() for s in states}
        after = min(starts(states, now).values()).replace(second=0, microsecond=0)
        for row in await conn.execute(_TAKEN, {"ids": list(taken), "after": after}):
            taken[row.profile_id].add(row.schedule_at.replace(second=0, microsecond=0))
        held: dict[str, set[datetime]] = {}
    else:
        states, taken, held = await locked_state(conn, profile_ids, now)
    given = await assign(conn, states, starts(states, now), taken, held, now)
    return {profile_id: slots[0] for profile_id, slots in given.items()}


async def locked_state(
    conn: AsyncConnection, profile_ids: list[str], now: datetime
) -> tuple[list[SlotState], dict[str, set[datetime]], dict[str, set[datetime]]]:
    """PostgreSQL: locks the profiles until the transaction ends, then reads their rows (in
    `profile_ids`' order), the minutes their posts take and the minutes held for requests still
    writing theirs (slot_lock_turns), from each profile's start."""
    states, taken, held = [], {}, {}
    for row in await _LOCKED_READ.all(conn, {"ids": profile_ids, "at": now}):
        states.append(SlotState(row.id, row.slug, row.slot_table, row.slot_watermark))
        taken[row.id] = {_EPOCH + timedelta(minutes=minute) for minute in row.taken}
        held[row.id] = {_EPOCH + timedelta(minutes=minute) for minute in row.held}
    order = {profile_id: i for i, profile_id in enumerate(profile_ids)}
    states.sort(key=lambda state: order[state.id])  # the caller's order, for the messages
    return states, taken, held


def starts(states: list[SlotState], now: datetime) -> dict[str, datetime]:
    """Where each profile's search starts: its watermark (every slot before it is taken) or now."""
    return {s.id: max(now, s.slot_watermark) if s.slot_watermark is not None else now for s in states}


def epoch_minute(instant: datetime) -> int:
    """A slot's minute as herald_slot_state counts them (and slot_holds stores them)."""
    return int((instant - _EPOCH).total_seconds()) // 60


async def assign(
    conn: AsyncConnection,
    states: list[SlotState],
    starts: dict[str, datetime],
    taken: dict[str, set[datetime]],
    held: dict[str, set[datetime]],
    now: datetime,
    count: int = 1,
) -> dict[str, list[datetime]]:
    """Up to `count` free slots of each profile, earliest first (at least one, else
    ValidationError): the first for the caller's own posts, the others for the requests it
    takes its turn for (slot_lock_turns), which the caller holds for them. A slot is free when no post
    takes it (`taken`) and no request holds it (`held`).

    The watermark (every slot before it taken by a post) moves only over slots posts take, and
    to the caller's first slot, which its posts take in this transaction; never past a held
    one, whose request may yet die and free it."""
    tables = {s.id: SlotTable.from_json(s.slot_table) for s in states}
    bare = [s.slug for s in states if not tables[s.id] or not tables[s.id].slots]
    if bare:
        raise ValidationError(
            f"{', '.join(map(repr, bare))} has no time slots: set them with PUT /v1/profiles/{{slug}}/slots"
        )
    out: dict[str, list[datetime]] = {}
    marks = []
    for state in states:
        table = tables[state.id]
        assert table is not None
        posted, holding = taken.get(state.id, set()), held.get(state.id, set())
        free: list[datetime] = []
        # The slots posts take before the first held or free one, and the last of them.
        prefix, last_posted, walled = 0, None, False
        for instant in candidates(table, starts[state.id]):
            if instant > now + HORIZON or len(free) == count:
                break
            if instant in posted:
                if not walled and not free:
                    prefix, last_posted = prefix + 1, instant
            elif instant in holding:
                walled = walled or not free
            else:
                free.append(instant)
        if not free:
            raise ValidationError(
                f"profile {state.slug!r}: no free time slot in the next {HORIZON.days} days: every slot is taken"
            )
        out[state.id] = free
        if prefix >= WATERMARK_STEP:  # moved only now and then: one write saved on most requests
            mark = last_posted if walled else free[0]
            marks.append({"profile": state.id, "seen": state.slot_watermark, "mark": mark})
    if marks:
        await conn.execute(_MARK, marks)
    return out


async def freed(conn: AsyncConnection, profile_id: str, at: datetime) -> None:
    """A post of the profile no longer holds the slot at `at`: a watermark at or after it is
    forgotten (the slot may be free again)."""
    await conn.execute(
        update(profiles)
        .where(profiles.c.id == profile_id, profiles.c.slot_watermark >= at.replace(second=0, microsecond=0))
        .values(slot_watermark=None)
    )
