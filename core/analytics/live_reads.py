"""What the two live readers share (HERALD_PUBLISH_MODE=live; docs/analytics.md): the posts'
metrics (platform_reads.py) and the profiles' followers (account_platform_reads.py) both call
the platforms through the live API (core/connectors/live.py) with each profile's token, so the
token's refresh, the outbound guard, the connectors' error classes and the rate headers apply as
when publishing. Written once here: the worker's one HTTP client to the platforms, a live API
that only reads (no media to send, no progress to save: the claim's lease covers a read), how
many profiles are read side by side, and the pacing rule that makes a 429 a wait, not a
failure."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, TypeVar

import httpx2

from core.connectors.base import Connector, DeliveryError, ErrorClass
from core.connectors.live import LiveAPI, TokenSource
from core.connectors.transport import PlatformEndpoints
from core.db.types import utcnow
from core.platform_accounts.token_refresh import TokenKeeper
from core.settings import CoreSettings

# Profiles read at once by one worker (each one's calls in sequence, so the remaining count a
# platform answers is never raced by this worker).
PROFILES_AT_ONCE = 8
# A 429 without a Retry-After or rate headers: read again after this.
DEFAULT_WAIT = timedelta(seconds=60)

T = TypeVar("T")
R = TypeVar("R")


class LiveReader:
    """A reader's platforms: the connectors, the tokens, and one HTTP client kept for the
    worker's life (opened at its first call, closed with the worker)."""

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

    def api(self, connector: Connector, token: TokenSource) -> LiveAPI:
        """A live API for one profile's reads."""
        if self._client is None:
            self._client = self.endpoints.client(timeout=self.settings.platform_timeout_seconds)
        return LiveAPI(self._client, connector, token, _no_media, _NoProgress(), {})

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


async def side_by_side(items: Iterable[T], read: Callable[[T], Awaitable[R]]) -> list[R]:
    """Each item's read, PROFILES_AT_ONCE at a time, in the items' order."""
    gate = asyncio.Semaphore(PROFILES_AT_ONCE)

    async def gated(item: T) -> R:
        async with gate:
            return await read(item)

    return list(await asyncio.gather(*(gated(item) for item in items)))


def wait_until(error: DeliveryError, api: LiveAPI) -> datetime | None:
    """Until when a refusal asks to wait, None when it is not a wait: a 429, or a retryable
    refusal with a Retry-After, waits until the window's reset the live API read from the rate
    headers, else the Retry-After, else DEFAULT_WAIT."""
    if error.status == 429 or (error.error_class is ErrorClass.RETRYABLE and error.retry_after):
        return api.throttled_until or utcnow() + (
            timedelta(seconds=error.retry_after) if error.retry_after else DEFAULT_WAIT
        )
    return None


class _NoProgress:
    """A read saves no progress and holds no post's lease (the claim's lease covers it)."""

    async def save(self, state: Mapping[str, Any]) -> None:
        pass

    async def keepalive(self) -> None:
        pass


async def _no_media(key: str, start: int, end: int | None, generation: int | None) -> AsyncIterator[bytes]:
    raise RuntimeError("metrics reads send no media")
    yield b""  # pragma: no cover
