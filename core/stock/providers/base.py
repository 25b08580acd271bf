"""What every stock photo provider client shares: the result types, the error, one JSON GET."""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol
from urllib.parse import unquote_plus, urlencode, urlsplit, urlunsplit

import httpx2

ProviderKey = Literal["stock_a", "stock_b"]
ErrorCode = Literal["RATE_LIMITED", "PROVIDER_ERROR", "NOT_FOUND"]
ORIENTATIONS = ("landscape", "portrait", "square")
# An answer larger than this is not a search or photo answer (80 Pexels photos are ~100 KB).
MAX_ANSWER_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Attribution:
    """The credit a `stock_b` (Unsplash) photo must carry wherever it is shown (docs/platforms.md,
    "Unsplash (stock_b)": "Photo by <photographer> on <source>", both links with the app's referral
    parameters `utm_source={app}&utm_medium=referral`). `stock_a` (Pexels) requires none.

    Herald renders it as JSON `{photographer, photographer_url, source, source_url}`:
    - `photographer`: the photographer's name (Unsplash `user.name`);
    - `photographer_url`: `https://unsplash.com/@{username}?utm_source={app}&utm_medium=referral`;
    - `source`: `"Unsplash"`;
    - `source_url`: `https://unsplash.com/?utm_source={app}&utm_medium=referral`.
    """

    photographer: str
    photographer_url: str
    source: str
    source_url: str


@dataclass(frozen=True, slots=True)
class StockPhoto:
    """One search result (docs/api.md, "Resources", Stock search): the provider's photo id as
    `source_ref`, a small `preview_url` for a picker, the original's pixel size, the provider's
    alt text ("" if none) and, for `stock_b`, the required attribution."""

    source_ref: str
    provider: ProviderKey
    preview_url: str
    mime_type: str
    width: int
    height: int
    alt_text: str
    attribution: Attribution | None


@dataclass(frozen=True, slots=True)
class Rendition:
    """Where to fetch `photo` sized (and where the provider can, cropped) for a wanted box: a URL
    on the provider's image host, never asking for more pixels than the original has. `width`
    and `height` are what the provider will deliver, when known."""

    photo: StockPhoto
    url: str
    width: int | None
    height: int | None


