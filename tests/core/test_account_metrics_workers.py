"""Collecting followers with `herald worker` processes on one database (docs/analytics.md,
"Account metrics"): a worker SIGKILLed with a batch of account reads claimed and not recorded
loses no reading and makes none twice; another worker takes the batch over when its lease ends."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from core.db.models import account_metric_series, account_metric_snapshots
from harness.stack import database, stack_env
from tests.core.test_publisher_workers import kill_when, start_worker, stop, wait_until

PROFILES = 120


async def seed(url: str) -> None:
    engine = create_async_engine(url)
    try:
        await admin.bootstrap(
            engine, email="a@example.com", password="a long password", org="audience", credits_=0, plan="active"
        )
        for i in range(PROFILES):
            await admin.add_profile(engine, org="audience", slug=f"p-{i}", platform="x", tags=[])
    finally:
        await engine.dispose()


async def counts(url: str) -> dict[str, int]:
    engine = create_async_engine(url)
    series, snapshots = account_metric_series.c, account_metric_snapshots.c
    try:
        async with engine.connect() as conn:
            per_profile = (
                select(snapshots.profile_id, func.count().label("n")).group_by(snapshots.profile_id).subquery()
            )
            return {
                "series": await conn.scalar(select(func.count()).select_from(account_metric_series)),
                "leased": await conn.scalar(select(func.count()).where(series.lease_owner.is_not(None))),
                "read": await conn.scalar(select(func.count()).where(series.read_at.is_not(None))),
                "snapshots": await conn.scalar(select(func.count()).select_from(account_metric_snapshots)),
                "profiles_read": await conn.scalar(select(func.count()).select_from(per_profile)),
                "twice": await conn.scalar(select(func.count()).select_from(per_profile).where(per_profile.c.n > 1)),
            }
    finally:
        await engine.dispose()


def test_sigkill_mid_batch_no_reading_lost_or_doubled(backend, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        asyncio.run(seed(url))
        env = stack_env(
            url,
            tmp_path,
            HERALD_ACCOUNT_METRICS_POLL_SECONDS="0.05",
            HERALD_ACCOUNT_METRICS_BATCH_SIZE="20",
            HERALD_METRICS_READ_LEASE_SECONDS="2",
            # Each batch waits 300 ms, as a platform's calls would: the window the kill must hit.
            HERALD_METRICS_SANDBOX_LATENCY_MS="300",
        )
        first = start_worker(env, tmp_path / "first.log")
        second = None
        try:

            def mid_batch() -> bool:
                now = asyncio.run(counts(url))
                return now["snapshots"] >= 20 and now["leased"] > 0

            kill_when(first, mid_batch, 120, "20 readings and a batch of account reads claimed")
            at_kill = asyncio.run(counts(url))
            assert at_kill["leased"] > 0 and at_kill["snapshots"] < PROFILES, at_kill
            second = start_worker(env, tmp_path / "second.log")

            def all_read() -> bool:
                now = asyncio.run(counts(url))
                return now["read"] == PROFILES and now["leased"] == 0

            wait_until(all_read, 120, "every profile's followers read", every=0.5)
        finally:
            stop([w for w in (first, second) if w is not None])
        result = asyncio.run(counts(url))
    # Every profile read once (the next read is a day away), none twice.
    assert result["series"] == result["snapshots"] == result["profiles_read"] == PROFILES, result
    assert result["twice"] == 0
