"""Bench: the job claim under a saturated partition's backlog (issue 17).

    .venv/bin/python -m bench.jobs_claim [--backend postgresql|sqlite] [--backlog 20000] [--reps 200]

A slow webhook endpoint ("slow") has --backlog due deliveries and this worker already runs as
many of them as it may; a fast endpoint has a few due ones, as does unpartitioned work. Each
measured claim takes the fast and unpartitioned jobs (and none of the slow one's); they are put
back to queued after it, so every rep claims the same. Two claims are timed in alternation:
- `claim`: core/jobs/queue.claim, each partition's range of ix_jobs_claimable read on its own;
- `global order` (the floor it replaced): every due job ordered by `due_at`, saturated
  partitions filtered out, LIMIT, FOR UPDATE SKIP LOCKED; it walks the whole backlog first.
Prints p50/p99 per claim for each backlog size.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import timedelta

from sqlalchemy import delete, or_, select, update

from bench.load import percentile
from bench.runs import RESULTS, analyze, bench_database, bench_result, write_result
from core import admin
from core.db.engine import create_engine, is_sqlite, transaction
from core.db.models import jobs
from core.db.types import utcnow
from core.jobs import queue
from core.settings import CoreSettings

KIND = "bench.delivery"


async def _global_order(engine, now, limit: int, saturated: list[str]) -> list:
    """The claim as it was: one query over every due job, oldest first, saturated ones filtered."""
    async with transaction(engine, writes=True) as conn:
        stmt = (
            select(jobs.c.id)
            .where(jobs.c.status.in_(queue.CLAIMABLE), jobs.c.kind == KIND, jobs.c.due_at <= now)
            .where(or_(jobs.c.partition.is_(None), jobs.c.partition.not_in(saturated)))
            .order_by(jobs.c.due_at)
            .limit(limit)
        )
        if not is_sqlite(engine):
            stmt = stmt.with_for_update(skip_locked=True)
        rows = (await conn.execute(stmt)).all()
        await conn.execute(
            update(jobs).where(jobs.c.id.in_([r.id for r in rows])).values(status="running", lease_owner="w")
        )
        return rows


async def _reset(engine) -> None:
    async with engine.begin() as conn:
        await conn.execute(
            update(jobs)
            .where(or_(jobs.c.partition.is_(None), jobs.c.partition != "slow"))
            .values(status="queued", lease_owner=None, due_at=utcnow() - timedelta(seconds=1))
        )


async def measure(url: str, backlog: int, reps: int) -> dict[str, dict[str, float]]:
    engine = create_engine(CoreSettings(database_url=url))
    boot = await admin.bootstrap(
        engine, email="claim@example.com", password="a long password", org="claim", credits_=0, plan="active"
    )
    org = boot["org_id"]
    start = utcnow() - timedelta(hours=1)
    async with engine.begin() as conn:
        await conn.execute(delete(jobs).where(jobs.c.kind == KIND))
        for first in range(0, backlog, 5000):
            await queue.enqueue_many(
                conn,
                KIND,
                [(f"s{i}", org, "slow") for i in range(first, min(backlog, first + 5000))],
                start,
                max_attempts=8,
            )
        await queue.enqueue_many(conn, KIND, [(f"f{i}", org, "fast") for i in range(4)], utcnow(), max_attempts=8)
        await queue.enqueue_many(conn, KIND, [(f"u{i}", org, None) for i in range(2)], utcnow(), max_attempts=8)
    analyze(url)
    timings: dict[str, list[float]] = {"claim": [], "global order": []}
    for _ in range(reps):
        for name in timings:
            await _reset(engine)
            now = utcnow()
            began = time.perf_counter()
            if name == "claim":
                got = await queue.claim(
                    engine, [KIND], "w", now, limit=8, lease_seconds=60, partition_limit=8, taken={"slow": 8}
                )
            else:
                got = await _global_order(engine, now, 8, ["slow"])
            timings[name].append((time.perf_counter() - began) * 1000)
            assert len(got) == 6, (name, len(got))  # the fast and unpartitioned ones, none of "slow"
    await engine.dispose()
    out = {}
    for name, values in timings.items():
        values.sort()
        out[name] = {"p50_ms": round(percentile(values, 50), 3), "p99_ms": round(percentile(values, 99), 3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--backlog", type=int, nargs="+", default=[0, 2000, 20000])
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()
    results: dict[int, dict[str, dict[str, float]]] = {}
    out: dict = {}
    for backlog in args.backlog:
        with bench_database(args.backend) as (url, _workdir, _sessions):
            out = out or bench_result("jobs_claim", "bench.jobs_claim", args, url)
            results[backlog] = asyncio.run(measure(url, backlog, args.reps))
        row = results[backlog]
        print(
            f"backlog {backlog:>6}: claim p50 {row['claim']['p50_ms']} ms p99 {row['claim']['p99_ms']} ms · "
            f"global order p50 {row['global order']['p50_ms']} ms p99 {row['global order']['p99_ms']} ms",
            flush=True,
        )
    out["backlog"] = results
    path = write_result("jobs_claim", args.backend, out)
    print(f"wrote {path.relative_to(RESULTS.parent.parent)}")


if __name__ == "__main__":
    main()
