"""The one HTTP transport every request to a platform goes through (publishing, connecting
accounts, refreshing tokens, link cards).

- **Host overrides** (HERALD_PLATFORM_HOST_OVERRIDES): a platform host is sent to another base
  URL, e.g. the platform's own sandbox, an egress proxy, or the test suite's fake platforms. The
  connectors keep the platforms' real URLs; only this layer knows.
- **No private addresses** for hosts that are not overridden: users name Mastodon instances,
  Bluesky PDSes and link-card pages, and a URL of theirs must not reach the operator's own
  network. A host resolving to a loopback, private, link-local, multicast or reserved address is
  refused unless HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES is set (tests, a private instance).
  The check resolves the name just before connecting; DNS rebinding between the two is not
  excluded, which an egress proxy that enforces the same rule does exclude.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping

import httpx2


class BlockedAddress(httpx2.ConnectError):
    """A host that resolves to an address platform requests may not reach (a ConnectError: the
    request was never sent)."""


def _base(url: str) -> httpx2.URL:
    parsed = httpx2.URL(url.rstrip("/"))
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"a platform host override must be an http(s) base URL, not {url!r}")
    return parsed


class PlatformEndpoints:
    def __init__(self, overrides: Mapping[str, str] | None = None, *, allow_private: bool = False) -> None:
        self.overrides = {host.lower(): _base(url) for host, url in (overrides or {}).items()}
        self.allow_private = allow_private

    def rewrite(self, url: str | httpx2.URL) -> httpx2.URL:
        """The URL a request for `url` really goes to."""
        parsed = httpx2.URL(url)
        base = self.overrides.get((parsed.host or "").lower())
        if base is None:
            return parsed
        # The raw (still percent-encoded) path: `urn%3Ali%3Avideo%3A1` or `a%2Fb` must reach the
        # other host as they would have reached the platform.
        raw = parsed.raw_path.decode("ascii")
        prefix = base.raw_path.decode("ascii").split("?", 1)[0].rstrip("/")
        return httpx2.URL(f"{base.scheme}://{base.netloc.decode('ascii')}{prefix}{raw}")

    def is_overridden(self, url: str | httpx2.URL) -> bool:
        return (httpx2.URL(url).host or "").lower() in self.overrides

    async def check_address(self, host: str, port: int) -> None:
        """Raises BlockedAddress when `host` resolves to an address outside the public internet."""
        if self.allow_private:
            return
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as error:
            raise httpx2.ConnectError(f"cannot resolve {host}: {error}") from None
        for info in infos:
            address = ipaddress.ip_address(info[4][0])
            if not address.is_global or address.is_multicast:
                raise BlockedAddress(f"{host} resolves to {address}, which platform requests may not reach")

    def transport(self, **kwargs: object) -> PlatformTransport:
        return PlatformTransport(self, httpx2.AsyncHTTPTransport(**kwargs))  # type: ignore[arg-type]

    def client(self, *, timeout: float, **kwargs: object) -> httpx2.AsyncClient:
        """An httpx client for platform requests (redirects are not followed: a platform's
        redirect is an answer the caller reads, e.g. YouTube's upload session)."""
        return httpx2.AsyncClient(
            transport=self.transport(retries=0),
            timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
            follow_redirects=False,
            **kwargs,  # type: ignore[arg-type]
        )


class PlatformTransport(httpx2.AsyncBaseTransport):
    def __init__(self, endpoints: PlatformEndpoints, inner: httpx2.AsyncBaseTransport) -> None:
        self.endpoints = endpoints
        self.inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if self.endpoints.is_overridden(request.url):
            target = self.endpoints.rewrite(request.url)
            request.url = target
            request.headers["Host"] = target.netloc.decode("ascii")
        else:
            await self.endpoints.check_address(request.url.host, request.url.port or _default_port(request.url))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _default_port(url: httpx2.URL) -> int:
    return 443 if url.scheme == "https" else 80
