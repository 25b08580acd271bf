"""Keyset pagination: opaque page tokens and validated page sizes."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from core.errors import ValidationError
from core.rpc.policy import PageBounds


@dataclass(frozen=True, slots=True)
class Page:
    size: int
    after: str | None


def page_request(page_size: int, page_token: str, bounds: PageBounds | None) -> Page:
    """The page a list request asks for, within its method's bounds (MethodPolicy.page)."""
    assert bounds is not None, "a list method declares its page bounds in its policy"
    if page_size < 0 or page_size > bounds.maximum:
        raise ValidationError(
            f"page_size must be between 1 and {bounds.maximum} (0 for the default, {bounds.default})"
        )
    return Page(page_size or bounds.default, decode_token(page_token) if page_token else None)


def encode_token(after: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"after": after}).encode()).decode().rstrip("=")


def decode_token(token: str) -> str:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        after = json.loads(raw)["after"]
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise ValidationError("page_token is malformed") from None
    if not isinstance(after, str) or not after or len(after) > 200:
        raise ValidationError("page_token is malformed")
    return after


def next_token(keys: list[str], size: int) -> str:
    """Given up to size+1 keys fetched, the token for the page after the first `size`."""
    return encode_token(keys[size - 1]) if len(keys) > size else ""
