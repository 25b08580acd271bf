"""The job runner's pool (core/jobs/runner.py): a slow job holds only its own slot, and a partition
(a webhook endpoint) never runs more than its handler's limit at once on a worker, so one slow
endpoint cannot hold back another's deliveries."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import datetime

from sqlalchemy import select

from core import admin
from core.db.models import jobs
from core.db.types import utcnow
from core.jobs import queue
from core.jobs.queue import Job
from core.jobs.runner import JobFailure, JobRunner
from core.settings import CoreSettings
from tests.core.module_database import engine, url

__all__ = ["engine", "url"]  # fixtures


class Gated:
    """A handler whose jobs of partition "slow" wait for `release`; the others finish at once."""

    kind = "test.gated"
    partition_limit = 2

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.running: Counter[str] = Counter()
        self.most: Counter[str] = Counter()
        self.done: list[str] = []
        self.fast_done = asyncio.Event()
        self.slow_done = asyncio.Event()
        self.fast_total = 0
        self.slow_total = 0

    async def work(self, job: Job) -> str:
        self.running[job.partition or ""] += 1
        self.most[job.partition or ""] = max(self.most[job.partition or ""], self.running[job.partition or ""])
        try:
            if job.partition == "slow":
                await self.release.wait()
            return "ok"
        finally:
            self.running[job.partition or ""] -= 1
            self.done.append(job.partition or "")
            if self.done.count("fast") == self.fast_total:
                self.fast_done.set()
            if self.done.count("slow") == self.slow_total:
                self.slow_done.set()

    async def record(self, conn, job: Job, outcome: str, now: datetime) -> None:
        pass

    async def give_up(self, conn, job: Job, failure: JobFailure, now: datetime) -> None:
        pass


async def test_a_slow_partition_holds_its_limit_and_never_the_others(engine, backend: str) -> None:
    boot = await admin.bootstrap(
        engine, email="r@example.com", password="a long password", org="runner", credits_=0, plan="active"
    )
    handler = Gated()
    handler.fast_total, handler.slow_total = 12, 20
    now = utcnow()
    async with engine.begin() as conn:
        # The slow endpoint's jobs are due first: a runner taking them in order would fill up on them.
        await queue.enqueue_many(
            conn, Gated.kind, [(f"s{i}", boot["org_id"], "slow") for i in range(20)], now, max_attempts=3
        )
        await queue.enqueue_many(
            conn, Gated.kind, [(f"f{i}", boot["org_id"], "fast") for i in range(12)], utcnow(), max_attempts=3
        )
    settings = CoreSettings(database_url="sqlite://", jobs_poll_seconds=0.02, jobs_batch_size=8, jobs_concurrency=8)
    runner = JobRunner(settings, engine, [handler], "worker-t")
    stop = asyncio.Event()
    loop = asyncio.create_task(runner.run(stop))
    try:
        # Every fast job finishes while the slow ones are still held: if slow jobs took every slot,
        # this would never happen.
        await asyncio.wait_for(handler.fast_done.wait(), timeout=20)
        assert handler.running["slow"] == 2 and handler.most["slow"] == 2
        handler.release.set()
        await asyncio.wait_for(handler.slow_done.wait(), timeout=60)
    finally:
        stop.set()
        await asyncio.wait_for(loop, timeout=30)
    assert handler.most["slow"] == 2  # never more than the partition's limit at once
    async with engine.connect() as conn:
        rows = (await conn.execute(select(jobs.c.status, jobs.c.attempts).where(jobs.c.kind == Gated.kind))).all()
    # One claimed while its partition was full waited for a slot, under its lease: each ran once.
    assert Counter((r.status, r.attempts) for r in rows) == Counter({("done", 1): 32})
