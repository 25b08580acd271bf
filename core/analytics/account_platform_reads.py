"""Reading each profile's followers from its platform (HERALD_PUBLISH_MODE=live; docs/analytics.md,
"Account metrics"): one call per profile through its connector's `account_metrics`, over the live
API (core/connectors/live.py) with the profile's token, refreshed once when the platform says it
is dead, as publishing does. Profiles are read side by side, a few at a time.

Pacing, as the post reads pace (core/analytics/platform_reads.py): the live API reads
`Retry-After` and the platforms' rate headers on every answer. A 429 (or a retryable refusal
with a Retry-After) is a wait, not a failure: the profile's read is due again when the platform
said (the reset, or `Retry-After`; a minute when it said nothing), its failures as they were. A
read whose answer says the window is spent is not due again before the window ends (a day's
interval is longer than any platform's window; a shorter one is not).

Any other refusal (a scope not granted, a token that cannot be refreshed) fails that profile's
read only: it is tried again after the queue's growing wait (core/analytics/account_reads.py),
with the platform's words kept as its `last_error`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import timedelta
from typing import Any

import httpx2

from core.analytics.account_reads import AccountOutcome, DueAccount
from core.connectors.base import Connector, DeliveryError, ErrorClass
from core.connectors.live import LiveAPI
from core.connectors.transport import PlatformEndpoints
from core.db.types import utcnow
from core.platform_accounts.token_refresh import TokenKeeper
from core.settings import CoreSettings

log = logging.getLogger(__name__)

PROFILES_AT_ONCE = 8
# A 429 without a Retry-After or rate headers: read again after this (as the post reads).
DEFAULT_WAIT = timedelta(seconds=60)


class AccountPlatformReads:
    def __init__(
        self,
        settings: CoreSettings,
        keeper: TokenKeeper,
        endpoints: PlatformEndpoints,
        connectors: Mapping[str, Connector],
    ) -> None:
        self.settings = settings
        self.keeper = keeper
        self.endpoints = endpoints
        self.connectors = connectors
        self._client: httpx2.AsyncClient | None = None

    def _http(self) -> httpx2.AsyncClient:
        if self._client is None:
            self._client = self.endpoints.client(timeout=self.settings.platform_timeout_seconds)
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def read(self, due: Sequence[DueAccount]) -> list[AccountOutcome]:
        """An outcome per claimed profile, in order."""
        gate = asyncio.Semaphore(PROFILES_AT_ONCE)

        async def one(account: DueAccount) -> AccountOutcome:
            async with gate:
                try:
                    return await self._one(account)
                except DeliveryError as error:
                    return AccountOutcome(account, error=str(error) or type(error).__name__)
                except Exception as error:  # a bug: tried again later
                    log.exception("reading the followers of profile %s failed", account.profile_id)
                    return AccountOutcome(account, error=f"{type(error).__name__}: {error}")

        return list(await asyncio.gather(*(one(d) for d in due)))

    async def _one(self, due: DueAccount) -> AccountOutcome:
        connector = self.connectors.get(due.connector)
        if connector is None or not connector.reads_account_metrics:
            return AccountOutcome(due, error=f"{due.connector} does not read its followers live")
        if due.tokens is None:
            return AccountOutcome(due, error="the profile has no connected account")
        token = self.keeper.token(due.tokens)
        api = LiveAPI(self._http(), connector, token, _no_media, _NoProgress(), {})
        try:
            reading = await connector.account_metrics(due.account, api)
        except DeliveryError as error:
            if error.status == 429 or (error.error_class is ErrorClass.RETRYABLE and error.retry_after):
                wait = api.throttled_until or utcnow() + (
                    timedelta(seconds=error.retry_after) if error.retry_after else DEFAULT_WAIT
                )
                log.info("followers of profile %s: %s; read again at %s", due.profile_id, error, wait.isoformat())
                return AccountOutcome(due, wait_until=wait)
            raise
        return AccountOutcome(due, reading, wait_until=api.throttled_until)


class _NoProgress:
    """A followers read saves no progress (the claim's lease covers it)."""

    async def save(self, state: Mapping[str, Any]) -> None:
        pass

    async def keepalive(self) -> None:
        pass


async def _no_media(key: str, start: int, end: int | None, generation: int | None) -> AsyncIterator[bytes]:
    raise RuntimeError("followers reads send no media")
    yield b""  # pragma: no cover
