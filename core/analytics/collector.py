"""The workers' collection of published posts' metrics (docs/analytics.md, "Collection"): claim
due reads in batches, ask each post's platform about its items in the platform's own batches,
record the snapshots and schedule the next reads (core/analytics/reads.py), and again.

In sandbox mode (HERALD_PUBLISH_MODE=sandbox) the numbers are deterministic and synthetic, made
per connector (core/connectors/sandbox_metrics.py); in live mode each platform is asked through
its connector's `post_metrics`, per profile with its token and paced within the platform's limits
(core/analytics/platform_reads.py). Both go through the same claim, batches and records, and are
recorded as `sandbox` or `platform` readings. Collecting costs no credits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence

from sqlalchemy.ext.asyncio import AsyncEngine

from core.analytics import profile_access, reads
from core.analytics.platform_reads import PlatformReads
from core.analytics.reads import DueRead, Outcome
from core.connectors.base import Connector
from core.connectors.readings import MetricsItem, MetricsReading
from core.connectors.registry import CONNECTORS
from core.connectors.sandbox_metrics import sandbox_post_metrics
from core.db.types import utcnow
from core.settings import CoreSettings

log = logging.getLogger(__name__)


class MetricsCollector:
    def __init__(
        self,
        settings: CoreSettings,
        engine: AsyncEngine,
        worker_id: str,
        connectors: Mapping[str, Connector] = CONNECTORS,
        platform: PlatformReads | None = None,
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.worker_id = worker_id
        self.connectors = connectors
        # Live mode: the platforms' own reading (None: the sandbox's).
        self.platform = platform
        self.offsets = settings.metrics_read_offsets
        self.latency = settings.metrics_sandbox_latency_ms / 1000

    async def collect_due(self) -> int:
        """One round: claims a batch of due reads, reads and records them; how many it claimed."""
        settings = self.settings
        batch = await reads.claim(
            self.engine,
            self.worker_id,
            utcnow(),
            limit=settings.metrics_read_batch_size,
            lease_seconds=settings.metrics_read_lease_seconds,
        )
        if batch.reads:
            live = self.platform is not None
            outcomes = await (self.platform.read(batch.reads) if live else self.read(batch.reads))  # type: ignore[union-attr]
            await reads.record(self.engine, batch, outcomes, utcnow(), self.offsets, sandbox=not live)
            await self._partly_refused(outcomes)
        return len(batch.reads)

    async def _partly_refused(self, outcomes: Sequence[Outcome]) -> None:
        """Profiles some of whose metrics the platform refused while reading the rest (a
        reading's `refused`): each is marked with them, once per claim, and read on."""
        refused = {
            o.read.profile_id: (o.read.tokens, r.refused)
            for o in outcomes
            for r in o.readings.values()
            if r.refused is not None and r.refused.metrics and o.read.profile_id
        }
        for profile_id, (tokens, refusal) in refused.items():
            version = getattr(tokens, "version", None)
            await profile_access.mark_partly_unavailable(
                self.engine, profile_id, version, str(refusal), refusal.metrics
            )
            log.warning("some metrics of profile %s are unavailable: %s", profile_id, refusal)

    async def read(self, due: Sequence[DueRead]) -> list[Outcome]:
        """Every item of every claimed post, asked about in each platform's batches; a call that
        fails fails the posts whose items it carried (they are tried again later)."""
        by_connector: dict[str, list[DueRead]] = defaultdict(list)
        for read in due:
            by_connector[read.connector].append(read)
        readings: dict[tuple[str, int], MetricsReading] = {}
        errors: dict[str, str] = {}
        for key, group in by_connector.items():
            connector = self.connectors[key]
            items = [item for read in group for item in read.items]
            for start in range(0, len(items), connector.metrics_batch_size):
                chunk = items[start : start + connector.metrics_batch_size]
                try:
                    answered = await self._call(connector, chunk)
                except Exception as error:  # a bug: these posts are tried again later
                    log.exception("reading %s metrics failed", key)
                    errors.update({item.post_id: f"{type(error).__name__}: {error}" for item in chunk})
                    continue
                readings.update({(item.post_id, item.part): r for item, r in zip(chunk, answered, strict=True)})
        return [
            Outcome(read, error=errors[read.post_id])
            if read.post_id in errors
            else Outcome(read, {item.part: readings[(read.post_id, item.part)] for item in read.items})
            for read in due
        ]

    async def _call(self, connector: Connector, items: Sequence[MetricsItem]) -> list[MetricsReading]:
        """One metrics call (the sandbox's, after its simulated latency)."""
        if self.latency:
            await asyncio.sleep(self.latency)
        return sandbox_post_metrics(connector, items, utcnow(), self.offsets[-1])

    async def run(self, stop: asyncio.Event) -> None:
        """Claims batch after batch while a whole batch was due, else waits the poll interval."""
        while not stop.is_set():
            try:
                claimed = await self.collect_due()
            except Exception:
                log.exception("collecting metrics failed; retrying after the poll interval")
                claimed = 0
            if claimed == self.settings.metrics_read_batch_size:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.settings.metrics_read_poll_seconds)
        if self.platform is not None:
            await self.platform.close()