class StockProviderError(Exception):
    """The provider could not answer usefully. `code` is the stable contract:

    - `RATE_LIMITED`: the provider's request limit is reached (Pexels 429; Unsplash 429, or 403
      with "Rate Limit Exceeded"); `retry_after` says in how many seconds to try again.
    - `PROVIDER_ERROR`: no answer in time, no connection, a 5xx, a refused API key, or a body
      that is not the documented JSON.
    - `NOT_FOUND`: the provider has no photo with that `source_ref`.

    Messages never carry the API key."""

    RATE_LIMITED: ClassVar[ErrorCode] = "RATE_LIMITED"
    PROVIDER_ERROR: ClassVar[ErrorCode] = "PROVIDER_ERROR"
    NOT_FOUND: ClassVar[ErrorCode] = "NOT_FOUND"

    def __init__(self, code: ErrorCode, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"StockProviderError({self.code!r}, {self.message!r}, retry_after={self.retry_after!r})"


class StockProvider(Protocol):
    """A stock photo source (docs/api.md, "Stock photos": /v1/media/stock/search and
    /v1/media/source)."""

    key: ProviderKey
    # The only hosts a rendition may be fetched from; the caller refuses any other.
    image_hosts: frozenset[str]

    async def search(self, query: str, *, count: int, orientation: str | None) -> list[StockPhoto]:
        """At most `count` photos for `query`; `orientation` is "landscape", "portrait",
        "square" or None (any)."""
        ...

    async def rendition(self, source_ref: str, *, width: int, height: int) -> Rendition:
        """Looks the photo up and answers a URL for it sized for (width, height)."""
        ...

    async def track_download(self, source_ref: str) -> None:
        """Tells the provider the photo was used, where its rules ask for it (once per call)."""
        ...

    async def aclose(self) -> None: ...


def fitted_box(width: int, height: int, original: tuple[int, int] | None) -> tuple[int, int]:
    """(width, height) scaled down, keeping its aspect ratio, until it fits inside the original:
    a rendition never asks the provider for more pixels than the photo has."""
    if width < 1 or height < 1:
        raise ValueError("a rendition box needs a positive width and height")
    if original is None:
        return width, height
    scale = min(1.0, original[0] / width, original[1] / height)
    if scale >= 1.0:
        return width, height
    return max(1, math.floor(width * scale)), max(1, math.floor(height * scale))


def with_params(url: str, params: dict[str, str]) -> str:
    """`url` with `params` set: every parameter it already has is kept as it is written
    (Unsplash's `ixid`, `ixlib`), one of the same name is replaced, the rest are appended."""
    parts = urlsplit(url)
    pending = dict(params)
    kept = []
    for segment in filter(None, parts.query.split("&")):
        name = unquote_plus(segment.partition("=")[0])
        if name in pending:
            kept.append(urlencode({name: pending.pop(name)}))
        elif name not in params:
            kept.append(segment)
    kept += [urlencode({name: value}) for name, value in pending.items()]
    return urlunsplit(parts._replace(query="&".join(kept)))


def api_orientation(orientation: str | None, values: dict[str, str]) -> str | None:
    """The provider's own value for "landscape", "portrait" or "square" (None: any)."""
    if orientation is None:
        return None
    if orientation not in values:
        raise ValueError(f"orientation must be one of {', '.join(ORIENTATIONS)}, not {orientation!r}")
    return values[orientation]


def per_page(count: int, maximum: int) -> int:
    """`count` within what the provider serves in one page (1 to `maximum`)."""
    return min(max(count, 1), maximum)


def next_hour(now: float | None = None) -> float:
    """Seconds until the next full hour (hourly request limits)."""
    now = time.time() if now is None else now
    return 3600.0 - now % 3600.0


def non_empty_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def positive_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


class JSONProvider:
    """One JSON GET to the provider's API with its auth headers, every failure turned into a
    StockProviderError; a provider module adds its paths, its parsing and `rate_limited`."""

    key: ClassVar[ProviderKey]
    name: ClassVar[str]  # the provider's own name, for messages
    ref_pattern: ClassVar[re.Pattern[str]]  # what a photo id of this provider looks like

    def __init__(
        self,
        *,
        base_url: str,
        headers: dict[str, str],
        secret: str,
        image_hosts: frozenset[str],
        timeout: float,
        client: httpx2.AsyncClient | None,
    ) -> None:
        if not secret:
            raise ValueError(f"{self.name} needs an API key")
        self.base_url = base_url.rstrip("/")
        self.image_hosts = frozenset(host.lower() for host in image_hosts)
        self.timeout = timeout
        self._headers = headers
        self._secret = secret
        self._owns_client = client is None
        self._client = client or httpx2.AsyncClient(
            timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)), follow_redirects=False
        )

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    def check_ref(self, source_ref: str) -> str:
        """The id, when it can be one of this provider's: else NOT_FOUND without asking (an id
        never becomes anything but one path segment)."""
        if not self.ref_pattern.fullmatch(source_ref):
            raise StockProviderError("NOT_FOUND", f"{self.name} has no photo {source_ref[:64]!r}")
        return source_ref

    async def get_json(self, url: str, params: dict[str, str] | None = None, *, what: str, photo: bool = False) -> Any:
        """The parsed JSON of a 2xx answer to GET `url`; `what` names the request in messages."""
        body = await self.get(url, params, what=what, photo=photo)
        try:
            return json.loads(body)
        except ValueError:
            raise self.error("PROVIDER_ERROR", f"{self.name} answered {what} with a body that is not JSON") from None

    async def get(self, url: str, params: dict[str, str] | None = None, *, what: str, photo: bool = False) -> bytes:
        """The body of a 2xx answer; any other answer or failure raises. With `photo`
        (a request about one photo) a 404 is NOT_FOUND; elsewhere it is a PROVIDER_ERROR (a
        wrong base URL)."""
        try:
            # One deadline for the whole answer: a body trickled in would outlast per-read timeouts.
            async with (
                asyncio.timeout(self.timeout),
                self._client.stream("GET", url, params=params, headers=self._headers, timeout=self.timeout) as response,
            ):
                body = await _read_capped(response)
        except (TimeoutError, httpx2.TimeoutException):
            raise self.error("PROVIDER_ERROR", f"{self.name} did not answer {what} within {self.timeout:g}s") from None
        except (httpx2.HTTPError, httpx2.InvalidURL) as error:
            raise self.error("PROVIDER_ERROR", f"{self.name} could not be reached for {what}: {error}") from None
        if body is None:
            raise self.error("PROVIDER_ERROR", f"{self.name} answered {what} with more than {MAX_ANSWER_BYTES} bytes")
        status = response.status_code
        if 200 <= status < 300:
            self.observe(response.headers)
            return body
        text = body[:2000].decode("utf-8", "replace")
        if self.rate_limited(status, text):
            raise self.error("RATE_LIMITED", f"{self.name}'s request limit is reached", self.retry_after(response))
        if status == 404 and photo:
            raise self.error("NOT_FOUND", f"{self.name} has no such photo ({what} answered 404)")
        if status in (401, 403):
            raise self.error("PROVIDER_ERROR", f"{self.name} refused the configured API key ({status}){_detail(text)}")
        raise self.error("PROVIDER_ERROR", f"{self.name} answered {what} with {status}{_detail(text)}")

    def error(self, code: ErrorCode, message: str, retry_after: float | None = None) -> StockProviderError:
        return StockProviderError(code, message.replace(self._secret, "***"), retry_after=retry_after)

    def observe(self, headers: httpx2.Headers) -> None:
        """Reads what a 2xx answer says about the rate limit (Pexels keeps its reset time)."""

    def rate_limited(self, status: int, text: str) -> bool:
        return status == 429

    def retry_after(self, response: httpx2.Response) -> float:
        value = response.headers.get("retry-after", "")
        return float(value) if value.isdigit() else next_hour()


async def _read_capped(response: httpx2.Response) -> bytes | None:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
        return None
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > MAX_ANSWER_BYTES:
            return None
    return bytes(body)


def _detail(text: str) -> str:
    """The provider's own error text where it documents one (Unsplash `{"errors": [...]}`); any
    other body (an HTML error page) is not repeated."""
    try:
        errors = json.loads(text).get("errors")
    except (ValueError, AttributeError):
        return ""
    if not isinstance(errors, list) or not errors:
        return ""
    return ": " + " ".join("; ".join(str(e) for e in errors).split())[:200]
