"""Reading the platforms' own metrics (HERALD_PUBLISH_MODE=live; docs/analytics.md, "Collection"
and "Each platform"): a claimed batch of due reads, grouped per profile (a token is per account),
each profile's items sent to its connector's `post_metrics` in the platform's batches through the
live API (core/connectors/live.py), with the profile's token: its refresh, the outbound guard and
the connector's error classes apply as when publishing.

Pacing, within each platform's limits, as publishing paces (core/connectors/live.py reads
`Retry-After` and the rate headers into `throttled_until`):

- one profile's calls go one after the other, so the remaining count the platform answers is
  never raced by this worker; profiles are read side by side (core/analytics/live_reads.py,
  PROFILES_AT_ONCE, with what else both live readers share);
- an answer whose window is spent (remaining 0) or a 429 stops the profile's calls: what it had
  left waits, due again when the platform said (nothing counted against the read), and the
  profile remembers it (`profiles.metrics_throttled_until`), so every worker's next claim of its
  reads waits without a call; for a platform read without a token (its limits are the app's),
  the platform remembers it, in this worker;
- a missing permission (a 403, a refused scope) or a dead token (a refresh that failed for good)
  marks the profile's metrics unavailable with what to do (core/analytics/profile_access.py):
  its reads are passed over, the schedule goes on, until the account is connected again. Other
  profiles' reads are not touched.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from core.analytics import profile_access
from core.analytics.live_reads import LiveReader, side_by_side, wait_until
from core.analytics.profile_access import Access
from core.analytics.reads import DueRead, Outcome
from core.connectors.base import Connector, DeliveryError, ErrorClass
from core.connectors.live import LiveAPI
from core.connectors.readings import MetricsReading, MetricsUnavailable
from core.connectors.transport import PlatformEndpoints
from core.db.types import utcnow
from core.platform_accounts.token_refresh import NeedsReauth, TokenKeeper
from core.settings import CoreSettings

log = logging.getLogger(__name__)

# A platform whose reading is not written yet: its posts' reads wait this long, nothing lost.
NOT_READ_YET_WAIT = timedelta(hours=1)


class PlatformReads(LiveReader):
    def __init__(
        self,
        settings: CoreSettings,
        engine: AsyncEngine,
        keeper: TokenKeeper,
        endpoints: PlatformEndpoints,
        connectors: Mapping[str, Connector],
    ) -> None:
        super().__init__(settings, keeper, endpoints, connectors)
        self.engine = engine
        # Platforms read without a token (their limits are the app's): until when they said to wait.
        self.app_throttled_until: dict[str, datetime] = {}

    async def read(self, due: Sequence[DueRead]) -> list[Outcome]:
        """An outcome per claimed read, in order."""
        by_profile: dict[str, list[DueRead]] = defaultdict(list)
        for read in due:
            by_profile[read.profile_id].append(read)
        access = await profile_access.load(self.engine, list(by_profile))

        async def one(reads: list[DueRead]) -> list[Outcome]:
            profile_id = reads[0].profile_id
            try:
                return await self._profile(reads, access.get(profile_id, Access()))
            except Exception as error:  # a bug: these posts are tried again later
                log.exception("reading metrics of profile %s failed", profile_id)
                return [Outcome(r, error=f"{type(error).__name__}: {error}") for r in reads]

        done = await side_by_side(by_profile.values(), one)
        found = {o.read.series_id: o for outcomes in done for o in outcomes}
        return [found[read.series_id] for read in due]

    async def _profile(self, reads: list[DueRead], access: Access) -> list[Outcome]:
        """One profile's reads: its calls one after the other, stopped by a wait or a refusal."""
        connector = self.connectors[reads[0].connector]
        now = utcnow()
        if not connector.reads_metrics:
            return [Outcome(r, wait_until=now + NOT_READ_YET_WAIT) for r in reads]
        if access.error:
            return [Outcome(r, skipped=access.error) for r in reads]
        app = connector.metrics_limit_scope == "app"
        until = self.app_throttled_until.get(connector.key) if app else access.throttled_until
        if until is not None and until > now:
            return [Outcome(r, wait_until=until) for r in reads]
        tokens = reads[0].tokens
        try:
            token = _NoToken() if app else self.keeper.token(tokens)  # type: ignore[arg-type]
        except NeedsReauth as error:
            return await self._unavailable(reads, connector, tokens, str(error), ())
        api = self.api(connector, token)
        run = _ProfileRun(reads)
        try:
            if not app and token.expires_soon(now):
                await token.refresh()
            await self._calls(connector, api, run)
        except MetricsUnavailable as refused:
            return await self._unavailable(reads, connector, tokens, str(refused), refused.metrics, run)
        except DeliveryError as error:
            if error.error_class is ErrorClass.NEEDS_REAUTH:
                return await self._unavailable(reads, connector, tokens, str(error), (), run)
            run.fail_rest(str(error))
        finally:
            if api.throttled_until is not None:
                await self._throttled(connector, reads[0].profile_id, api.throttled_until, app)
        return run.outcomes()

    async def _calls(self, connector: Connector, api: LiveAPI, run: _ProfileRun) -> None:
        size = connector.metrics_batch_size
        while run.pending:
            if api.throttled_until is not None and api.throttled_until > utcnow():
                run.wait_rest(api.throttled_until)  # the window is spent: no call before it ends
                return
            chunk = run.pending[:size]
            try:
                answered = await connector.post_metrics([item for _, item in chunk], api)
            except DeliveryError as error:
                wait = wait_until(error, api)
                if wait is not None:
                    api.throttled_until = wait
                    run.wait_rest(wait)
                    return
                if error.error_class is ErrorClass.NEEDS_REAUTH or error.status in (401, 403):
                    raise MetricsUnavailable(str(error)) from None
                run.fail(chunk, str(error))
                continue
            if len(answered) != len(chunk):
                run.fail(chunk, f"{connector.key} answered {len(answered)} readings for {len(chunk)} items")
                continue
            run.answered(chunk, answered)

    async def _unavailable(
        self,
        reads: list[DueRead],
        connector: Connector,
        tokens: Any,
        reason: str,
        metrics: tuple[str, ...],
        run: _ProfileRun | None = None,
    ) -> list[Outcome]:
        grant = f"connect the account again, granting {', '.join(connector.metrics_scopes)}"
        message = f"{reason} ({grant})" if connector.metrics_scopes else f"{reason} (connect the account again)"
        version = getattr(tokens, "version", None)
        await profile_access.mark_unavailable(self.engine, reads[0].profile_id, version, message, metrics)
        log.warning("metrics of profile %s are unavailable: %s", reads[0].profile_id, message)
        if run is None:
            return [Outcome(r, skipped=message) for r in reads]
        run.skip_rest(message)
        return run.outcomes()

    async def _throttled(self, connector: Connector, profile_id: str, until: datetime, app: bool) -> None:
        if app:
            self.app_throttled_until[connector.key] = max(until, self.app_throttled_until.get(connector.key, until))
        else:
            await profile_access.throttle(self.engine, profile_id, until)


