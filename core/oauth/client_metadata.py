"""Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-02): a client
identifies itself by the URL of a JSON document describing it; the authorization server fetches
the document through the guarded transport (core/connectors/transport.py), checks it and caches it.

The figures (docs/oauth.md, "Client ID Metadata Documents"): a document is read up to 5 KiB
(section 8.7's recommendation; a larger one is refused while streaming), within 3 s all told
(name resolution, connection, TLS, headers and body), and no redirect is followed (section 5).
A valid document is cached by each core process for its `Cache-Control: max-age` (less `Age`),
else until its `Expires`, else 5 minutes; at most 24 hours; not at all with `no-store` or
`no-cache`. Errors and invalid documents are never cached (5.2). Every failure is
`invalid_client`, raised before the authorization endpoint trusts any redirect URI.

The authorization endpoint fetches for anyone, signed in or not, so a fetch must not serve as a
probe of what answers where: every failure to get a document (no answer, refused, timed out,
blocked address, a status other than 200, not JSON, too large) answers the same description,
and every failed fetch answers no sooner than `failure_delay` (1 s) after it started. Only a
document that was served (200, JSON, within the cap) and breaks a rule says why: its author
needs that, and it tells nothing about the network that fetching the URL would not.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx2

from core.connectors.transport import BlockedAddress, PlatformEndpoints
from core.oauth.clients import (
    MAX_URI_LENGTH,
    Client,
    ClientMetadata,
    metadata_client,
    validate_metadata,
)
from core.oauth.errors import InvalidClient, InvalidClientMetadata, InvalidRedirectUri

MAX_DOCUMENT_BYTES = 5 * 1024
FETCH_TIMEOUT_SECONDS = 3.0
DEFAULT_CACHE_SECONDS = 300
MAX_CACHE_SECONDS = 24 * 3600
MAX_CACHED_DOCUMENTS = 1000
# The least time a failed fetch takes to answer, whatever went wrong (the module docstring).
MIN_FAILURE_SECONDS = 1.0
# The one description of every failure to get a document.
FETCH_FAILED = (
    "the client's metadata document could not be fetched: its URL must answer 200 with a JSON "
    f"document of at most {MAX_DOCUMENT_BYTES // 1024} KiB within {FETCH_TIMEOUT_SECONDS:g} s, without redirects"
)
# Where private targets are allowed (make run's default), a local agent may serve its document
# over plain http on these hosts.
LOOPBACK_DOCUMENT_HOSTS = frozenset({"127.0.0.1", "localhost"})
USER_AGENT = "Herald-OAuth/1 (client metadata)"

log = logging.getLogger(__name__)


def check_client_id_url(url: str, *, allow_private: bool) -> None:
    """Section 3: https, no userinfo, a path without dot segments, no fragment (a query is
    allowed, though discouraged). Plain http only on 127.0.0.1 or localhost, and only where
    private targets are allowed."""
    if len(url) > MAX_URI_LENGTH:
        raise InvalidClient(f"a client_id URL is at most {MAX_URI_LENGTH} characters")
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        raise InvalidClient("a client_id URL must not contain spaces or control characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        raise InvalidClient("the client_id URL is malformed") from None
    if parts.scheme == "http":
        if not (allow_private and parts.hostname in LOOPBACK_DOCUMENT_HOSTS):
            where = " (http is accepted on 127.0.0.1 and localhost only)" if allow_private else ""
            raise InvalidClient(f"a client_id URL must be https{where}")
    elif parts.scheme != "https":
        raise InvalidClient("a client_id URL must be https")
    if not parts.hostname:
        raise InvalidClient("the client_id URL names no host")
    if "@" in parts.netloc:
        raise InvalidClient("a client_id URL must not carry a user or password")
    if "#" in url:
        raise InvalidClient("a client_id URL must not have a fragment")
    if not parts.path:
        raise InvalidClient("a client_id URL must have a path")
    if any(unquote(segment) in (".", "..") for segment in parts.path.split("/")):
        raise InvalidClient("a client_id URL must not have . or .. path segments")


def _string(document: dict[str, Any], name: str, *, required: bool = False) -> str:
    value = document.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise InvalidClient(f"the client's metadata document needs {name} as a non-empty string")
    return value


def _strings(document: dict[str, Any], name: str) -> tuple[str, ...]:
    value = document.get(name, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidClient(f"the client's metadata document needs {name} as a list of strings")
    return tuple(value)


def parse_document(url: str, body: bytes) -> ClientMetadata:
    """Section 4: a JSON object whose `client_id` is the URL it was fetched from (simple string
    comparison), with no shared secret (4.1), then the rules of registration (RFC 7591) with
    Herald's defaults. MCP asks for `client_name` and `redirect_uris`."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):  # bad UTF-8, bad JSON, or 5 KiB of nested brackets
        raise InvalidClient("the client's metadata document is not JSON") from None
    if not isinstance(document, dict):
        raise InvalidClient("the client's metadata document is not a JSON object")
    if document.get("client_id") != url:
        raise InvalidClient("the client_id in the client's metadata document is not the URL it was fetched from")
    if "client_secret" in document or "client_secret_expires_at" in document:
        raise InvalidClient("a client's metadata document must not carry a client secret")
    method = document.get("token_endpoint_auth_method", "none")
    if method != "none":
        raise InvalidClient('a metadata-document client must be public: token_endpoint_auth_method "none"')
    application_type = document.get("application_type")
    if application_type is not None and not isinstance(application_type, str):
        raise InvalidClient("the client's metadata document needs application_type as a string")
    client_uri = _string(document, "client_uri")  # https only, as at registration (validate_metadata)
    metadata = ClientMetadata(
        client_name=_string(document, "client_name", required=True),
        redirect_uris=_strings(document, "redirect_uris"),
        grant_types=_strings(document, "grant_types"),
        response_types=_strings(document, "response_types"),
        token_endpoint_auth_method="none",
        scope=_string(document, "scope"),
        client_uri=client_uri,
        application_type=application_type,
    )
    if not metadata.redirect_uris:
        raise InvalidClient("the client's metadata document lists no redirect_uris")
    try:
        return validate_metadata(metadata)
    except (InvalidClientMetadata, InvalidRedirectUri) as error:
        raise InvalidClient(f"the client's metadata document is invalid: {error.message}") from None


