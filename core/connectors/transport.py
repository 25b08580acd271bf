"""The one HTTP transport every request to a platform goes through (publishing, connecting
accounts, refreshing tokens, link cards).

- **Host overrides** (HERALD_PLATFORM_HOST_OVERRIDES): a platform host is sent to another base
  URL, e.g. the platform's own sandbox, an egress proxy, or the test suite's fake platforms. The
  connectors keep the platforms' real URLs; only this layer knows.
- **No private addresses** for hosts that are not overridden: users name Mastodon instances,
  Bluesky PDSes and link-card pages, and a URL of theirs must not reach the operator's own
  network. A host resolving to a loopback, private, link-local, multicast or reserved address is
  refused unless HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES is set (tests, a private instance).
  The name is resolved once, every address it has is checked, and the connection is made to the
  address that was checked (the request's URL names the address; its Host header and, over
  TLS, its SNI and certificate check keep the name): a DNS answer that changes between the
  check and the connection (rebinding) cannot move the request. Decimal, hexadecimal and
  IPv4-mapped IPv6 spellings of an address reach the same check (the resolver reads them).
  Redirects are never followed here; a caller that follows one sends a new request, checked
  again.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Mapping

import httpx2


class BlockedAddress(httpx2.ConnectError):
    """A host that resolves to an address platform requests may not reach (a ConnectError: the
    request was never sent)."""


def _base(url: str) -> httpx2.URL:
    parsed = httpx2.URL(url.rstrip("/"))
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"a platform host override must be an http(s) base URL, not {url!r}")
    return parsed


Resolver = Callable[[str, int], Awaitable[list[str]]]


async def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (the operating system's resolver; an IP literal in any
    spelling it accepts is answered as itself)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether a user-named host may reach `address`: globally routable unicast only (no
    loopback, private, shared, link-local — cloud metadata lives there —, reserved or
    multicast address; an IPv4-mapped IPv6 address is judged as its IPv4 address)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


class PlatformEndpoints:
    def __init__(
        self,
        overrides: Mapping[str, str] | None = None,
        *,
        allow_private: bool = False,
        resolver: Resolver = system_resolver,
    ) -> None:
        self.overrides = {host.lower(): _base(url) for host, url in (overrides or {}).items()}
        self.allow_private = allow_private
        self.resolver = resolver

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

    async def check_address(self, host: str, port: int) -> str | None:
        """The address to connect to for `host`, checked: BlockedAddress when any address it
        resolves to is outside the public internet. None when private addresses are allowed
        (the connection resolves the name itself)."""
        if self.allow_private:
            return None
        try:
            found = await self.resolver(host, port)
        except (socket.gaierror, UnicodeError) as error:
            raise httpx2.ConnectError(f"cannot resolve {host}: {error}") from None
        if not found:
            raise httpx2.ConnectError(f"cannot resolve {host}: no address")
        for text in found:
            address = ipaddress.ip_address(text.split("%", 1)[0])  # an IPv6 zone id is not the address
            if not is_public(address):
                raise BlockedAddress(f"{host} resolves to {address}, which platform requests may not reach")
        return found[0]

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
            host = request.url.host
            pinned = await self.endpoints.check_address(host, request.url.port or _default_port(request.url))
            if pinned is not None and pinned != host:
                # Connect to the address that was checked; the Host header (set from the URL the
                # caller made) and, over TLS, the SNI and the certificate check keep the name.
                if request.url.scheme == "https":
                    request.extensions = {**request.extensions, "sni_hostname": host}
                request.url = request.url.copy_with(host=pinned)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _default_port(url: httpx2.URL) -> int:
    return 443 if url.scheme == "https" else 80
