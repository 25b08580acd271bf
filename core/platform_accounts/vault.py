"""Platform tokens sealed at rest: AES-256-GCM under a key from settings, bound to their row.

A sealed value is `v1.<key id>.<base64url(nonce ‖ ciphertext ‖ tag)>`. The associated data names
what the token belongs to (the profile's id and which token it is), so a sealed value copied into
another row, or from the access into the refresh column, does not open: whoever can write the
database still cannot make one profile post with another's account.

Keys come from HERALD_PLATFORM_TOKEN_KEYS, `<id>:<base64url 32 bytes>` separated by commas, the
first sealing and every one opening (key rotation: add the new key first, run `herald admin
reseal-tokens`, then drop the old one). Empty means one key (id `local`) generated at first use
into HERALD_PLATFORM_TOKEN_KEYS_FILE, else `{data_dir}/platform-token.key`: mode 0600, refused
when other users may read or write it (core/keyfiles.py). Keep that file out of the database's
backups (docs/operations.md, "Keys and backups"). Keys and tokens are never logged; a `Secret`
value's repr hides it.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from core.keyfiles import load_or_create_key_file
from core.settings import CoreSettings

KEY_FILE = "platform-token.key"
LOCAL_KEY_ID = "local"  # the id of the generated key
KEY_BYTES = 32
NONCE_BYTES = 12
_FORMAT = "v1"
_KEY_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class VaultError(Exception):
    """A sealed value that does not open: unknown key, tampered, or sealed for another row."""


@dataclass(frozen=True, slots=True)
class Secret:
    """A token in memory. Its repr never shows the value (a log line or a traceback that prints
    the object shows `Secret(***)`)."""

    value: str = field(repr=False)

    def __repr__(self) -> str:
        return "Secret(***)"


class TokenVault:
    def __init__(self, keys: list[tuple[str, bytes]]) -> None:
        if not keys:
            raise ValueError("the token vault needs at least one key")
        for key_id, key in keys:
            if not _KEY_ID.match(key_id) or len(key) != KEY_BYTES:
                raise ValueError(f"a platform token key is `<id>:<base64url {KEY_BYTES} bytes>`, id of [A-Za-z0-9_-]")
        if len({key_id for key_id, _ in keys}) != len(keys):
            raise ValueError("platform token key ids must be distinct")
        self.current_key_id = keys[0][0]
        self._ciphers = {key_id: AESGCM(key) for key_id, key in keys}

    @classmethod
    def from_settings(cls, settings: CoreSettings) -> TokenVault:
        configured = settings.platform_token_keys.get_secret_value().strip()
        if not configured:
            return cls([(LOCAL_KEY_ID, load_or_create_key_file(key_file_path(settings)))])
        return cls([_parse_key(entry) for entry in configured.split(",") if entry.strip()])

    def seal(self, plaintext: str, *, bound_to: str) -> str:
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._ciphers[self.current_key_id].encrypt(nonce, plaintext.encode(), _aad(bound_to))
        body = base64.urlsafe_b64encode(nonce + sealed).rstrip(b"=").decode()
        return f"{_FORMAT}.{self.current_key_id}.{body}"

    def open(self, sealed: str, *, bound_to: str) -> Secret:
        key_id, raw = self._split(sealed)
        try:
            plain = self._ciphers[key_id].decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], _aad(bound_to))
        except InvalidTag:
            raise VaultError("a sealed token does not open (tampered, or sealed for another row)") from None
        return Secret(plain.decode())

    def needs_reseal(self, sealed: str) -> bool:
        return self._split(sealed)[0] != self.current_key_id

    def reseal(self, sealed: str, *, bound_to: str) -> str:
        """The same token sealed under the current key (rotation)."""
        return self.seal(self.open(sealed, bound_to=bound_to).value, bound_to=bound_to)

    def _split(self, sealed: str) -> tuple[str, bytes]:
        parts = sealed.split(".")
        if len(parts) != 3 or parts[0] != _FORMAT:
            raise VaultError("not a sealed token")
        key_id, body = parts[1], parts[2]
        if key_id not in self._ciphers:
            raise VaultError(f"sealed with key {key_id!r}, which is not configured")
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        except (binascii.Error, ValueError):
            raise VaultError("not a sealed token") from None
        if len(raw) < NONCE_BYTES + 16:
            raise VaultError("not a sealed token")
        return key_id, raw


def _aad(bound_to: str) -> bytes:
    return f"herald-platform-token:{bound_to}".encode()


def _parse_key(entry: str) -> tuple[str, bytes]:
    key_id, _, encoded = entry.strip().partition(":")
    try:
        key = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    except (binascii.Error, ValueError):
        key = b""
    return key_id, key


def key_file_path(settings: CoreSettings) -> Path:
    """Where the generated key lives: HERALD_PLATFORM_TOKEN_KEYS_FILE, else beside the database."""
    return (
        Path(settings.platform_token_keys_file) if settings.platform_token_keys_file else settings.data_dir / KEY_FILE
    )


def new_key_entry(key_id: str) -> str:
    """A fresh `<id>:<key>` entry for HERALD_PLATFORM_TOKEN_KEYS."""
    return f"{key_id}:{base64.urlsafe_b64encode(os.urandom(KEY_BYTES)).rstrip(b'=').decode()}"
