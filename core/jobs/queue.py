"""The lease job queue: background work any number of workers share
(docs/decisions.md, "Background work shares one lease primitive").

A job is a row of `jobs`. Claiming is one transaction: due rows are locked with FOR UPDATE SKIP
LOCKED (PostgreSQL; on SQLite the transaction holds the write lock) and move to `running` under
a lease kept in `due_at`, exactly as the publisher claims posts. A worker that dies leaves its
jobs `running` with a lease that ends; another worker then claims them again. Every outcome is
recorded *fenced* on the lease holder (`status = 'running' AND lease_owner = me`), in the same
transaction as the work's own result, so a job's result is recorded exactly once even when two
workers ran it (the first lease expired while its holder was still working).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, String, bindparam, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.db.engine import is_sqlite, transaction
from core.db.models import jobs
from core.db.models.writing import CLAIMABLE_SQL
from core.db.types import UTCDateTime
from core.ids import new_id

CLAIMABLE = ("queued", "running")  # CLAIMABLE_SQL's statuses


@dataclass(frozen=True, slots=True)
class Job:
    id: str
    kind: str
    subject_id: str
    org_id: str | None  # None: about no organization (mail to an address)
    attempts: int  # including this one
    max_attempts: int
    # True when a previous worker's lease ran out: its work may or may not have happened.
    recovered: bool
    # Its partition (a webhook endpoint): the runner bounds how many of one run at once.
    partition: str | None = None


async def enqueue(
    conn: AsyncConnection,
    kind: str,
    subject_id: str,
    org_id: str | None,
    now: datetime,
    *,
    max_attempts: int,
    due_at: datetime | None = None,
) -> str:
    """Adds a job due now (or at `due_at`), in the caller's transaction (with the record it
    works on)."""
    job_id = new_id("job")
    await conn.execute(
        insert(jobs).values(
            id=job_id,
            kind=kind,
            subject_id=subject_id,
            org_id=org_id,
            status="queued",
            due_at=due_at or now,
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


# The partitions that have claimable jobs, each with its oldest one's due time: a loose scan of
# ix_jobs_claimable, one index probe per partition however long its backlog. SQLite is told the
# index (with no statistics its planner would take ix_jobs_status_due_at and sort).
_PARTITIONS = """
    WITH RECURSIVE parts(partition) AS (
        SELECT (SELECT partition FROM jobs{hint} WHERE partition IS NOT NULL AND {claimable}
                ORDER BY partition LIMIT 1)
        UNION ALL
        SELECT (SELECT j.partition FROM jobs AS j{hint} WHERE j.partition > parts.partition AND j.{claimable}
                ORDER BY j.partition LIMIT 1)
        FROM parts WHERE parts.partition IS NOT NULL
    ),
    due AS (
        SELECT partition,
               (SELECT j.due_at FROM jobs AS j{hint} WHERE j.partition = parts.partition AND j.{claimable}
                ORDER BY j.due_at LIMIT 1) AS oldest
        FROM parts WHERE partition IS NOT NULL
    )
