"""The `stock_source_run` jobs: a worker finishes a sourcing run whose core did not.

Each run has a job due `HERALD_STOCK_SOURCE_RECOVER_SECONDS` after it started
(core/stock/runs.py). The core that started the run closes the job when it records the outcome;
a job still queued at its due time means that core stopped (or is very slow). The worker then
does the sourcing again from the run's stored request: the same fetches, the same crops, and
the same recording transaction (media, one debit, the run's outcome), which records the run only
while it is still `running`, so the run is recorded and charged once whoever finishes first.
Photos stored by the side that lost are orphans: the storage sweep removes them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.db.engine import transaction
from core.db.models import organizations
from core.errors import DomainError
from core.jobs.queue import Job
from core.jobs.runner import JobFailure
from core.stock import runs
from core.stock.results import Failure
from core.stock.service import StockService

log = logging.getLogger(__name__)

# What a later attempt may fix: a host or the provider was down, slow or limiting.
_TRANSIENT = frozenset({"TIMEOUT", "FETCH_FAILED", "RATE_LIMITED", "PROVIDER_ERROR", "STORAGE_FAILED"})


@dataclass(frozen=True, slots=True)
class _Redone:
    run: runs.RunRow
    source: Any  # StockProvider
    fetched: list[Any]
    failures: list[Failure]


class SourcingJobs:
    kind = runs.JOB_KIND

    def __init__(self, engine: AsyncEngine, stock: StockService) -> None:
        self.engine = engine
        self.stock = stock

    def _tx(self, *, writes: bool = False):  # the stock service's Transaction
        return transaction(self.engine, writes=writes)

    async def work(self, job: Job) -> _Redone | None:
        async with transaction(self.engine) as conn:
            run = await runs.load(conn, job.subject_id)
        if run is None or run.status != "running":
            return None  # its core recorded it
        request = run.request
        if not request.get("source_refs"):
            raise JobFailure("SOURCE_FAILED", "the run has no stored request to do again", retryable=False)
        try:
            source = await self.stock.available(self._tx, run.org_id, request["provider"])
        except DomainError as error:
            raise JobFailure(error.reason, error.message, retryable=False) from None
        log.info("finishing sourcing run %s on this worker (its core did not)", run.id)
        fetched, failures = await self.stock.fetch_all(source, run.org_id, request["source_refs"], request["preset"])
        if not fetched:
            summary = "; ".join(f"{f.source_ref}: {f.code}" for f in failures)
            message = f"none of the {run.requested_count} photo(s) could be saved ({summary}); nothing was charged"
            raise JobFailure("SOURCE_FAILED", message, retryable=any(f.code in _TRANSIENT for f in failures))
        return _Redone(run, source, fetched, failures)

    async def record(self, conn: AsyncConnection, job: Job, outcome: _Redone | None, now: datetime) -> None:
        if outcome is None:
            return
        run, request = outcome.run, outcome.run.request
        current = await runs.load(conn, run.id)
        if current is None or current.status != "running":
            return  # recorded meanwhile by its core; what this attempt stored is swept
        need = len(outcome.fetched) * self.stock.image_cost
        balance = await conn.scalar(select(organizations.c.credit_balance).where(organizations.c.id == run.org_id))
        if balance is None or balance < need:
            message = f"sourcing {len(outcome.fetched)} photo(s) needs {need} credit(s); the balance is {balance}"
            await runs.fail(conn, run.id, "INSUFFICIENT_CREDITS", message, now)
            return
        delivered, _, _ = await self.stock.record(
            conn,
            run.org_id,
            request["provider"],
            request.get("query", ""),
            outcome.fetched,
            outcome.failures,
            now,
            run_id=run.id,
        )
        # Inside the job's transaction: the rare path of a run its core never finished.
        await self.stock.track(outcome.source, request["provider"], delivered)

    async def give_up(self, conn: AsyncConnection, job: Job, failure: JobFailure, now: datetime) -> None:
        try:
            await runs.fail(conn, job.subject_id, failure.code, failure.message, now)
        except runs.RunTaken:
            return
