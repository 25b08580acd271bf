"""The workers' collection of each profile's followers (docs/analytics.md, "Account metrics"):
enrol profiles that have no series yet, claim due account reads in batches, read each, record
the readings and the next day's reads (core/analytics/account_reads.py), and again.

In sandbox mode (HERALD_PUBLISH_MODE=sandbox) the followers are deterministic and synthetic per
profile and day (core/connectors/sandbox_followers.py); in live mode each profile's platform is
asked through its connector's `account_metrics(account, api)` with the profile's token
(core/analytics/account_platform_reads.py). Both go through the same claim and records, as
`sandbox` or platform readings. A read that fails is tried again later; reading costs no credits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from core.analytics import account_reads
from core.analytics.account_platform_reads import AccountPlatformReads
from core.analytics.account_reads import AccountOutcome, DueAccount
from core.connectors.sandbox_followers import sandbox_account_metrics
from core.db.types import utcnow
from core.settings import CoreSettings

log = logging.getLogger(__name__)


class AccountCollector:
    def __init__(
        self, settings: CoreSettings, engine: AsyncEngine, worker_id: str, platform: AccountPlatformReads | None = None
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.worker_id = worker_id
        # Live mode: the platforms' own reading (None: the sandbox's).
        self.platform = platform
        self.interval = timedelta(seconds=settings.account_metrics_interval_seconds)
        self.latency = settings.metrics_sandbox_latency_ms / 1000

    async def collect_due(self) -> int:
        """One round: enrols new profiles, claims a batch of due reads, reads and records them;
        how many it claimed."""
        settings = self.settings
        await account_reads.enrol(self.engine, utcnow())
        batch = await account_reads.claim(
            self.engine,
            self.worker_id,
            utcnow(),
            limit=settings.account_metrics_batch_size,
            lease_seconds=settings.metrics_read_lease_seconds,
        )
        if batch.due:
            live = self.platform is not None
            outcomes = await (self.platform.read(batch.due) if live else self.read(batch.due))  # type: ignore[union-attr]
            await account_reads.record(self.engine, batch, outcomes, utcnow(), self.interval, sandbox=not live)
        return len(batch.due)

    async def read(self, due: Sequence[DueAccount]) -> list[AccountOutcome]:
        """Each account's followers: one call a profile (the platforms have no batch for it)."""
        if self.latency:  # the sandbox's calls, as one platform call's wait
            await asyncio.sleep(self.latency)
        now = utcnow()
        return [AccountOutcome(d, sandbox_account_metrics(d.profile_id, d.created_at, now)) for d in due]

    async def run(self, stop: asyncio.Event) -> None:
        """Claims batch after batch while a whole batch was due, else waits the poll interval."""
        while not stop.is_set():
            try:
                claimed = await self.collect_due()
            except Exception:
                log.exception("collecting account metrics failed; retrying after the poll interval")
                claimed = 0
            if claimed == self.settings.account_metrics_batch_size:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.settings.account_metrics_poll_seconds)
