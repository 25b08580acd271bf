"""The lease queue's claim (core/jobs/queue.py) over partitions: oldest due first across the
unpartitioned jobs and every partition, a partition gives no more than its limit minus what the
worker already holds of it, and jobs not yet due or leased to a live worker stay where they are."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from sqlalchemy import delete, update

from core import admin
from core.db.models import jobs
from core.db.types import utcnow
from core.jobs import queue
from tests.core.module_database import engine, url

__all__ = ["engine", "url"]  # fixtures

KIND = "test.claim"


async def _org(engine, email: str) -> str:
    boot = await admin.bootstrap(
        engine, email=email, password="a long password", org=email.split("@")[0], credits_=0, plan="active"
    )
    return boot["org_id"]


async def test_claims_oldest_first_within_each_partitions_room(engine) -> None:
    org = await _org(engine, "claim@example.com")
    now = utcnow()
    async with engine.begin() as conn:
        await conn.execute(delete(jobs).where(jobs.c.kind == KIND))
        # A long backlog of endpoint "slow", due first; then "fast", unpartitioned work, and "later".
        await queue.enqueue_many(
            conn, KIND, [(f"s{i}", org, "slow") for i in range(300)], now - timedelta(minutes=5), max_attempts=3
        )
        await queue.enqueue_many(
            conn, KIND, [(f"f{i}", org, "fast") for i in range(4)], now - timedelta(minutes=2), max_attempts=3
        )
        await queue.enqueue_many(
            conn, KIND, [(f"u{i}", org, None) for i in range(3)], now - timedelta(minutes=1), max_attempts=3
        )
        await queue.enqueue_many(
            conn, KIND, [(f"l{i}", org, "later") for i in range(5)], now + timedelta(minutes=1), max_attempts=3
        )

    # This worker already runs 2 of "slow" (its limit): none of its 300 due jobs is taken.
    claimed = await queue.claim(
        engine, [KIND], "w1", now, limit=8, lease_seconds=60, partition_limit=2, taken={"slow": 2}
    )
    assert [j.subject_id for j in claimed] == ["f0", "f1", "u0", "u1", "u2"]  # oldest first
    assert Counter(j.partition for j in claimed) == Counter({"fast": 2, None: 3})  # "fast" gives its limit, no more
    assert all(j.attempts == 1 and not j.recovered for j in claimed)

    # With room in "slow", the oldest due jobs come first, across partitions, up to the limit.
    again = await queue.claim(
        engine, [KIND], "w1", now, limit=3, lease_seconds=60, partition_limit=2, taken={"fast": 2}
    )
    assert Counter(j.partition for j in again) == Counter({"slow": 2})  # "fast" is full; no other is due

    # Nothing leased or not yet due is claimed: "later" is in the future, the rest are leased.
    rest = await queue.claim(engine, [KIND], "w2", now, limit=100, lease_seconds=60, partition_limit=2, taken={})
    assert Counter(j.partition for j in rest) == Counter({"slow": 2, "fast": 2})
    assert all(j.subject_id not in {c.subject_id for c in claimed + again} for j in rest)


async def test_a_lapsed_lease_is_claimed_again_as_recovered(engine) -> None:
    org = await _org(engine, "lapsed@example.com")
    now = utcnow()
    async with engine.begin() as conn:
        await conn.execute(delete(jobs).where(jobs.c.kind == KIND))
        await queue.enqueue_many(conn, KIND, [("a", org, "p"), ("b", org, None)], now, max_attempts=3)
    first = await queue.claim(engine, [KIND], "w1", now, limit=10, lease_seconds=30, partition_limit=8)
    assert {j.subject_id for j in first} == {"a", "b"}
    assert await queue.claim(engine, [KIND], "w2", now + timedelta(seconds=10), limit=10, lease_seconds=30) == []
    later = await queue.claim(engine, [KIND], "w2", now + timedelta(seconds=31), limit=10, lease_seconds=30)
    assert {(j.subject_id, j.attempts, j.recovered) for j in later} == {("a", 2, True), ("b", 2, True)}
    # The first holder's result is fenced out: its lease is gone.
    async with engine.begin() as conn:
        assert not await queue.finish(conn, first[0], "w1", now)


async def test_other_kinds_and_finished_jobs_are_never_claimed(engine) -> None:
    org = await _org(engine, "kinds@example.com")
    now = utcnow()
    async with engine.begin() as conn:
        await conn.execute(delete(jobs).where(jobs.c.kind.in_([KIND, "test.other"])))
        await queue.enqueue_many(conn, "test.other", [("o", org, "p")], now, max_attempts=3)
        await queue.enqueue_many(conn, KIND, [("d", org, "p"), ("x", org, "p")], now, max_attempts=3)
        await conn.execute(update(jobs).where(jobs.c.subject_id == "d").values(status="done"))
    claimed = await queue.claim(engine, [KIND], "w1", now, limit=10, lease_seconds=30, partition_limit=8)
    assert [j.subject_id for j in claimed] == ["x"]
