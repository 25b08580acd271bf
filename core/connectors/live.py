"""The live API (HERALD_PUBLISH_MODE=live): a connector's requests go to the platform with the
profile's token; media bytes stream from object storage, never whole in memory.

Outcomes, as the publisher needs them (docs/live-publishing.md):
- an answer in `expect` is returned; any other is classified by the connector. A dead token
  (`NEEDS_REAUTH`) is refreshed once and the request sent again; a refresh that fails for good
  raises `NEEDS_REAUTH`.
- `Retry-After` (seconds or an HTTP date) and the platforms' rate-limit headers (X's
  `x-rate-limit-*`, Bluesky's `ratelimit-*`, Mastodon's `x-ratelimit-*`) are read on every
  answer: `throttled_until` is when this account may be sent to again.
- transport failures: nothing was sent (no connection) is retryable; a failure after the request
  went out is retryable too, except for the request that creates the post, which is
  `UNCERTAIN`: before it is sent, `create_sent_at` is saved with the progress, so the next
  attempt reconciles first. A definite refusal of that request (4xx) removes the mark again.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import secrets
import time
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import httpx2

from core.connectors.base import (
    Connector,
    DeliveryError,
    ErrorClass,
    LeaseLost,
    MediaBytes,
    PlatformRequest,
    PlatformResponse,
)
from core.connectors.common import body_text, dig
from core.db.types import utcnow

# Extend the lease while streaming a large body, at most this often (seconds).
KEEPALIVE_SECONDS = 15.0
_NOT_SENT = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout, httpx2.UnsupportedProtocol)


class TokenSource(Protocol):
    """The profile's access token, and how to get a new one when the platform refuses it."""

    def authorization(self, scheme: str) -> str: ...

    async def refresh(self) -> None:
        """Replaces the access token; raises DeliveryError(NEEDS_REAUTH) when it cannot."""
        ...


class Progress(Protocol):
    async def save(self, state: Mapping[str, Any]) -> None:
        """Stores the delivery's progress, fenced on this worker's lease (LeaseLost if not),
        and extends the lease."""
        ...

    async def keepalive(self) -> None:
        """Extends the lease (LeaseLost when it is no longer ours)."""
        ...


# (storage key, start, end, pinned generation) -> the bytes [start, end) of that object
MediaReader = Callable[[str, int, int | None, int | None], AsyncIterator[bytes]]