def _cache_directives(headers: httpx2.Headers) -> dict[str, str]:
    directives: dict[str, str] = {}
    for part in ",".join(headers.get_list("cache-control")).split(","):
        name, _, value = part.strip().partition("=")
        if name:
            directives.setdefault(name.lower(), value.strip().strip('"'))
    return directives


def _http_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def cache_seconds(headers: httpx2.Headers, now: datetime) -> float:
    """How long a document may be reused (RFC 9111 as a private cache: max-age less Age, else
    Expires less Date; an unreadable value means stale), within Herald's bounds."""
    directives = _cache_directives(headers)
    if "no-store" in directives or "no-cache" in directives:
        return 0.0
    if "max-age" in directives:
        if not directives["max-age"].isdigit():
            return 0.0
        age = headers.get("age", "0")
        lifetime = float(directives["max-age"]) - (float(age) if age.isdigit() else 0.0)
    elif "expires" in headers:
        expires = _http_date(headers.get("expires"))
        if expires is None:
            return 0.0
        lifetime = (expires - (_http_date(headers.get("date")) or now)).total_seconds()
    else:
        lifetime = DEFAULT_CACHE_SECONDS
    return max(0.0, min(lifetime, MAX_CACHE_SECONDS))


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


class _FetchFailed(Exception):
    """Why a document could not be had; logged, never told to the caller (FETCH_FAILED is)."""


