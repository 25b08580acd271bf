"""Collecting metrics with `herald worker` processes on one database (docs/analytics.md,
"Collection"): a worker SIGKILLed with a batch of reads claimed and not recorded loses no
snapshot and makes none twice; another worker takes the batch over when its lease ends. A bad
HERALD_METRICS_SCHEDULE stops a worker at start."""

from __future__ import annotations

import asyncio
import subprocess
import sys

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import create_async_engine

from core.db.models import post_metric_series, post_metric_snapshots, posts
from harness.stack import ROOT, database, stack_env
from tests.core.test_publisher_workers import kill_when, seed, start_worker, stop, wait_until

POSTS = 200


async def counts(url: str) -> dict[str, int]:
    engine = create_async_engine(url)
    series, snapshots = post_metric_series.c, post_metric_snapshots.c
    try:
        async with engine.connect() as conn:
            per_series = select(snapshots.series_id, func.count().label("n")).group_by(snapshots.series_id).subquery()
            return {
                "published": await conn.scalar(select(func.count()).where(posts.c.status == "published")),
                "series": await conn.scalar(select(func.count()).select_from(post_metric_series)),
                "leased": await conn.scalar(select(func.count()).where(series.lease_owner.is_not(None))),
                "due": await conn.scalar(select(func.count()).where(series.due_at.is_not(None))),
                "snapshots": await conn.scalar(select(func.count()).select_from(post_metric_snapshots)),
                "read": await conn.scalar(select(func.count()).select_from(per_series)),
                "twice": await conn.scalar(select(func.count()).select_from(per_series).where(per_series.c.n > 1)),
                "read_at_step": await conn.scalar(
                    select(func.count()).where(series.step == 1, series.read_at.is_not(None))
                ),
            }
    finally:
        await engine.dispose()


def test_sigkill_mid_batch_no_snapshot_lost_or_doubled(backend, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        asyncio.run(seed(url, POSTS, credits=1000))
        env = stack_env(
            url,
            tmp_path,
            HERALD_PUBLISH_POLL_SECONDS="0.05",
            HERALD_METRICS_SCHEDULE="1s",  # one read each, a second after publishing
            HERALD_METRICS_READ_POLL_SECONDS="0.05",
            HERALD_METRICS_READ_BATCH_SIZE="20",
            HERALD_METRICS_READ_LEASE_SECONDS="2",
            # Each metrics call takes 300 ms, like a platform's: a batch (four platforms, a call
            # each) spends most of its time claimed but not recorded, the window the kill must hit.
            HERALD_METRICS_SANDBOX_LATENCY_MS="300",
        )
        first = start_worker(env, tmp_path / "first.log")
        second = None
        try:

            def mid_batch() -> bool:
                now = asyncio.run(counts(url))
                return now["snapshots"] >= 40 and now["leased"] > 0

            kill_when(first, mid_batch, 120, "40 snapshots and a batch of reads claimed")
            at_kill = asyncio.run(counts(url))
            assert at_kill["leased"] > 0 and at_kill["snapshots"] < POSTS, at_kill
            second = start_worker(env, tmp_path / "second.log")

            def all_read() -> bool:
                now = asyncio.run(counts(url))
                return now["published"] == now["series"] == POSTS and now["due"] == 0

            wait_until(all_read, 120, "every post published and read", every=0.5)
        finally:
            stop([w for w in (first, second) if w is not None])
        result = asyncio.run(counts(url))
    # Every post read once: one snapshot each (single posts: no thread items), none twice.
    assert result["snapshots"] == result["read"] == POSTS, result
    assert result["twice"] == 0 and result["leased"] == 0
    assert result["read_at_step"] == POSTS  # each one's schedule done, its read recorded


def test_a_bad_schedule_stops_the_worker_at_start(tmp_path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'unused.db'}"
    for bad in ("1h,30m", "soon", "0s", ""):
        env = stack_env(url, tmp_path, HERALD_METRICS_SCHEDULE=bad)
        done = subprocess.run(
            [sys.executable, "-m", "core", "worker"], env=env, cwd=ROOT, capture_output=True, timeout=60
        )
        assert done.returncode != 0, bad
        assert b"HERALD_METRICS_SCHEDULE" in done.stderr + done.stdout, (bad, done.stderr[-2000:])