class LiveAPI:
    live = True

    def __init__(
        self,
        client: httpx2.AsyncClient,
        connector: Connector,
        token: TokenSource,
        read_media: MediaReader,
        progress: Progress,
        state: Mapping[str, Any],
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.client = client
        self.connector = connector
        self.token = token
        self.read_media = read_media
        self.progress = progress
        self.state: dict[str, Any] = dict(state)
        self.now = now
        self.requests: list[dict[str, Any]] = []
        self.throttled_until: datetime | None = None

    async def send(self, request: PlatformRequest, *, expect: Collection[int] = (200, 201)) -> PlatformResponse:
        if request.creates_post:
            await self.save(create_sent_at=self.now().isoformat())
        self.requests.append(request.as_dict())
        refreshed = False
        while True:
            try:
                response = await self._exchange(request)
            except LeaseLost:
                raise
            except _NOT_SENT as error:
                if request.creates_post:
                    await self.save(create_sent_at=None)
                raise DeliveryError(ErrorClass.RETRYABLE, f"{_host(request)} did not answer: {error}") from None
            except httpx2.HTTPError as error:
                error_class = ErrorClass.UNCERTAIN if request.creates_post else ErrorClass.RETRYABLE
                raise DeliveryError(error_class, f"{_host(request)}: {type(error).__name__} {error}") from None
            self._observe_limits(response)
            if response.status in expect:
                return response
            error_class = self.connector.classify(response.status, response.body)
            if error_class is ErrorClass.NEEDS_REAUTH and request.auth and not refreshed:
                if request.creates_post:
                    # Refused: nothing was made. A refresh that fails ends the attempt with no
                    # uncertainty left; the request sent again is marked again.
                    await self.save(create_sent_at=None)
                await self.token.refresh()
                refreshed = True
                if request.creates_post:
                    await self.save(create_sent_at=self.now().isoformat())
                continue
            if request.creates_post and response.status < 500:
                await self.save(create_sent_at=None)
            if request.creates_post and response.status >= 500 and error_class is ErrorClass.RETRYABLE:
                error_class = ErrorClass.UNCERTAIN  # a server error after the post may have been made
            raise DeliveryError(
                error_class,
                f"{response.status} from {request.method} {_path(request)}: {_message(response.body)}",
                status=response.status,
                code=_code(response.body),
                retry_after=self._retry_after(response),
            )

    async def save(self, **progress: Any) -> None:
        for key, value in progress.items():
            if value is None:
                self.state.pop(key, None)
            else:
                self.state[key] = value
        await self.progress.save(self.state)

    async def wait(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        await self.progress.keepalive()

    async def fetch(self, url: str, *, max_bytes: int) -> PlatformResponse | None:
        try:
            async with self.client.stream("GET", url, follow_redirects=True) as response:
                if response.status_code != 200:
                    return None
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > max_bytes:
                    return None
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > max_bytes:
                        return None
                headers = {k.lower(): v for k, v in response.headers.items()}
        except (httpx2.HTTPError, httpx2.InvalidURL, ValueError):
            return None
        return PlatformResponse(200, headers, bytes(body))

    async def _exchange(self, request: PlatformRequest) -> PlatformResponse:
        headers = dict(request.headers)
        if request.bearer:
            headers["Authorization"] = f"Bearer {request.bearer}"
        elif request.auth:
            headers["Authorization"] = self.token.authorization(request.auth)
        kwargs: dict[str, Any] = {}
        if request.json is not None:
            kwargs["content"] = json.dumps(request.json, ensure_ascii=False).encode()
            headers.setdefault("Content-Type", "application/json")
        elif request.form is not None:
            kwargs["data"] = request.form
            headers.pop("Content-Type", None)
        elif request.multipart is not None:
            content_type, length, body = self._multipart(request.multipart)
            headers["Content-Type"] = content_type
            headers["Content-Length"] = str(length)
            kwargs["content"] = body
        elif isinstance(request.content, MediaBytes):
            headers["Content-Length"] = str(request.content.length)
            kwargs["content"] = self._stream(request.content)
        elif request.content is not None:
            kwargs["content"] = request.content
        built = self.client.build_request(request.method, request.url, headers=headers, **kwargs)
        response = await self.client.send(built)
        return PlatformResponse(
            response.status_code, {k.lower(): v for k, v in response.headers.items()}, _decode(response)
        )

    def _multipart(self, fields: Mapping[str, str | MediaBytes]) -> tuple[str, int, AsyncIterator[bytes]]:
        boundary = secrets.token_hex(16)
        parts: list[bytes | MediaBytes] = []
        for name, value in fields.items():
            if isinstance(value, MediaBytes):
                extension = value.media.mime_type.rsplit("/", 1)[-1]
                parts.append(
                    f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                    f'filename="{value.media.media_id}.{extension}"\r\n'
                    f"Content-Type: {value.media.mime_type}\r\n\r\n".encode()
                )
                parts.append(value)
                parts.append(b"\r\n")
            else:
                parts.append(
                    f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
                )
        parts.append(f"--{boundary}--\r\n".encode())
        length = sum(p.length if isinstance(p, MediaBytes) else len(p) for p in parts)

        async def body() -> AsyncIterator[bytes]:
            for part in parts:
                if isinstance(part, MediaBytes):
                    async for chunk in self._stream(part):
                        yield chunk
                else:
                    yield part

        return f"multipart/form-data; boundary={boundary}", length, body()

    async def _stream(self, body: MediaBytes) -> AsyncIterator[bytes]:
        last = time.monotonic()
        media = body.media
        async for chunk in self.read_media(media.storage_key, body.start, body.end, media.storage_generation):
            yield chunk
            if time.monotonic() - last > KEEPALIVE_SECONDS:
                await self.progress.keepalive()
                last = time.monotonic()

    def _observe_limits(self, response: PlatformResponse) -> None:
        for prefix in ("x-rate-limit-", "ratelimit-", "x-ratelimit-"):
            remaining = response.header(prefix + "remaining")
            reset = response.header(prefix + "reset")
            if remaining is not None and remaining.strip() == "0" and reset:
                until = _reset_time(reset, self.now())
                if until is not None:
                    self._throttle(until)
                return

    def _retry_after(self, response: PlatformResponse) -> float | None:
        value = response.header("retry-after")
        if value is None:
            if response.status == 429 and self.throttled_until is not None:
                return max(0.0, (self.throttled_until - self.now()).total_seconds())
            return None
        now = self.now()
        if value.strip().isdigit():
            seconds = float(value.strip())
        else:
            try:
                seconds = (email.utils.parsedate_to_datetime(value) - now).total_seconds()
            except (TypeError, ValueError):
                return None
        seconds = max(0.0, seconds)
        self._throttle(now + timedelta(seconds=seconds))
        return seconds

    def _throttle(self, until: datetime) -> None:
        if self.throttled_until is None or until > self.throttled_until:
            self.throttled_until = until


def _reset_time(value: str, now: datetime) -> datetime | None:
    """A rate-limit reset: epoch seconds (X, Bluesky), a delta in seconds, or ISO 8601 (Mastodon)."""
    value = value.strip()
    if value.isdigit():
        number = int(value)
        if number > 1_000_000_000:
            return datetime.fromtimestamp(number, UTC)
        return now + timedelta(seconds=number)
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _decode(response: httpx2.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text[:4000]


def _message(body: Any) -> str:
    """The platform's own message, short: what failure_detail and platform_error keep."""
    for path in (
        ("error", "message"),
        ("detail",),
        ("message",),
        ("error_description",),
        ("error",),
        ("errors", 0, "message"),
        ("errors", 0),
        ("title",),
    ):
        value = dig(body, *path)
        if isinstance(value, str) and value:
            return value[:500]
    return body_text(body)[:500]


def _code(body: Any) -> str:
    for path in (("error", "code"), ("code",), ("error",), ("error", "errors", 0, "reason"), ("title",)):
        value = dig(body, *path)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            return str(value)[:64]
    return ""


def _host(request: PlatformRequest) -> str:
    return httpx2.URL(request.url).host or request.url


def _path(request: PlatformRequest) -> str:
    url = httpx2.URL(request.url)
    return f"{url.host}{url.path}"
