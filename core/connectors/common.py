"""Helpers the platform connectors share: placeholders, body descriptions, error-body reading.

Placeholders. A connector builds every request before any is sent, so a value that only an
earlier response can supply is written as a placeholder that the live sender substitutes
(the sandbox outbox records them as they are):

- ``{media:<media_id>}``: the platform's id for one of our media (X media id, Mastodon
  attachment id, Bluesky blob CID, LinkedIn image/video URN, Threads/Instagram carousel item
  container id), returned by that media's upload steps in ``media_requests``. When
  ``OutgoingMedia.platform_media_id`` is already set, that id is used instead and no upload
  request is built for the media.
- ``{upload_url:<media_id>}``: an upload URL or session URI returned for that media.
- ``{upload_token:<media_id>}``, ``{part_ids:<media_id>}``, ``{job:<media_id>}``: other
  per-media values returned by an upload step (LinkedIn video token and ETags, Bluesky job id).
- ``{creation_id}`` / ``{publish_id}``: the container or publish id the post's create request
  returned (Threads, Instagram / TikTok).
- ``{created_at}``: the send time as ISO 8601 UTC with a ``Z`` (a record's own timestamp).
- ``{expires_at}``: epoch seconds 30 minutes after the send time.
- ``{platform_user_id}``: the connected account's platform id, when the profile has none yet.

A JSON string that is exactly one placeholder is replaced by the value whatever its type (for
``{part_ids:…}``, a list). Bodies that are not JSON go in ``PlatformRequest.form``: a multipart
or form field holding a file has the media URL its bytes are streamed from as its value, and a
raw body is described as ``{"bytes_from": <media URL>}``.
"""

from __future__ import annotations

import json
from typing import Any

from core.connectors.base import DeliveryError, ErrorClass, OutgoingMedia, OutgoingPost

JSON = {"Content-Type": "application/json"}
JSON_UTF8 = {"Content-Type": "application/json; charset=UTF-8"}
MULTIPART = {"Content-Type": "multipart/form-data"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}

CREATED_AT = "{created_at}"
CREATION_ID = "{creation_id}"
PUBLISH_ID = "{publish_id}"
EXPIRES_AT = "{expires_at}"
PLATFORM_USER_ID = "{platform_user_id}"


def placeholder(kind: str, media: OutgoingMedia) -> str:
    return f"{{{kind}:{media.media_id}}}"


def media_ref(media: OutgoingMedia) -> str:
    """The platform's id for `media`: the real one once known, else its placeholder."""
    return media.platform_media_id or placeholder("media", media)


def pending_media(post: OutgoingPost) -> list[OutgoingMedia]:
    """The post's media not yet on the platform (the ones `media_requests` must upload)."""
    return [m for m in post.media if not m.platform_media_id]


def raw_body(media: OutgoingMedia) -> dict[str, Any]:
    return {"bytes_from": media.url}


def user_id(post: OutgoingPost) -> str:
    return post.account.platform_user_id or PLATFORM_USER_ID


def base_url(configured: str, default: str) -> str:
    """An instance/PDS base URL without a trailing slash; a bare host gets https://."""
    url = (configured or default).strip().rstrip("/")
    return url if "://" in url else f"https://{url}"


def refusal(message: str, code: str = "UNSUPPORTED_POST") -> DeliveryError:
    """A post the platform cannot take as it is (e.g. no media where media is required): building
    its requests fails the same way the platform would, permanently."""
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
