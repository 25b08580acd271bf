"""Generation runs in the database (`generate_runs`): created with their charge, read back from
any process, completed once (fenced on the job's lease), failed with a refund."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.generate import GenerateRun
from core.credits import service as credits
from core.db.models import generate_runs
from core.errors import NotFound
from core.generate.messages import run_message
from core.generate.outputs import Output
from core.generate.records import RunRecord, output_json, output_of
from core.ids import new_id
from core.jobs import queue
from core.webhooks import fanout

JOB_KIND = "generate_run"


_COLUMNS = (
    generate_runs.c.id,
    generate_runs.c.org_id,
    generate_runs.c.tool,
    generate_runs.c.backend,
    generate_runs.c.status,
    generate_runs.c.input,
    generate_runs.c.output,
    generate_runs.c.error_code,
    generate_runs.c.error_message,
    generate_runs.c.charged,
    generate_runs.c.created_at,
    generate_runs.c.finished_at,
)


def _record(row: Any) -> RunRecord:  # a Row
    return RunRecord(
        row.id,
        row.org_id,
        row.tool,
        row.backend,
        row.status,
        json.loads(row.input),
        output_of(row.output),
        row.error_code,
        row.error_message,
        row.charged,
        row.created_at,
        row.finished_at,
    )


async def create(
    conn: AsyncConnection,
    *,
    org_id: str,
    user_id: str,
    tool: str,
    backend: str,
    request: dict[str, Any],
    cost: int,
    now: datetime,
    output: Output | None = None,
    max_attempts: int = 3,
    low_threshold: int,
) -> tuple[str, int | None]:
    """Creates a run in the caller's transaction: charged first (INSUFFICIENT_CREDITS creates
    nothing), then either ready with its `output` or queued with its job. Returns the run's id
    and the balance after the charge (None when it cost nothing)."""
    run_id = new_id("run")
    balance = None
    if cost:
        balance = await credits.debit(
            conn, org_id, cost, reason="generation", reference=run_id, now=now, low_threshold=low_threshold
        )
    await conn.execute(
        insert(generate_runs).values(
            id=run_id,
            org_id=org_id,
            user_id=user_id,
            tool=tool,
            backend=backend,
            status="ready" if output is not None else "queued",
            input=json.dumps(request, ensure_ascii=False),
            output=output_json(output) if output is not None else None,
            error_code="",
            error_message="",
            charged=cost,
            created_at=now,
            updated_at=now,
            finished_at=now if output is not None else None,
        )
    )
    if output is None:
        await queue.enqueue(conn, JOB_KIND, run_id, org_id, now, max_attempts=max_attempts)
    else:
        await _finished(conn, run_id, now)
    return run_id, balance


async def get(conn: AsyncConnection, org_id: str, run_id: str) -> RunRecord:
    row = (
        await conn.execute(select(*_COLUMNS).where(generate_runs.c.id == run_id, generate_runs.c.org_id == org_id))
    ).first()
    if row is None:
        raise NotFound(f"no run {run_id[:40]!r} in this organization")
    return _record(row)


async def load(conn: AsyncConnection, run_id: str) -> RunRecord:
    """A run by id alone, for the worker holding its job (the job carries the organization)."""
    row = (await conn.execute(select(*_COLUMNS).where(generate_runs.c.id == run_id))).first()
    if row is None:
        raise LookupError(run_id)
    return _record(row)


async def started(conn: AsyncConnection, run_id: str, now: datetime) -> None:
    await conn.execute(
        update(generate_runs)
        .where(generate_runs.c.id == run_id, generate_runs.c.status.in_(("queued", "running")))
        .values(status="running", updated_at=now)
    )


async def complete(conn: AsyncConnection, run_id: str, output: Output, now: datetime) -> None:
    """In the job's fenced transaction: the run's one and only output."""
    result = await conn.execute(
        update(generate_runs)
        .where(generate_runs.c.id == run_id, generate_runs.c.status.in_(("queued", "running")))
        .values(status="ready", output=output_json(output), updated_at=now, finished_at=now)
    )
    if result.rowcount:
        await _finished(conn, run_id, now)


async def fail(conn: AsyncConnection, run: RunRecord, code: str, message: str, now: datetime) -> None:
    """In the job's fenced transaction: the run failed; its charge goes back."""
    result = await conn.execute(
        update(generate_runs)
        .where(generate_runs.c.id == run.id, generate_runs.c.status.in_(("queued", "running")))
        .values(
            status="failed", error_code=code, error_message=message[:2000], charged=0, updated_at=now, finished_at=now
        )
    )
    if result.rowcount and run.charged:
        await credits.grant(conn, run.org_id, run.charged, reason="refund", reference=run.id, now=now)
    if result.rowcount:
        await _finished(conn, run.id, now)


async def _finished(conn: AsyncConnection, run_id: str, now: datetime) -> None:
    """`generate.run.completed` or `generate.run.failed`, with the run as GET renders it."""
    run = await load(conn, run_id)
    kind = "generate.run.completed" if run.status == "ready" else "generate.run.failed"
    await fanout.emit(conn, run.org_id, kind, [GenerateRun.from_proto(run_message(run))], now)
