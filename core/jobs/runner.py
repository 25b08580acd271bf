"""Running leased jobs on the workers: claim due jobs of the kinds this worker has handlers for,
do their work concurrently, and record each outcome fenced on the lease (core/jobs/queue.py).

A handler does its work outside any transaction (`work`: a model call may take minutes) and
records the result inside the fenced transaction (`record`), so a worker that lost its lease
records nothing. A `JobFailure` says whether retrying may help; anything unexpected is retried
too, and once the attempts are spent the handler's `give_up` runs (a refund, a failed status)
in the same transaction that marks the job failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.db.engine import transaction
from core.db.types import utcnow
from core.jobs import queue
from core.jobs.queue import Job
from core.settings import CoreSettings

log = logging.getLogger(__name__)


class JobFailure(Exception):
    """The work failed: `code` is the stable code the subject records; `retryable` whether a
    later attempt may succeed (a timeout, a rate limit) or not (a refusal)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        delay: timedelta | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after
        # The handler's own schedule (webhook deliveries): exactly this, instead of the backoff.
        self.delay = delay


class JobHandler(Protocol):
    kind: str

    async def work(self, job: Job) -> Any: ...  # noqa: ANN401 - the handler's own outcome

    async def record(self, conn: AsyncConnection, job: Job, outcome: Any, now: datetime) -> None: ...  # noqa: ANN401

    async def give_up(self, conn: AsyncConnection, job: Job, failure: JobFailure, now: datetime) -> None: ...


class JobRunner:
    def __init__(
        self,
        settings: CoreSettings,
        engine: AsyncEngine,
        handlers: list[JobHandler],
        worker_id: str,
        *,
        feeders: Sequence[Callable[[], Awaitable[int]]] = (),
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.handlers = {h.kind: h for h in handlers}
        self.worker_id = worker_id
        # Run at the start of each round: they write jobs (webhook fan-out) that the round claims.
        self.feeders = feeders

    async def run_due(self) -> int:
        """One round: feeds, then claims and runs due jobs; returns how much it did."""
        fed = 0
        for feed in self.feeders:
            fed += await feed()
        if not self.handlers:
            return fed
        claimed = await queue.claim(
            self.engine,
            list(self.handlers),
            self.worker_id,
            utcnow(),
            limit=self.settings.jobs_batch_size,
            lease_seconds=self.settings.jobs_lease_seconds,
        )
        await asyncio.gather(*(self._run(job) for job in claimed))
        return fed + len(claimed)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                busy = await self.run_due()
            except Exception:
                log.exception("job round failed; retrying after the poll interval")
                busy = 0
            if not busy:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.settings.jobs_poll_seconds)

    async def _run(self, job: Job) -> None:
        handler = self.handlers[job.kind]
        try:
            outcome = await handler.work(job)
        except JobFailure as failure:
            await self._failed(job, failure)
            return
        except Exception as error:  # a bug or an unexpected answer: retried, then given up
            log.exception("job %s (%s) failed unexpectedly", job.id, job.kind)
            await self._failed(job, JobFailure("INTERNAL", f"{type(error).__name__}", retryable=True))
            return
        now = utcnow()
        async with transaction(self.engine, writes=True) as conn:
            if await queue.finish(conn, job, self.worker_id, now):
                await handler.record(conn, job, outcome, now)
            else:
                log.warning("job %s: lease lost before its result was recorded; another worker has it", job.id)

    async def _failed(self, job: Job, failure: JobFailure) -> None:
        now = utcnow()
        if failure.retryable and job.attempts < job.max_attempts:
            delay = queue.backoff(
                job.attempts, self.settings.jobs_backoff_seconds, self.settings.jobs_backoff_cap_seconds
            )
            if failure.delay is not None:
                delay = failure.delay
            elif failure.retry_after is not None:
                delay = max(
                    delay, delay.__class__(seconds=min(failure.retry_after, self.settings.jobs_backoff_cap_seconds))
                )
            await queue.retry_later(
                self.engine, job, self.worker_id, f"{failure.code}: {failure.message}", now + delay, now
            )
            return
        async with transaction(self.engine, writes=True) as conn:
            if await queue.finish(
                conn, job, self.worker_id, now, failed=True, error=f"{failure.code}: {failure.message}"
            ):
                await self.handlers[job.kind].give_up(conn, job, failure, now)
