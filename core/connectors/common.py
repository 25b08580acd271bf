"""Helpers the platform connectors share: headers, answers' fields, error classes, polling."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from typing import Any

from core.connectors.base import (
    Connector,
    DeliveryError,
    ErrorClass,
    PlatformAPI,
    PlatformRequest,
    PlatformResponse,
    answer,
)

JSON = {"Content-Type": "application/json"}
JSON_UTF8 = {"Content-Type": "application/json; charset=UTF-8"}


def base_url(configured: str, default: str) -> str:
    """An instance/PDS base URL without a trailing slash; a bare host gets https://."""
    url = (configured or default).strip().rstrip("/")
    return url if "://" in url else f"https://{url}"


def refusal(message: str, code: str = "UNSUPPORTED_POST") -> DeliveryError:
    """A post the platform cannot take as it is (e.g. no media where media is required): it
    fails the way the platform would refuse it, permanently, before anything is sent."""
    return DeliveryError(ErrorClass.PERMANENT, message, code=code)


def dig(body: Any, *path: str | int) -> Any:
    """`body[path[0]][path[1]]…`, or None when any step is missing or of the wrong type."""
    for step in path:
        if isinstance(body, dict) and isinstance(step, str):
            body = body.get(step)
        elif isinstance(body, list) and isinstance(step, int) and -len(body) <= step < len(body):
            body = body[step]
        else:
            return None
    return body


def required(response: PlatformResponse, *path: str | int) -> str:
    """A field the platform's answer must carry (an id): its string, or a retryable error when a
    malformed answer lacks it (nothing of ours is lost by asking again)."""
    value = dig(response.body, *path)
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        where = ".".join(str(p) for p in path)
        raise DeliveryError(ErrorClass.RETRYABLE, f"the platform's answer ({response.status}) has no {where}")
    return str(value)


def body_text(body: Any) -> str:
    """The body as lower-case text for substring checks; never raises."""
    try:
        if isinstance(body, bytes):
            return body.decode("utf-8", "replace").lower()
        if isinstance(body, str):
            return body.lower()
        return json.dumps(body, default=str).lower()
    except Exception:  # a body we cannot render holds no code we could match
        return ""


def status_class(status: int) -> ErrorClass:
    """The classification from the HTTP status alone, once no platform code has decided.

    Throttling, timeouts and server errors are worth retrying; 401 means the token is no longer
    accepted; any other answer refuses this post as it is."""
    if status in (408, 429) or status >= 500:
        return ErrorClass.RETRYABLE
    if status == 401:
        return ErrorClass.NEEDS_REAUTH
    return ErrorClass.PERMANENT


def as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


GRAPH_THROTTLE_CODES = frozenset({4, 17, 32, 613})


def graph_classify(status: int, body: Any, retryable: frozenset[tuple[int, int]] = frozenset()) -> ErrorClass:
    """Meta's Graph error envelope `{"error": {message, type, code, error_subcode, is_transient}}`
    (Threads, Instagram): code 190 is a dead token, codes 4/17/32/613 are throttling, and
    `retryable` lists the platform's (code, subcode) pairs that clear with time."""
    code = as_int(dig(body, "error", "code"))
    subcode = as_int(dig(body, "error", "error_subcode"))
    if code == 190:
        return ErrorClass.NEEDS_REAUTH
    if code in GRAPH_THROTTLE_CODES or (code, subcode) in retryable or dig(body, "error", "is_transient") is True:
        return ErrorClass.RETRYABLE
    return status_class(status)


async def poll(
    connector: Connector,
    api: PlatformAPI,
    request: PlatformRequest,
    *,
    done: Callable[[PlatformResponse], bool],
    failed: Callable[[PlatformResponse], str | None],
    what: str,
    expect: Collection[int] = (200,),
    seconds: float | None = None,
) -> PlatformResponse:
    """Asks about something the platform processes until `done` (returns that answer) or
    `failed` names why it failed (permanently). After `connector.poll_limit` polls the attempt
    ends as retryable: the progress saved lets the next attempt poll again instead of redoing."""
    for _ in range(connector.poll_limit):
        response = await api.send(request, expect=expect)
        reason = failed(response)
        if reason:
            raise DeliveryError(ErrorClass.PERMANENT, f"{what} failed: {reason}", status=response.status)
        if done(response):
            return response
        await api.wait(connector.poll_seconds if seconds is None else seconds)
    raise DeliveryError(ErrorClass.RETRYABLE, f"{what} is still being processed after {connector.poll_limit} polls")


def uploaded(api: PlatformAPI, media_id: str, key: str = "media") -> str | None:
    """The platform's id of one of our media, when an earlier step saved it."""
    value = dig(dict(api.state), key, media_id)
    return value if isinstance(value, str) else None


async def remember_upload(api: PlatformAPI, media_id: str, platform_id: str, key: str = "media") -> None:
    saved = dict(api.state.get(key) or {})
    saved[media_id] = platform_id
    await api.save(**{key: saved})


def sent_at(api: PlatformAPI) -> datetime | None:
    """When the request creating the post was sent, per the saved progress."""
    value = api.state.get("create_sent_at")
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def same_text(published: str, ours: str) -> bool:
    """Whether a platform's copy of a text is ours: compared after Unicode normalisation with
    runs of whitespace collapsed (platforms trim and normalise line ends)."""

    def norm(text: str) -> str:
        return " ".join(unicodedata.normalize("NFC", text).split())

    return norm(published) == norm(ours)


def ok(body: Any = None, status: int = 200, **headers: str) -> PlatformResponse:
    """A sandbox answer."""
    return answer(status, body, headers)
