"""Refreshing tokens ahead of expiry on the workers, through the lease job queue (core/jobs).

`enqueue_expiring` (run by every worker's housekeeping) adds a `refresh_token` job for each
connected profile whose token ends within HERALD_PLATFORM_REFRESH_AHEAD_SECONDS and that has
none pending; the job refreshes it (core/platform_accounts/token_refresh.py serialises refreshes per profile,
so a delivery refreshing at the same moment is no problem). A platform's refusal has already
marked the profile `needs_reauth` when the job gives up; a platform that does not answer is
retried with the queue's backoff.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.connectors.base import DeliveryError, ErrorClass
from core.db.engine import transaction
from core.db.models import jobs, profiles
from core.db.types import utcnow
from core.jobs import queue
from core.jobs.queue import Job
from core.jobs.runner import JobFailure
from core.platform_accounts.token_refresh import TokenKeeper

KIND = "refresh_token"
MAX_ATTEMPTS = 5


async def enqueue_expiring(engine: AsyncEngine, keeper: TokenKeeper, now: datetime) -> int:
    expiring = await keeper.expiring(now)
    if not expiring:
        return 0
    added = 0
    async with transaction(engine, writes=True) as conn:
        pending = set(
            await conn.scalars(
                select(jobs.c.subject_id).where(
                    jobs.c.kind == KIND,
                    jobs.c.status.in_(queue.CLAIMABLE),
                    jobs.c.subject_id.in_([profile_id for profile_id, _, _ in expiring]),
                )
            )
        )
        for profile_id, org_id, _ in expiring:
            if profile_id not in pending:
                await queue.enqueue(conn, KIND, profile_id, org_id, now, max_attempts=MAX_ATTEMPTS)
                added += 1
    return added


class TokenRefreshJobs:
    kind = KIND

    def __init__(self, keeper: TokenKeeper) -> None:
        self.keeper = keeper

    async def work(self, job: Job) -> Any:
        now = utcnow()
        async with transaction(self.keeper.engine) as conn:
            row = (
                await conn.execute(
                    select(profiles.c.token_version, profiles.c.token_expires_at, profiles.c.connection_status).where(
                        profiles.c.id == job.subject_id
                    )
                )
            ).first()
        if row is None or row.connection_status != "connected":
            return "skipped"
        if row.token_expires_at is not None and (row.token_expires_at - now).total_seconds() > (
            self.keeper.settings.platform_refresh_ahead_seconds
        ):
            return "fresh"  # refreshed since the job was queued (by a delivery, or a reconnect)
        try:
            await self.keeper.refresh(job.subject_id, row.token_version)
        except DeliveryError as error:
            retryable = error.error_class is ErrorClass.RETRYABLE
            raise JobFailure(error.code or error.error_class.value, str(error), retryable=retryable) from None
        return "refreshed"

    async def record(self, conn: AsyncConnection, job: Job, outcome: Any, now: datetime) -> None:
        return None

    async def give_up(self, conn: AsyncConnection, job: Job, failure: JobFailure, now: datetime) -> None:
        return None
