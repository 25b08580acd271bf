"""next_slot requests for the same profiles sharing one turn on their locks (core/posts/slot_lock_turns.py,
PostgreSQL): the requests that arrive while one waits for the locks get the next slots from it, in
the order they came, through holds their own posts replace; a request whose leader gave it nothing
takes its own turn; a held slot is taken until it expires, and housekeeping removes it then."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import func, insert, select, text

from core import admin
from core.db.engine import transaction
from core.db.models import posts, profiles, slot_holds
from core.posts import slot_assignment, slot_lock_turns
from core.posts.create import create_posts
from core.posts.slot_table import DAYS
from core.posts.validation import CreateRequest
from tests.core.module_database import engine, url

__all__ = ["engine", "url"]  # fixtures

pytestmark = pytest.mark.one_backend("postgresql")

HOURLY = [{"day": day, "time": f"{hour:02d}:00"} for day in DAYS for hour in range(24)]
NOW = datetime(2026, 12, 1, 10, 30, tzinfo=UTC)  # the first free slot is 11:00
SLUGS = ["tx", "tm"]


@pytest.fixture(autouse=True)
def _postgresql_only(backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("SQLite serializes the requests in its write transaction: no turns to share")


async def _org(engine, org: str) -> tuple[str, list[str]]:
    """An organization with an X and a Mastodon profile taking a slot every hour (UTC)."""
    boot = await admin.bootstrap(
        engine, email=f"{org}@example.com", password="a long password", org=org, credits_=5, plan="active"
    )
    for slug, platform in zip(SLUGS, ("x", "mastodon"), strict=True):
        await admin.add_profile(engine, org=org, slug=slug, platform=platform, tags=[])
        async with transaction(engine, writes=True) as conn:
            await slot_assignment.set_slots(conn, boot["org_id"], slug, "UTC", HOURLY)
    async with engine.connect() as conn:
        rows = await conn.execute(
            select(profiles.c.id).where(profiles.c.org_id == boot["org_id"]).order_by(profiles.c.slug.desc())
        )
        return boot["org_id"], [r.id for r in rows]


async def _post(engine, org_id: str, content: str) -> dict[str, datetime]:
    """One next_slot request as the gRPC servicer makes it: its transaction ends with its writes."""
    async with transaction(engine, writes=True) as conn:
        outcome = await create_posts(
            conn, org_id, CreateRequest(content, SLUGS, next_slot=True), NOW, ends_transaction=True
        )
    return {r.profile: r.schedule_at for r in outcome.records}


class _Locked:
    """Holds the profiles' next_slot locks from another connection, as a request of another core
    process would, so the requests made meanwhile wait for them."""

    def __init__(self, engine, profile_ids: list[str]) -> None:
        self.engine, self.ids = engine, profile_ids

    async def __aenter__(self) -> _Locked:
        self.conn = await self.engine.connect()
        await self.conn.begin()
        for profile_id in sorted(self.ids):
            await self.conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:id, 0))"), {"id": profile_id})
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.conn.rollback()
        await self.conn.close()


async def _joined(profile_ids: list[str], count: int) -> None:
    """Until `count` requests joined the turn of the request leading for these profiles."""
    key = tuple(sorted(profile_ids))
    for _ in range(1000):
        if key in slot_lock_turns._OPEN and len(slot_lock_turns._OPEN[key].joined) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} requests did not join the leading request's turn within 10 s")


def _turns(kind: str) -> float:
    return REGISTRY.get_sample_value("herald_next_slot_turns_total", {"turn": kind}) or 0.0


async def _holds(engine) -> int:
    async with engine.connect() as conn:
        return await conn.scalar(select(func.count()).select_from(slot_holds))


async def test_requests_arriving_while_one_waits_get_the_next_slots_from_its_turn(engine) -> None:
    org_id, ids = await _org(engine, "turns-shared")
    led, joined = _turns("led"), _turns("joined")
    async with _Locked(engine, ids):
        leader = asyncio.create_task(_post(engine, org_id, "first"))
        await _joined(ids, 0)
        others = []
        for i in range(4):  # one at a time: they join in this order
            others.append(asyncio.create_task(_post(engine, org_id, f"joined {i}")))
            await _joined(ids, i + 1)
    given = [await leader] + [await task for task in others]
    hours = [NOW.replace(minute=0) + timedelta(hours=h) for h in range(1, 6)]
    assert given == [dict.fromkeys(SLUGS, at) for at in hours]  # the leader first, then in joining order
    assert (_turns("led") - led, _turns("joined") - joined) == (1, 4)
    assert await _holds(engine) == 0  # each request's posts replaced its holds
    async with engine.connect() as conn:
        stored = await conn.execute(
            select(posts.c.profile_slug, posts.c.content, posts.c.schedule_at).where(posts.c.org_id == org_id)
        )
    contents = ["first"] + [f"joined {i}" for i in range(4)]
    assert sorted(map(tuple, stored)) == sorted(
        (slug, c, at) for c, at in zip(contents, hours, strict=True) for slug in SLUGS
    )
    # The next request, alone, finds every one of those slots taken.
    assert await _post(engine, org_id, "after") == dict.fromkeys(SLUGS, hours[-1] + timedelta(hours=1))


async def test_a_request_whose_leader_gave_it_nothing_takes_its_own_turn(engine) -> None:
    org_id, ids = await _org(engine, "turns-fallback")
    alone = _turns("alone")
    async with _Locked(engine, ids):
        leader = asyncio.create_task(_post(engine, org_id, "canceled"))
        await _joined(ids, 0)
        follower = asyncio.create_task(_post(engine, org_id, "follower"))
        await _joined(ids, 1)
        leader.cancel()  # its caller went away while it waited for the locks
        with pytest.raises(asyncio.CancelledError):
            await leader
        await asyncio.sleep(0.05)
        assert not follower.done()  # it waits for the locks now, on its own
    eleven = NOW.replace(minute=0) + timedelta(hours=1)
    assert await follower == dict.fromkeys(SLUGS, eleven)  # the canceled request took no slot
    assert _turns("alone") - alone == 1
    async with engine.connect() as conn:
        contents = (await conn.scalars(select(posts.c.content).where(posts.c.org_id == org_id))).all()
    assert sorted(contents) == ["follower", "follower"]
    assert await _holds(engine) == 0


async def test_a_held_slot_is_taken_until_it_expires_and_housekeeping_removes_it(engine) -> None:
    org_id, ids = await _org(engine, "turns-holds")
    eleven = NOW.replace(minute=0) + timedelta(hours=1)
    minute = slot_assignment.epoch_minute(eleven)
    async with transaction(engine, writes=True) as conn:
        await conn.execute(
            insert(slot_holds),
            [  # a request still writing its posts holds 11:00 on tx; one that died held 11:00 on tm
                {
                    "profile_id": ids[0],
                    "minute": minute,
                    "token": "hld_alive",
                    "expires_at": NOW + timedelta(minutes=5),
                },
                {"profile_id": ids[1], "minute": minute, "token": "hld_dead", "expires_at": NOW - timedelta(seconds=1)},
            ],
        )
    assert await _post(engine, org_id, "around the holds") == {"tx": eleven + timedelta(hours=1), "tm": eleven}
    async with transaction(engine, writes=True) as conn:
        assert await slot_lock_turns.purge_expired(conn, NOW) == 1  # the dead request's
    assert await _holds(engine) == 1
    async with transaction(engine, writes=True) as conn:
        assert await slot_lock_turns.purge_expired(conn, NOW + timedelta(minutes=6)) == 1  # the other's, expired
    assert await _holds(engine) == 0