class _ProfileRun:
    """One profile's items on their way: each item answered, or its post stopped (an error, a
    wait, a skip); a post with any item stopped is stopped whole."""

    def __init__(self, reads: list[DueRead]) -> None:
        self.reads = reads
        self.pending = [(read, item) for read in reads for item in read.items]
        self.readings: dict[int, dict[int, MetricsReading]] = defaultdict(dict)
        self.stopped: dict[int, Outcome] = {}

    def answered(self, chunk: list, readings: Sequence[MetricsReading]) -> None:
        for (read, item), reading in zip(chunk, readings, strict=True):
            self.readings[read.series_id][item.part] = reading
        del self.pending[: len(chunk)]

    def fail(self, chunk: list, error: str) -> None:
        for read, _ in chunk:
            self.stopped.setdefault(read.series_id, Outcome(read, error=error))
        del self.pending[: len(chunk)]

    def wait_rest(self, until: datetime) -> None:
        for read, _ in self.pending:
            self.stopped.setdefault(read.series_id, Outcome(read, wait_until=until))
        self.pending = []

    def skip_rest(self, reason: str) -> None:
        for read, _ in self.pending:
            self.stopped[read.series_id] = Outcome(read, skipped=reason)
        self.pending = []

    def fail_rest(self, error: str) -> None:
        self.fail(self.pending, error)

    def outcomes(self) -> list[Outcome]:
        return [self.stopped.get(r.series_id) or Outcome(r, dict(self.readings[r.series_id])) for r in self.reads]


class _NoToken:
    """A platform read without a token (its public endpoint): nothing to authorize or refresh."""

    def authorization(self, scheme: str) -> str:
        raise DeliveryError(ErrorClass.PERMANENT, "this platform's metrics are read without a token")

    async def refresh(self) -> None:
        raise DeliveryError(ErrorClass.PERMANENT, "this platform's metrics are read without a token")
