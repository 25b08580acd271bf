"""HMAC-SHA256 signatures of the local backend's upload and read URLs
(docs/decisions.md, "Upload URLs point at object storage").

An upload signature covers the method (PUT), the object key, the content type, the declared size
and the expiry (unix seconds), so changing any of them invalidates the URL. A read signature covers
the method (GET), the key and the expiry. Each kind signs its own context string first
(`herald-upload-v1`, `herald-read-v1`), so a signature of one kind is never valid as the other,
whatever the parameters. Verification is constant-time.

The key comes from HERALD_STORAGE_SIGNING_KEY, or else from `{data_dir}/storage-signing.key`: 32
random bytes (hex) created once, atomically, so the core and storage processes started together
agree on it; mode 0600, and refused when other users may read or write it (core/keyfiles.py).
The key is never logged.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import time
from enum import Enum

from core.keyfiles import load_or_create_key_file
from core.settings import CoreSettings

KEY_FILE = "storage-signing.key"
MIN_CONFIGURED_KEY = 16
_CONTEXT = "herald-upload-v1"
_READ_CONTEXT = "herald-read-v1"


class Verdict(Enum):
    VALID = "valid"
    INVALID = "invalid"  # tampered, malformed or signed with another key
    EXPIRED = "expired"  # authentic, but past its expiry


def signing_key(settings: CoreSettings) -> bytes:
    configured = settings.storage_signing_key.get_secret_value()
    if configured:
        if len(configured) < MIN_CONFIGURED_KEY:
            raise ValueError(f"HERALD_STORAGE_SIGNING_KEY must be at least {MIN_CONFIGURED_KEY} characters")
        return configured.encode()
    return load_or_create_key_file(settings.data_dir / KEY_FILE)


def _message(key: str, content_type: str, size: int, expires: int) -> bytes:
    # JSON keeps the fields unambiguous whatever characters they contain.
    return json.dumps([_CONTEXT, "PUT", key, content_type, size, expires], separators=(",", ":")).encode()


def sign(secret: bytes, key: str, content_type: str, size: int, expires: int) -> str:
    digest = hmac.new(secret, _message(key, content_type, size, expires), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _expiry(expires_in: int) -> int:
    """The whole second a URL expires at: at least `expires_in` seconds from now (rounding down
    the clock could leave a 1 s URL valid for a millisecond)."""
    return math.ceil(time.time() + expires_in)


def signed_query(secret: bytes, key: str, content_type: str, size: int, expires_in: int) -> dict[str, str]:
    expires = _expiry(expires_in)
    return {
        "size": str(size),
        "type": content_type,
        "expires": str(expires),
        "sig": sign(secret, key, content_type, size, expires),
    }


def _read_message(key: str, expires: int) -> bytes:
    return json.dumps([_READ_CONTEXT, "GET", key, expires], separators=(",", ":")).encode()


def sign_read(secret: bytes, key: str, expires: int) -> str:
    digest = hmac.new(secret, _read_message(key, expires), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def signed_read_query(secret: bytes, key: str, expires_in: int) -> dict[str, str]:
    expires = _expiry(expires_in)
    return {"expires": str(expires), "sig": sign_read(secret, key, expires)}


def _int(value: str | None) -> int | None:
    """A canonical non-negative integer (no sign, no leading zero), else None."""
    if value is None or not value.isascii() or not value.isdigit() or len(value) > 19 or str(int(value)) != value:
        return None
    return int(value)


def verify(
    secret: bytes,
    key: str,
    *,
    size: str | None,
    content_type: str | None,
    expires: str | None,
    sig: str | None,
    now: float | None = None,
) -> Verdict:
    """Checks the signature first (constant time), then the expiry: a tampered URL is INVALID even
    when it is also expired."""
    size_n, expires_n = _int(size), _int(expires)
    if size_n is None or expires_n is None or content_type is None or not sig or not sig.isascii():
        return Verdict.INVALID
    if not hmac.compare_digest(sig.encode(), sign(secret, key, content_type, size_n, expires_n).encode()):
        return Verdict.INVALID
    if (time.time() if now is None else now) >= expires_n:
        return Verdict.EXPIRED
    return Verdict.VALID


def verify_read(secret: bytes, key: str, *, expires: str | None, sig: str | None, now: float | None = None) -> Verdict:
    """A read URL's signature, then its expiry (like `verify`)."""
    expires_n = _int(expires)
    if expires_n is None or not sig or not sig.isascii():
        return Verdict.INVALID
    if not hmac.compare_digest(sig.encode(), sign_read(secret, key, expires_n).encode()):
        return Verdict.INVALID
    if (time.time() if now is None else now) >= expires_n:
        return Verdict.EXPIRED
    return Verdict.VALID