"""
_SQLITE_PARTITIONS = text(
    _PARTITIONS.format(hint=" INDEXED BY ix_jobs_claimable", claimable=CLAIMABLE_SQL)
    + "SELECT partition, oldest FROM due"
).columns(partition=String, oldest=UTCDateTime)

# PostgreSQL, in one statement: the due partitions with room, the oldest first (at most :limit
# of them), and up to their room of each one's due jobs, oldest first, locked (SKIP LOCKED).
_POSTGRESQL_TAKE = text(
    _PARTITIONS.format(hint="", claimable=CLAIMABLE_SQL)
    + f"""
    , shares AS (
        SELECT due.partition, due.oldest,
               LEAST(:limit, COALESCE(:partition_limit, :limit) - COALESCE(
                   (SELECT t.n FROM unnest(CAST(:taken_p AS varchar[]), CAST(:taken_n AS integer[])) AS t(p, n)
                    WHERE t.p = due.partition), 0)) AS room
        FROM due WHERE due.oldest <= :now
    )
    SELECT j.id, j.kind, j.subject_id, j.org_id, j.status, j.attempts, j.max_attempts, j.partition, j.due_at
    FROM (SELECT * FROM shares WHERE room > 0 ORDER BY oldest LIMIT :limit) AS s
    CROSS JOIN LATERAL (
        SELECT * FROM jobs
        WHERE jobs.partition = s.partition AND jobs.{CLAIMABLE_SQL}
          AND jobs.kind = ANY(CAST(:kinds AS varchar[])) AND jobs.due_at <= :now
        ORDER BY jobs.due_at LIMIT s.room
        FOR UPDATE SKIP LOCKED
    ) AS j
    """
).bindparams(bindparam("now", type_=UTCDateTime))


async def claim(
    engine: AsyncEngine,
    kinds: Sequence[str],
    worker_id: str,
    now: datetime,
    *,
    limit: int,
    lease_seconds: float,
    partition_limit: int | None = None,
    taken: Mapping[str, int] | None = None,
) -> list[Job]:
    """Up to `limit` due jobs of these kinds, oldest first, now leased to `worker_id` until
    now + lease. A partition gives at most `partition_limit` minus what this worker already
    `taken` of it (none when it has as many running here as it may).

    Unpartitioned jobs are one range of ix_jobs_claimable and each partition another, read on
    its own: a slow endpoint's backlog of due deliveries costs the claim one probe, never a walk
    past every row of it (which is what ordering all due jobs by `due_at` did)."""
    taken = taken or {}
    async with transaction(engine, writes=True) as conn:
        rows = await _due(conn, engine, kinds, now, None, limit)
        if is_sqlite(engine):  # one writer at a time: a statement per partition costs no round trip
            for partition, share in await _shares(conn, now, limit, partition_limit, taken):
                rows += await _due(conn, engine, kinds, now, partition, share)
        else:
            rows += (
                await conn.execute(
                    _POSTGRESQL_TAKE,
                    {
                        "now": now,
                        "limit": limit,
                        "partition_limit": partition_limit,
                        "taken_p": list(taken),
                        "taken_n": list(taken.values()),
                        "kinds": list(kinds),
                    },
                )
            ).all()
        rows = sorted(rows, key=lambda r: r.due_at)[:limit]  # those left out are unlocked at commit
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


async def _shares(
    conn: AsyncConnection, now: datetime, limit: int, partition_limit: int | None, taken: Mapping[str, int]
) -> list[tuple[str, int]]:
    """The partitions to claim from, the oldest due first, and how many of each: together at
    most `limit` (SQLite)."""
    due = sorted((row.oldest, row.partition) for row in await conn.execute(_SQLITE_PARTITIONS) if row.oldest <= now)
    shares: list[tuple[str, int]] = []
    left = limit
    for _, partition in due:
        room = left if partition_limit is None else min(left, partition_limit - taken.get(partition, 0))
        if room > 0:
            shares.append((partition, room))
            left -= room
        if left <= 0:
            break
    return shares


async def _due(
    conn: AsyncConnection,
    engine: AsyncEngine,
    kinds: Sequence[str],
    now: datetime,
    partition: str | None,
    limit: int,
) -> list[Row[Any]]:
    """Up to `limit` due jobs of one partition (None: the unpartitioned ones), oldest first, locked."""
    stmt = (
        select(jobs.c.id, jobs.c.kind, jobs.c.subject_id, jobs.c.org_id, jobs.c.status, jobs.c.attempts)
        .add_columns(jobs.c.max_attempts, jobs.c.partition, jobs.c.due_at)
        .where(
            jobs.c.partition.is_(None) if partition is None else jobs.c.partition == partition,
            text(f"jobs.{CLAIMABLE_SQL}"),
            jobs.c.kind.in_(list(kinds)),
            jobs.c.due_at <= now,
        )
        .order_by(jobs.c.due_at)
        .limit(limit)
    )
    if not is_sqlite(engine):
        stmt = stmt.with_for_update(skip_locked=True)
    return list((await conn.execute(stmt)).all())


def fenced(job: Job, worker_id: str):  # an UPDATE statement
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
