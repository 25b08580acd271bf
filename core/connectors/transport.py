"""The one HTTP transport every request to a host a user or a platform names goes through
(publishing, connecting accounts, refreshing tokens, link cards, webhook deliveries, OAuth client
metadata documents).

- **Host overrides** (HERALD_PLATFORM_HOST_OVERRIDES): a platform host is sent to another base
  URL, e.g. the platform's own sandbox, an egress proxy, or the test suite's fake platforms. The
  connectors keep the platforms' real URLs; only this layer knows.
- **No private addresses** for hosts that are not overridden: users name Mastodon instances,
  Bluesky PDSes, webhook receivers, link-card pages and client metadata documents, and a URL of
  theirs must not reach the operator's own network. A host resolving to a loopback, private,
  shared, link-local (cloud metadata), multicast or reserved address is refused, and so is an
  IPv6 address that carries such an IPv4 address inside it (IPv4-mapped and -compatible, NAT64,
  6to4, Teredo), unless private targets are allowed (HERALD_ALLOW_PRIVATE_TARGETS;
  docs/operations.md, "Outbound requests").
- **The connection goes to the address that was checked.** The name is resolved once, every
  address it has is checked, and the request is sent to a checked address (the next one when a
  connection cannot be made): its URL names the address, its Host header and, over TLS, its SNI
  and certificate check keep the name. A DNS answer that changes between the check and the
  connection (rebinding) cannot move the request. Decimal, hexadecimal and IPv4-mapped IPv6
  spellings of an address reach the same check (the resolver reads them).
- **One connection pool per host name**, so a connection opened (and, over TLS, verified) for one
  name is never reused for another name that resolves to the same address.
- **Answers are capped**: at most `max_response_bytes` of body, counted after gzip or deflate
  decoding (so a small compressed answer cannot expand without bound); a longer answer fails the
  request with `ResponseTooLarge` (a ReadError).
- Redirects are never followed here; a caller that follows one sends a new request, checked again.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import zlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping

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


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# NAT64's well-known prefix (RFC 6052): the last 32 bits are the IPv4 address packets go to.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# NAT64's local-use prefix (RFC 8215), and the deprecated IPv4-compatible addresses (RFC 4291).
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
# Answers above this many bytes (decoded) fail: platforms' API answers are far smaller.
MAX_RESPONSE_BYTES = 8 * 1024 * 1024
# Connection pools kept per transport (one per host name), the least recently used closed first.
MAX_POOLS = 64


def is_public(address: IPAddress) -> bool:
    """Whether a user-named host may reach `address`: globally routable unicast only (no
    loopback, private, shared, link-local — cloud metadata lives there —, reserved or multicast
    address). An IPv6 address that hands its packets to an IPv4 address is judged by that
    address too: IPv4-mapped and NAT64 ones only by it, 6to4 and Teredo ones by both."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return is_public(address.ipv4_mapped)
        if address in _LOCAL_NAT64 or address in _IPV4_COMPATIBLE:
            return False  # translated inside the operator's network / deprecated, never needed
        if address in _NAT64:
            return is_public(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        embedded = [address.sixtofour] if address.sixtofour is not None else []
        embedded += list(address.teredo or ())  # the relay server and the client behind it
        if not all(is_public(inner) for inner in embedded):
            return False
    return address.is_global and not address.is_multicast


class ResponseTooLarge(httpx2.ReadError):
    """An answer longer than the transport's cap (the request was sent)."""


class PlatformEndpoints:
    def __init__(
        self,
        overrides: Mapping[str, str] | None = None,
        *,
        allow_private: bool = False,
        resolver: Resolver = system_resolver,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.overrides = {host.lower(): _base(url) for host, url in (overrides or {}).items()}
        self.allow_private = allow_private
        self.resolver = resolver
        self.max_response_bytes = max_response_bytes

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

    async def check_addresses(self, host: str, port: int) -> list[str]:
        """The addresses to connect to for `host`, each checked: BlockedAddress when any address
        it resolves to is outside the public internet (unless private targets are allowed)."""
        try:
            found = await self.resolver(host, port)
        except (socket.gaierror, UnicodeError) as error:
            raise httpx2.ConnectError(f"cannot resolve {host}: {error}") from None
        if not found:
            raise httpx2.ConnectError(f"cannot resolve {host}: no address")
        for text in found:
            address = ipaddress.ip_address(text.split("%", 1)[0])  # an IPv6 zone id is not the address
            if not self.allow_private and not is_public(address):
                raise BlockedAddress(f"{host} resolves to {address}, which requests to user-named hosts may not reach")
        return found

    def transport(self, **kwargs: object) -> PlatformTransport:
        return PlatformTransport(self, lambda: httpx2.AsyncHTTPTransport(**kwargs))  # type: ignore[arg-type]

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
    """The guarded transport: `pool` makes the inner (connection-pooling) transport of one host."""

    def __init__(self, endpoints: PlatformEndpoints, pool: Callable[[], httpx2.AsyncBaseTransport]) -> None:
        self.endpoints = endpoints
        self._new_pool = pool
        self._pools: OrderedDict[tuple[str, str, int], httpx2.AsyncBaseTransport] = OrderedDict()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        # Only the encodings this layer can decode while counting (no br/zstd bombs).
        request.headers["Accept-Encoding"] = "gzip, deflate"
        if self.endpoints.is_overridden(request.url):
            # An operator-named destination: sent as configured, unchecked.
            target = self.endpoints.rewrite(request.url)
            request.url = target
            request.headers["Host"] = target.netloc.decode("ascii")
            pool = await self._pool(target)
            return self._capped(await pool.handle_async_request(request))
        url = request.url
        host, port = url.host, url.port or _default_port(url)
        addresses = await self.endpoints.check_addresses(host, port)
        pool = await self._pool(url)
        failure: httpx2.ConnectError | None = None
        for address in addresses:
            pinned = request
            if address != host:
                # Connect to the address that was checked; the Host header (set from the URL the
                # caller made) and, over TLS, the SNI and the certificate check keep the name.
                pinned.url = url.copy_with(host=address)
                if url.scheme == "https":
                    pinned.extensions = {**request.extensions, "sni_hostname": host}
            try:
                return self._capped(await pool.handle_async_request(pinned))
            except httpx2.ConnectError as error:  # nothing was sent: the next address may answer
                failure = error
        assert failure is not None
        raise failure

    async def _pool(self, url: httpx2.URL) -> httpx2.AsyncBaseTransport:
        key = (url.scheme, (url.host or "").lower(), url.port or _default_port(url))
        pool = self._pools.get(key)
        if pool is not None:
            self._pools.move_to_end(key)
            return pool
        pool = self._pools[key] = self._new_pool()
        while len(self._pools) > MAX_POOLS:
            _, oldest = self._pools.popitem(last=False)
            await oldest.aclose()
        return pool

    def _capped(self, response: httpx2.Response) -> httpx2.Response:
        limit = self.endpoints.max_response_bytes
        declared = response.headers.get("content-length", "")
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding in ("", "identity") and declared.isdigit() and int(declared) > limit:
            raise ResponseTooLarge(f"the answer is {declared} bytes, more than {limit} are read")
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            raise httpx2.DecodingError(f"unrequested content encoding {encoding!r}")
        headers = response.headers
        if encoding not in ("", "identity"):
            # Decoded here, counted as decoded; the response says it is plain now.
            headers = httpx2.Headers([(k, v) for k, v in headers.multi_items() if k.lower() not in _ENCODED])
        return httpx2.Response(
            response.status_code,
            headers=headers,
            stream=_CappedStream(response.stream, limit, encoding),  # type: ignore[arg-type]
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        pools, self._pools = list(self._pools.values()), OrderedDict()
        for pool in pools:
            await pool.aclose()


_ENCODED = ("content-encoding", "content-length")


class _CappedStream(httpx2.AsyncByteStream):
    """A response body read up to `limit` bytes (decoded from gzip or deflate on the way)."""

    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, encoding: str) -> None:
        self.inner = inner
        self.limit = limit
        self.decoder = _decoder(encoding)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for raw in self.inner:
            chunks = [raw] if self.decoder is None else self._decode(raw)
            for chunk in chunks:
                seen += len(chunk)
                if seen > self.limit:
                    raise ResponseTooLarge(f"the answer is longer than the {self.limit} bytes read")
                if chunk:
                    yield chunk
        if self.decoder is not None and (rest := self.decoder.flush()):
            seen += len(rest)
            if seen > self.limit:
                raise ResponseTooLarge(f"the answer is longer than the {self.limit} bytes read")
            yield rest

    def _decode(self, raw: bytes) -> list[bytes]:
        """Decodes `raw` without ever inflating more than the cap (plus one) in one step."""
        assert self.decoder is not None
        out, pending = [], raw
        while pending:
            try:
                chunk = self.decoder.decompress(pending, self.limit + 1)
            except zlib.error as error:
                raise httpx2.DecodingError(f"the answer's compressed body is invalid: {error}") from None
            out.append(chunk)
            pending = self.decoder.unconsumed_tail
            if len(chunk) > self.limit:
                break
        return out

    async def aclose(self) -> None:
        await self.inner.aclose()


def _decoder(encoding: str) -> zlib._Decompress | None:  # type: ignore[name-defined]
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()  # zlib-wrapped, as HTTP's deflate is
    return None


def _default_port(url: httpx2.URL) -> int:
    return 443 if url.scheme == "https" else 80
