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
from collections import Counter
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

    async def work(self, job: Job) -> Any: ...  # the handler's own outcome

    async def record(self, conn: AsyncConnection, job: Job, outcome: Any, now: datetime) -> None: ...

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
        # How many jobs of one partition may run here at once (a webhook endpoint's deliveries).
        limits = [h.partition_limit for h in handlers if getattr(h, "partition_limit", None)]
        self.partition_limit: int | None = max(limits) if limits else None
        self.worker_id = worker_id
        # Run at the start of each round: they write jobs (webhook fan-out) that the round claims.
        self.feeders = feeders
        # Jobs per partition here (running or waiting for one of its slots; the claim takes no
        # more of a partition than its `partition_limit` allows beside them: a slow endpoint
        # holds that many slots, never all of them), and those slots.
        self.in_flight: Counter[str] = Counter()
        self._slots: dict[str, asyncio.Semaphore] = {}
        # Jobs running now (not those waiting for their partition): the pool's occupancy.
        self.active = 0
        # Set when a job ends or something in this process wrote work (`nudge`): the loop runs a
        # round at once instead of after the poll interval.
        self._wake = asyncio.Event()

    def nudge(self) -> None:
        """Something in this process just wrote work for the loop (a publish outcome's event)."""
        self._wake.set()

    async def _claim(self, room: int) -> tuple[int, list[Job]]:
        """Feeds, then claims up to `room` due jobs (at most a batch): (how much was fed, the jobs)."""
        fed = 0
        for feed in self.feeders:
            fed += await feed()
        if not self.handlers or room <= 0:
            return fed, []
        claimed = await queue.claim(
            self.engine,
            list(self.handlers),
            self.worker_id,
            utcnow(),
            limit=min(room, self.settings.jobs_batch_size),
            lease_seconds=self.settings.jobs_lease_seconds,
            partition_limit=self.partition_limit,
            taken=self.in_flight,
        )
        return fed, claimed

    async def _run_counted(self, job: Job) -> None:
        """Runs the job, within its partition's limit: one claimed while the partition's slots are
        taken (others of it came in the same batch) waits here for a slot, leased, without a
        slot of the pool; its partition is not claimed again meanwhile."""
        limit = None if job.partition is None else getattr(self.handlers[job.kind], "partition_limit", None)
        if limit is None:
            await self._active(job)
            return
        partition = job.partition
        self.in_flight[partition] += 1
        slots = self._slots.setdefault(partition, asyncio.Semaphore(limit))
        try:
            async with slots:
                await self._active(job)
        finally:
            self.in_flight[partition] -= 1
            if self.in_flight[partition] <= 0:
                del self.in_flight[partition]
                self._slots.pop(partition, None)

    async def _active(self, job: Job) -> None:
        self.active += 1
        try:
            await self._run(job)
        finally:
            self.active -= 1

    async def run_due(self) -> int:
        """One round, run to its end: feeds, claims due jobs and runs them; how much it did."""
        fed, claimed = await self._claim(self.settings.jobs_batch_size)
        await asyncio.gather(*(self._run_counted(job) for job in claimed))
        return fed + len(claimed)

    async def run(self, stop: asyncio.Event) -> None:
        """Keeps up to HERALD_JOBS_CONCURRENCY jobs running: a free slot is filled at once, so a
        slow job (a model call, an endpoint that takes its whole deadline) holds only its own
        slot, never the next round. On stop, the running jobs are let finish."""
        running: set[asyncio.Task[None]] = set()
        wake = self._wake

        def done(task: asyncio.Task[None]) -> None:
            running.discard(task)
            wake.set()

        while not stop.is_set():
            wake.clear()
            try:
                fed, claimed = await self._claim(self.settings.jobs_concurrency - self.active)
            except Exception:
                log.exception("job round failed; retrying after the poll interval")
                fed, claimed = 0, []
            for job in claimed:
                task = asyncio.create_task(self._run_counted(job))
                running.add(task)
                task.add_done_callback(done)
            if fed or len(claimed) == self.settings.jobs_batch_size:
                continue  # more may be due at once
            with contextlib.suppress(TimeoutError):
                stopped = asyncio.ensure_future(stop.wait())
                woken = asyncio.ensure_future(wake.wait())
                try:
                    await asyncio.wait(
                        {stopped, woken}, timeout=self.settings.jobs_poll_seconds, return_when="FIRST_COMPLETED"
                    )
                finally:
                    stopped.cancel()
                    woken.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)

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
