"""Opaque bearer tokens: a type prefix and 32 random bytes, stored only as their SHA-256.

256 bits of randomness make a salted slow hash unnecessary (nothing to brute-force) and let a
token be found by its hash with one indexed lookup. The prefixes tell the kinds apart at a
glance, in logs of leaked-secret scanners and at the surfaces that accept only one kind.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass

SESSION_PREFIX = "hss_"
ACCESS_TOKEN_PREFIX = "hoa_"
REFRESH_TOKEN_PREFIX = "hor_"
AUTHORIZATION_CODE_PREFIX = "hac_"
CLIENT_SECRET_PREFIX = "hcs_"
_BYTES = 32


@dataclass(frozen=True, slots=True)
class MintedToken:
    token: str
    token_hash: str


def mint_token(prefix: str) -> MintedToken:
    token = prefix + base64.urlsafe_b64encode(secrets.token_bytes(_BYTES)).rstrip(b"=").decode()
    return MintedToken(token, hash_token(token))


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
