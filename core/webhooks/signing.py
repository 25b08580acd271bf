"""Standard Webhooks (https://www.standardwebhooks.com) signing: the body Herald POSTs and the
three headers that let a receiver check it came from Herald, unaltered, recently.

- `webhook-id`: the event's id, the same on every retry and replay (receivers deduplicate on it);
- `webhook-timestamp`: Unix seconds of this attempt (receivers refuse old ones: replay attacks);
- `webhook-signature`: `v1,<base64 HMAC-SHA256(secret, "{id}.{timestamp}.{body}")>`, one per
  signing secret, space-separated (after a rotation, the new and the previous secret).

The secret's key is the base64 after `whsec_` (core/webhooks/service.py makes them).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime
from typing import Any

SECRET_PREFIX = "whsec_"


def event_body(event_type: str, timestamp: datetime, data: dict[str, Any]) -> bytes:
    """The delivered JSON: `{"type", "timestamp", "data"}` (timestamp UTC, milliseconds, Z)."""
    when = timestamp.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return json.dumps({"type": event_type, "timestamp": when, "data": data}, separators=(",", ":")).encode()


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError("a webhook secret starts with whsec_")
    key = base64.b64decode(secret[len(SECRET_PREFIX) :])
    digest = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(secrets: list[str], message_id: str, sent_at: datetime, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt, signed with each of `secrets` (current first)."""
    if not secrets:
        raise ValueError("at least one signing secret")
    timestamp = int(sent_at.timestamp())
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signature(s, message_id, timestamp, body) for s in secrets),
    }
