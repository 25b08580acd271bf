"""Platform tokens sealed at rest (core/platform_accounts/vault.py): AES-GCM bound to their row and
field, key rotation, nothing of the token in a repr; the generated key file (core/keyfiles.py):
where it lives, its mode, and a file other users may read or write refused."""

from __future__ import annotations

import os
import re

import pytest

from core.keyfiles import KeyFileError
from core.platform_accounts.vault import Secret, TokenVault, VaultError, new_key_entry
from core.settings import CoreSettings
from core.storage import signing


def vault(*entries: str) -> TokenVault:
    return TokenVault.from_settings(CoreSettings(platform_token_keys=",".join(entries)))


K1, K2 = new_key_entry("k1"), new_key_entry("k2")


def test_a_sealed_token_opens_only_for_its_row_and_field() -> None:
    v = vault(K1)
    sealed = v.seal("tok-123", bound_to="prf_1:access")
    assert sealed.startswith("v1.k1.") and "tok-123" not in sealed
    assert v.open(sealed, bound_to="prf_1:access").value == "tok-123"
    for other in ("prf_2:access", "prf_1:refresh"):
        with pytest.raises(VaultError):
            v.open(sealed, bound_to=other)


def test_sealing_twice_gives_different_ciphertexts() -> None:
    v = vault(K1)
    assert v.seal("same", bound_to="a") != v.seal("same", bound_to="a")


@pytest.mark.parametrize("tamper", [lambda s: s[:-2] + ("A" if s[-2] != "A" else "B") + s[-1], lambda s: s + "x"])
def test_tampering_is_detected(tamper) -> None:
    v = vault(K1)
    with pytest.raises(VaultError):
        v.open(tamper(v.seal("tok", bound_to="a")), bound_to="a")


@pytest.mark.parametrize("bad", ["", "plain", "v1.k1", "v2.k1.abc", "v1.k1.!!!", "v1.k1.AAAA"])
def test_what_is_not_a_sealed_token_is_refused(bad: str) -> None:
    with pytest.raises(VaultError):
        vault(K1).open(bad, bound_to="a")


def test_rotation_old_key_opens_new_key_seals_and_reseal_moves_it() -> None:
    old = vault(K1)
    sealed = old.seal("tok", bound_to="a")
    rotated = vault(K2, K1)
    assert rotated.open(sealed, bound_to="a").value == "tok"
    assert rotated.needs_reseal(sealed)
    moved = rotated.reseal(sealed, bound_to="a")
    assert moved.startswith("v1.k2.") and not rotated.needs_reseal(moved)
    with pytest.raises(VaultError):  # once the old key is gone, only resealed values open
        vault(K2).open(sealed, bound_to="a")
    assert vault(K2).open(moved, bound_to="a").value == "tok"


@pytest.mark.parametrize(
    "entry", ["k1", "k1:short", "bad id:" + K1.split(":")[1], f"{K1},{K1}"], ids=["no-key", "short", "bad-id", "twice"]
)
def test_malformed_keys_are_refused_at_start(entry: str) -> None:
    with pytest.raises(ValueError):
        vault(entry)


def test_without_configured_keys_a_key_file_is_made_once(tmp_path) -> None:
    settings = CoreSettings(data_dir=tmp_path)
    first = TokenVault.from_settings(settings)
    sealed = first.seal("tok", bound_to="a")
    assert (tmp_path / "platform-token.key").stat().st_mode & 0o777 == 0o600
    assert TokenVault.from_settings(settings).open(sealed, bound_to="a").value == "tok"


def test_a_secret_never_shows_its_value() -> None:
    secret = Secret("tok-123")
    assert "tok-123" not in repr(secret) and "tok-123" not in str(secret) and "tok-123" not in f"{[secret]}"


def test_a_key_file_at_a_separate_location_is_made_there_0600(tmp_path) -> None:
    """HERALD_PLATFORM_TOKEN_KEYS_FILE keeps the key out of the data directory (and its backups)."""
    data, keys = tmp_path / "data", tmp_path / "secrets" / "platform.key"
    settings = CoreSettings(data_dir=data, platform_token_keys_file=str(keys))
    sealed = TokenVault.from_settings(settings).seal("tok", bound_to="a")
    assert keys.stat().st_mode & 0o777 == 0o600
    assert not (data / "platform-token.key").exists()
    assert TokenVault.from_settings(settings).open(sealed, bound_to="a").value == "tok"
    # The key is the file's: a vault from the data directory's (new) key does not open it.
    with pytest.raises(VaultError):
        TokenVault.from_settings(CoreSettings(data_dir=data)).open(sealed, bound_to="a")


@pytest.mark.parametrize("mode", [0o644, 0o604, 0o602, 0o666, 0o601])
def test_a_key_file_other_users_may_read_or_write_is_refused(tmp_path, mode: int) -> None:
    path = tmp_path / "platform.key"
    settings = CoreSettings(data_dir=tmp_path / "data", platform_token_keys_file=str(path))
    TokenVault.from_settings(settings)
    path.chmod(mode)
    with pytest.raises(KeyFileError, match=re.escape(f"chmod 600 {path}")):
        TokenVault.from_settings(settings)
    path.chmod(0o640)  # a group of its own is the operator's call
    TokenVault.from_settings(settings)


def test_the_storage_signing_key_file_gets_the_same_check(tmp_path) -> None:
    settings = CoreSettings(data_dir=tmp_path)
    signing.signing_key(settings)
    path = tmp_path / signing.KEY_FILE
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o644)
    with pytest.raises(KeyFileError, match=re.escape(f"chmod 600 {path}")):
        signing.signing_key(settings)


def test_a_new_key_file_is_0600_whatever_the_umask(tmp_path) -> None:
    previous = os.umask(0)
    try:
        TokenVault.from_settings(CoreSettings(data_dir=tmp_path))
    finally:
        os.umask(previous)
    assert (tmp_path / "platform-token.key").stat().st_mode & 0o777 == 0o600
