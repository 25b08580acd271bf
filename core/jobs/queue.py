"""The lease job queue (DESIGN 12): background work any number of workers share.

A job is a row of `jobs`. Claiming is one transaction: due rows are locked with FOR UPDATE SKIP
LOCKED (PostgreSQL; on SQLite the transaction holds the write lock) and move to `running` under
a lease kept in `due_at`, exactly as the publisher claims posts. A worker that dies leaves its
jobs `running` with a lease that ends; another worker then claims them again. Every outcome is
recorded *fenced* on the lease holder (`status = 'running' AND lease_owner = me`), in the same
transaction as the work's own result, so a job's result is recorded exactly once even when two
workers ran it (the first lease expired while its holder was still working).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.db.engine import is_sqlite, transaction
from core.db.models import jobs
from core.ids import new_id

CLAIMABLE = ("queued", "running")


@dataclass(frozen=True, slots=True)
class Job:
    id: str
    kind: str
    subject_id: str
    org_id: str
    attempts: int  # including this one
    max_attempts: int
    # True when a previous worker's lease ran out: its work may or may not have happened.
    recovered: bool
    # Its partition (a webhook endpoint): the runner bounds how many of one run at once.
    partition: str | None = None


async def enqueue(
    conn: AsyncConnection, kind: str, subject_id: str, org_id: str, now: datetime, *, max_attempts: int
) -> str:
    """Adds a job due now, in the caller's transaction (with the record it works on)."""
    job_id = new_id("job")
    await conn.execute(
        insert(jobs).values(
            id=job_id,
            kind=kind,
            subject_id=subject_id,
            org_id=org_id,
            status="queued",
            due_at=now,
            lease_owner=None,
            attempts=0,
            max_attempts=max_attempts,
            last_error="",
            created_at=now,
            updated_at=now,
            finished_at=None,
        )
    )
    return job_id


async def enqueue_many(
    conn: AsyncConnection,
    kind: str,
    subjects: Sequence[tuple[str, str, str | None]],
    now: datetime,
    *,
    max_attempts: int,
) -> None:
    """A job due now per (subject_id, org_id, partition), in one statement of the caller's
    transaction."""
    rows = [
        {
            "id": new_id("job"),
            "kind": kind,
            "subject_id": subject_id,
            "org_id": org_id,
            "status": "queued",
            "due_at": now,
            "lease_owner": None,
            "attempts": 0,
            "max_attempts": max_attempts,
            "last_error": "",
            "created_at": now,
            "updated_at": now,
            "finished_at": None,
            "partition": partition,
        }
        for subject_id, org_id, partition in subjects
    ]
    if rows:
        await conn.execute(insert(jobs), rows)


async def claim(
    engine: AsyncEngine,
    kinds: Sequence[str],
    worker_id: str,
    now: datetime,
    *,
    limit: int,
    lease_seconds: float,
    saturated: Collection[str] = (),
) -> list[Job]:
    """Up to `limit` due jobs of these kinds, now leased to `worker_id` until now + lease;
    none of the `saturated` partitions (they have as many running here as they may)."""
    async with transaction(engine, writes=True) as conn:
        stmt = (
            select(jobs.c.id, jobs.c.kind, jobs.c.subject_id, jobs.c.org_id, jobs.c.status, jobs.c.attempts)
            .add_columns(jobs.c.max_attempts, jobs.c.partition)
            .where(jobs.c.status.in_(CLAIMABLE), jobs.c.kind.in_(list(kinds)), jobs.c.due_at <= now)
            .order_by(jobs.c.due_at)
            .limit(limit)
        )
        if saturated:
            stmt = stmt.where(or_(jobs.c.partition.is_(None), jobs.c.partition.not_in(list(saturated))))
        if not is_sqlite(engine):
            stmt = stmt.with_for_update(skip_locked=True)
        rows = (await conn.execute(stmt)).all()
        if not rows:
            return []
        await conn.execute(
            update(jobs)
            .where(jobs.c.id.in_([r.id for r in rows]))
            .values(
                status="running",
                lease_owner=worker_id,
                due_at=now + timedelta(seconds=lease_seconds),
                attempts=jobs.c.attempts + 1,
                updated_at=now,
            )
        )
    return [
        Job(
            r.id,
            r.kind,
            r.subject_id,
            r.org_id,
            r.attempts + 1,
            r.max_attempts,
            recovered=r.status == "running",
            partition=r.partition,
        )
        for r in rows
    ]


def fenced(job: Job, worker_id: str):  # noqa: ANN201 - an UPDATE statement
    """An update of the job that applies only while `worker_id` still holds its lease."""
    return update(jobs).where(jobs.c.id == job.id, jobs.c.status == "running", jobs.c.lease_owner == worker_id)


async def finish(
    conn: AsyncConnection, job: Job, worker_id: str, now: datetime, *, failed: bool = False, error: str = ""
) -> bool:
    """Records the end of a job in the caller's transaction (with the work's result); False when
    the lease was lost, and then the caller must not record its result either."""
    result = await conn.execute(
        fenced(job, worker_id).values(
            status="failed" if failed else "done",
            lease_owner=None,
            last_error=error[:2000],
            updated_at=now,
            finished_at=now,
        )
    )
    return bool(result.rowcount)


async def retry_later(engine: AsyncEngine, job: Job, worker_id: str, error: str, at: datetime, now: datetime) -> bool:
    """A transient failure: the job is claimable again at `at` (fenced)."""
    async with transaction(engine, writes=True) as conn:
        result = await conn.execute(
            fenced(job, worker_id).values(
                status="queued", due_at=at, lease_owner=None, last_error=error[:2000], updated_at=now
            )
        )
    return bool(result.rowcount)


def backoff(attempt: int, base: float, cap: float) -> timedelta:
    """base * 2^(attempt-1), at most cap."""
    return timedelta(seconds=min(cap, base * 2 ** max(0, attempt - 1)))
