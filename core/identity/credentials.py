"""API key format: `svc_` + a 16-character public key id + a 43-character secret.

The key id is stored in clear and indexed, so a request costs one indexed lookup; the whole
key is stored only as its SHA-256 and compared in constant time. 32 random bytes (256 bits)
of secret make a salted slow hash unnecessary: there is nothing to brute-force.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

API_KEY_PREFIX = "svc_"
_KEY_ID_LENGTH = 16
_SECRET_BYTES = 32
_SECRET_LENGTH = 43  # base64url of 32 bytes, unpadded
_KEY_RE = re.compile(rf"^svc_([A-Za-z0-9]{{{_KEY_ID_LENGTH}}})([A-Za-z0-9_-]{{{_SECRET_LENGTH}}})$")
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


@dataclass(frozen=True, slots=True)
class MintedKey:
    secret: str
    key_id: str
    secret_hash: str
    display_prefix: str


def mint_api_key() -> MintedKey:
    key_id = "".join(secrets.choice(_ALNUM) for _ in range(_KEY_ID_LENGTH))
    body = base64.urlsafe_b64encode(secrets.token_bytes(_SECRET_BYTES)).rstrip(b"=").decode()
    secret = f"{API_KEY_PREFIX}{key_id}{body}"
    return MintedKey(secret, key_id, hash_secret(secret), f"{API_KEY_PREFIX}{key_id[:8]}")


def parse_api_key(secret: str) -> str | None:
    """Returns the key id of a well-formed API key, None for anything else."""
    match = _KEY_RE.match(secret)
    return match.group(1) if match else None


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_secret(secret), stored_hash)
