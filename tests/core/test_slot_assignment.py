"""next_slot's watermark (core/posts/slot_assignment.py), on both databases: it moves past a run of
taken slots, the searches after it still give the next free slot, a canceled post forgets it
so its slot is given again, a search never moves a watermark that was forgotten while it ran,
and never past a slot held for a request still writing its posts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update

from core import admin
from core.db.engine import transaction
from core.db.models import profiles
from core.posts import service, slot_assignment
from core.posts.create import create_posts
from core.posts.slot_table import DAYS
from core.posts.validation import CreateRequest
from tests.core.module_database import engine, url

__all__ = ["engine", "url"]  # fixtures

DAILY_NINE = [{"day": day, "time": "09:00"} for day in DAYS]


async def _profile(engine, org: str) -> tuple[str, str]:
    """An organization with one X profile whose only slot is 09:00 UTC every day."""
    boot = await admin.bootstrap(
        engine, email=f"{org}@example.com", password="a long password", org=org, credits_=5, plan="active"
    )
    await admin.add_profile(engine, org=org, slug="px", platform="x", tags=[])
    async with transaction(engine, writes=True) as conn:
        await slot_assignment.set_slots(conn, boot["org_id"], "px", "UTC", DAILY_NINE)
    return boot["org_id"], "px"


async def _next(engine, org_id: str, now: datetime) -> tuple[str, datetime]:
    async with transaction(engine, writes=True) as conn:
        outcome = await create_posts(conn, org_id, CreateRequest("queued", ["px"], next_slot=True), now)
    return outcome.records[0].id, outcome.records[0].schedule_at


async def _watermark(engine, org_id: str) -> datetime | None:
    async with engine.connect() as conn:
        return await conn.scalar(
            select(profiles.c.slot_watermark).where(profiles.c.org_id == org_id, profiles.c.slug == "px")
        )


async def _state(conn, org_id: str) -> slot_assignment.SlotState:
    """The organization's one profile as a search reads it."""
    row = (
        await conn.execute(
            select(profiles.c.id, profiles.c.slug, profiles.c.slot_table, profiles.c.slot_watermark).where(
                profiles.c.org_id == org_id
            )
        )
    ).one()
    return slot_assignment.SlotState(row.id, row.slug, row.slot_table, row.slot_watermark)


async def test_the_watermark_moves_past_taken_slots_and_a_canceled_post_frees_its_slot(engine) -> None:
    org_id, _ = await _profile(engine, "slotting-mark")
    now = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)  # past today's 09:00: the first slot is tomorrow's
    nine = [datetime(2026, 12, 2 + i, 9, 0, tzinfo=UTC) for i in range(30)]
    given = [await _next(engine, org_id, now) for _ in range(slot_assignment.WATERMARK_STEP)]
    assert [at for _, at in given] == nine[: slot_assignment.WATERMARK_STEP]
    assert await _watermark(engine, org_id) is None  # no search walked past WATERMARK_STEP yet
    # The next search walks past WATERMARK_STEP taken slots: the watermark moves to what it gave.
    post_id, at = await _next(engine, org_id, now)
    assert at == nine[slot_assignment.WATERMARK_STEP]
    assert await _watermark(engine, org_id) == at
    # Searches from the watermark still give the next free slot, one each.
    after = [await _next(engine, org_id, now) for _ in range(3)]
    assert [at for _, at in after] == nine[slot_assignment.WATERMARK_STEP + 1 : slot_assignment.WATERMARK_STEP + 4]
    # Canceling a post before the watermark forgets it: its slot is the next one given.
    async with transaction(engine, writes=True) as conn:
        await service.cancel_post(conn, org_id, given[4][0], now)
    assert await _watermark(engine, org_id) is None
    assert (await _next(engine, org_id, now))[1] == nine[4]
    assert (await _next(engine, org_id, now))[1] == nine[slot_assignment.WATERMARK_STEP + 4]
    assert post_id  # the post that moved the watermark stays where it was given


async def test_a_search_does_not_move_a_watermark_forgotten_while_it_ran(engine) -> None:
    org_id, _ = await _profile(engine, "slotting-race")
    now = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    for _ in range(slot_assignment.WATERMARK_STEP + 1):
        await _next(engine, org_id, now)
    mark = await _watermark(engine, org_id)
    assert mark is not None
    async with transaction(engine, writes=True) as conn:
        state = await _state(conn, org_id)
        # The search read the watermark; then a cancel (or a new table) forgot it, and committed.
        await conn.execute(update(profiles).where(profiles.c.id == state.id).values(slot_watermark=None))
        taken = {state.id: {mark - timedelta(days=d) for d in range(slot_assignment.WATERMARK_STEP + 1)}}
        start = {state.id: now}
        out = await slot_assignment.assign(conn, [state], start, taken, {}, now)
    assert out[state.id] == [mark + timedelta(days=1)]  # it walked past WATERMARK_STEP taken slots
    assert await _watermark(engine, org_id) is None  # and left the forgotten watermark forgotten


async def test_the_watermark_stops_before_a_held_slot(engine) -> None:
    """A slot held for a request still writing its posts (core/posts/slot_lock_turns.py) may be freed
    if that request dies: the watermark moves over the slots posts take before it, not past it."""
    org_id, _ = await _profile(engine, "slotting-held")
    now = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    nine = [datetime(2026, 12, 2 + i, 9, 0, tzinfo=UTC) for i in range(30)]
    async with transaction(engine, writes=True) as conn:
        state = await _state(conn, org_id)
        taken = {state.id: set(nine[:20]) - {nine[18]}}  # 18 taken, one held, one more taken
        held = {state.id: {nine[18]}}
        out = await slot_assignment.assign(conn, [state], {state.id: now}, taken, held, now, count=3)
    assert out[state.id] == nine[20:23]  # the first free slots, for the request and two that joined it
    assert await _watermark(engine, org_id) == nine[17]