class ClientMetadataDocuments:
    """Fetches, checks and caches metadata documents for one core process. `allow_private`:
    whether documents may come from loopback or private addresses (CoreSettings.allows_private_targets),
    which also admits http on loopback. `failure_delay`: the least time a failed fetch takes
    (MIN_FAILURE_SECONDS; tests lower it here, nothing else does)."""

    def __init__(
        self,
        *,
        allow_private: bool,
        timeout: float = FETCH_TIMEOUT_SECONDS,
        max_bytes: int = MAX_DOCUMENT_BYTES,
        clock: Callable[[], float] = time.monotonic,
        failure_delay: float = MIN_FAILURE_SECONDS,
    ) -> None:
        self.allow_private = allow_private
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.failure_delay = failure_delay
        self._clock = clock
        self._endpoints = PlatformEndpoints({}, allow_private=allow_private)
        self._cache: dict[str, tuple[float, ClientMetadata]] = {}
        self._ssl: ssl.SSLContext | None = None

    async def client(
        self, url: str, now: datetime, *, before_fetch: Callable[[], Awaitable[None]] | None = None
    ) -> Client:
        """The client the document at `url` describes; InvalidClient when it cannot be had."""
        return metadata_client(url, await self.metadata(url, before_fetch=before_fetch), now)

    async def metadata(self, url: str, *, before_fetch: Callable[[], Awaitable[None]] | None = None) -> ClientMetadata:
        """The checked document at `url`, from the cache or fetched. `before_fetch` runs before a
        fetch (a cache miss) only: the caller's budget of fetches (core/oauth/servicer.py)."""
        check_client_id_url(url, allow_private=self.allow_private)
        cached = self._cache.get(url)
        if cached is not None and cached[0] > self._clock():
            return cached[1]
        self._cache.pop(url, None)
        if before_fetch is not None:
            await before_fetch()
        started = time.monotonic()
        try:
            try:
                body, lifetime = await self._fetch(url)
            except _FetchFailed as failure:
                log.info("client metadata document %s not fetched: %s", url, failure)
                raise InvalidClient(FETCH_FAILED) from None
            metadata = parse_document(url, body)
        except InvalidClient:
            # However it failed, no sooner than the others (the module docstring).
            await asyncio.sleep(max(0.0, started + self.failure_delay - time.monotonic()))
            raise
        if lifetime > 0:
            self._remember(url, metadata, self._clock() + lifetime)
        return metadata

    def _remember(self, url: str, metadata: ClientMetadata, expires: float) -> None:
        if len(self._cache) >= MAX_CACHED_DOCUMENTS:
            now = self._clock()
            for key in [k for k, (until, _) in self._cache.items() if until <= now]:
                del self._cache[key]
            while len(self._cache) >= MAX_CACHED_DOCUMENTS:
                del self._cache[next(iter(self._cache))]  # the oldest entry
        self._cache[url] = (expires, metadata)

    def _http(self) -> httpx2.AsyncClient:
        # One TLS context per process (the system's CA store, or SSL_CERT_FILE); a client per
        # fetch, which happens on a cache miss only.
        if self._ssl is None:
            self._ssl = httpx2.create_ssl_context()
        return httpx2.AsyncClient(
            transport=self._endpoints.transport(retries=0, verify=self._ssl),
            timeout=httpx2.Timeout(self.timeout),
            follow_redirects=False,
        )

    async def _fetch(self, url: str) -> tuple[bytes, float]:
        """The body and how long it may be reused; _FetchFailed saying why it could not be had."""
        headers = {"Accept": "application/json", "Accept-Encoding": "identity", "User-Agent": USER_AGENT}
        try:
            async with (
                asyncio.timeout(self.timeout),
                self._http() as http,
                http.stream("GET", url, headers=headers) as answer,
            ):
                if answer.status_code != 200:
                    raise _FetchFailed(f"HTTP {answer.status_code}")
                if not _is_json(answer.headers.get("content-type", "")):
                    raise _FetchFailed(f"content type {answer.headers.get('content-type', '')[:100]!r}")
                declared = answer.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > self.max_bytes:
                    raise _FetchFailed(f"Content-Length {declared} over {self.max_bytes} bytes")
                body = bytearray()
                async for chunk in answer.aiter_bytes():
                    body += chunk
                    if len(body) > self.max_bytes:
                        raise _FetchFailed(f"body over {self.max_bytes} bytes")
                return bytes(body), cache_seconds(answer.headers, datetime.now(UTC))
        except (TimeoutError, httpx2.TimeoutException):
            raise _FetchFailed(f"no document within {self.timeout:g} s") from None
        except BlockedAddress:
            raise _FetchFailed("its host's address is one this server does not fetch from") from None
        except (httpx2.HTTPError, httpx2.InvalidURL, httpx2.StreamError, OSError) as error:
            raise _FetchFailed(type(error).__name__) from None
