"""Sourcing runs (docs/stock.md, "Runs"): a sourcing that outlasts its call answers `kind: run`
and `get_sourcing_run` (or the MCP tasks extension) reads it here.

The core that started the work finishes it, and a job of the lease queue stands behind it: the
run is created with its request and a `stock_source_run` job due `recover_after` later. When the
core's work ends first, its last transaction records the media, the charge and the run's
outcome together and closes the job. When that core stopped, a worker claims the job and does
the sourcing again from the stored request (core/stock/run_jobs.py). Either way the outcome is
recorded by a conditional update (`status = 'running'`) in the transaction that charges, so a
run is recorded, and charged, once.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import jobs, organizations, sourcing_runs
from core.db.types import utcnow
from core.errors import DomainError, NotFound
from core.ids import new_id
from core.jobs import queue
from core.stock.providers import Attribution, StockPhoto
from core.stock.results import Delivered, Failure, Sourced

log = logging.getLogger(__name__)

Transaction = Callable[..., AbstractAsyncContextManager[AsyncConnection]]
# A run still `running` this long after it started reads as failed (no core and no worker
# finished it: nothing was charged, since the charge is the run's last step).
LIFETIME = timedelta(minutes=15)
JOB_KIND = "stock_source_run"
JOB_ATTEMPTS = 3


class RunTaken(Exception):
    """The run was recorded by someone else (the core's own work, or a worker's): this
    transaction must not record it again."""


@dataclass(frozen=True, slots=True)
class RunRow:
    id: str
    org_id: str
    status: str
    requested_count: int
    request: dict[str, Any]


async def start(
    tx: Transaction, org_id: str, requested: int, now: datetime, request: dict[str, Any], recover_after: timedelta
) -> str:
    """The run, with its request and the job that finishes it if this core does not."""
    run_id = new_id("srn")
    async with tx(writes=True) as conn:
        await conn.execute(
            insert(sourcing_runs).values(
                id=run_id,
                org_id=org_id,
                status="running",
                requested_count=requested,
                request=json.dumps(request, separators=(",", ":")),
                result="",
                error_code="",
                error_message="",
                created_at=now,
                expires_at=now + LIFETIME,
                finished_at=None,
            )
        )
        await queue.enqueue(conn, JOB_KIND, run_id, org_id, now, max_attempts=JOB_ATTEMPTS, due_at=now + recover_after)
    return run_id


async def load(conn: AsyncConnection, run_id: str) -> RunRow | None:
    row = (
        await conn.execute(
            select(
                sourcing_runs.c.id,
                sourcing_runs.c.org_id,
                sourcing_runs.c.status,
                sourcing_runs.c.requested_count,
                sourcing_runs.c.request,
            ).where(sourcing_runs.c.id == run_id)
        )
    ).first()
    if row is None:
        return None
    return RunRow(row.id, row.org_id, row.status, row.requested_count, json.loads(row.request or "{}"))


async def complete(
    conn: AsyncConnection, run_id: str, delivered: list[Delivered], failures: list[Failure], now: datetime
) -> None:
    """In the transaction that charges: the run's one outcome (RunTaken when it has one)."""
    outcome = json.dumps(_outcome(delivered, failures), separators=(",", ":"))
    await _settle(conn, run_id, now, status="ready", result=outcome)


async def fail(conn: AsyncConnection, run_id: str, code: str, message: str, now: datetime) -> None:
    await _settle(conn, run_id, now, status="failed", error_code=code, error_message=message[:2000])


async def _settle(conn: AsyncConnection, run_id: str, now: datetime, **values: str) -> None:
    result = await conn.execute(
        update(sourcing_runs)
        .where(sourcing_runs.c.id == run_id, sourcing_runs.c.status == "running")
        .values(finished_at=now, **values)
    )
    if not result.rowcount:
        raise RunTaken(run_id)
    # The job standing behind the run has nothing left to do (a worker holding it finds the run
    # settled and ends it).
    await conn.execute(
        update(jobs)
        .where(jobs.c.kind == JOB_KIND, jobs.c.subject_id == run_id, jobs.c.status == "queued")
        .values(status="done", updated_at=now, finished_at=now)
    )


async def follow(tx: Transaction, run_id: str, work: asyncio.Future[Sourced]) -> None:
    """The core's side: the work records a success itself (with the charge); a refusal is
    recorded here; anything unexpected leaves the run to its job."""
    try:
        await work
    except RunTaken:
        return  # a worker recorded it first
    except DomainError as error:
        try:
            async with tx(writes=True) as conn:
                await fail(conn, run_id, error.reason, error.message, utcnow())
        except RunTaken:
            return
        except Exception:
            log.exception("could not record the end of sourcing run %s; its job will", run_id)
    except Exception:
        log.exception("sourcing run %s failed unexpectedly; its job will do it again", run_id)


async def read(tx: Transaction, org_id: str, run_id: str, now: datetime) -> Sourced:
    async with tx() as conn:
        row = (
            await conn.execute(
                select(sourcing_runs).where(sourcing_runs.c.id == run_id, sourcing_runs.c.org_id == org_id)
            )
        ).first()
        balance = await conn.scalar(select(organizations.c.credit_balance).where(organizations.c.id == org_id))
    if row is None:
        raise NotFound(f"no sourcing run {run_id[:40]!r} in this organization")
    if row.status == "running" and row.expires_at <= now:
        message = "the sourcing was interrupted before it finished; nothing was charged"
        return Sourced(row.requested_count, [], [], balance, run_id, "failed", ("SOURCE_FAILED", message))
    if row.status == "failed":
        return Sourced(row.requested_count, [], [], balance, run_id, "failed", (row.error_code, row.error_message))
    if row.status == "running":
        return Sourced(row.requested_count, [], [], balance, run_id, "running")
    delivered, failures = _from_outcome(json.loads(row.result))
    return Sourced(row.requested_count, delivered, failures, balance, run_id, "ready")


def _outcome(delivered: list[Delivered], failures: list[Failure]) -> dict[str, list[dict[str, object]]]:
    return {
        "delivered": [
            {
                "media_id": d.media_id,
                "source_ref": d.photo.source_ref,
                "provider": d.photo.provider,
                "alt_text": d.photo.alt_text,
                "attribution": asdict(d.photo.attribution) if d.photo.attribution else None,
            }
            for d in delivered
        ],
        "failures": [asdict(f) for f in failures],
    }


def _from_outcome(outcome: dict) -> tuple[list[Delivered], list[Failure]]:
    delivered = [
        Delivered(
            d["media_id"],
            StockPhoto(
                d["source_ref"],
                d["provider"],
                "",
                "image/jpeg",
                0,
                0,
                d["alt_text"],
                Attribution(**d["attribution"]) if d["attribution"] else None,
            ),
        )
        for d in outcome["delivered"]
    ]
    return delivered, [Failure(**f) for f in outcome["failures"]]
