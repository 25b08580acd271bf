"""Unit tests of the API key format, hashing and parsing (dense logic, no I/O)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.identity.credentials import hash_secret, mint_api_key, parse_api_key, secret_matches
from core.identity.passwords import hash_password, verify_password
from core.ids import _encode, id_at, new_id


def test_minted_keys_are_well_formed_and_unique() -> None:
    keys = [mint_api_key() for _ in range(200)]
    assert len({k.secret for k in keys}) == 200
    for key in keys[:20]:
        assert key.secret.startswith("svc_")
        assert len(key.secret) == 4 + 16 + 43  # 32 random bytes of secret, base64url
        assert parse_api_key(key.secret) == key.key_id
        assert key.secret_hash == hash_secret(key.secret) and len(key.secret_hash) == 64
        assert key.secret not in key.secret_hash
        assert key.secret.startswith(key.display_prefix) and len(key.display_prefix) == 12


@pytest.mark.parametrize(
    "candidate",
    [
        "",
        "svc_",
        "svc_short",
        "sk_" + "a" * 59,
        "svc_" + "a" * 58,
        "svc_" + "a" * 60,
        "svc_" + "!" * 59,
        " svc_" + "a" * 59,
    ],
)
def test_parse_refuses_anything_malformed(candidate: str) -> None:
    assert parse_api_key(candidate) is None


def test_secret_comparison() -> None:
    key = mint_api_key()
    assert secret_matches(key.secret, key.secret_hash)
    assert not secret_matches(key.secret[:-1] + "x", key.secret_hash)


def test_passwords_are_argon2id() -> None:
    stored = hash_password("correct horse battery")
    assert stored.startswith("$argon2id$")
    assert verify_password(stored, "correct horse battery")
    assert not verify_password(stored, "wrong")
    assert not verify_password("not-a-hash", "wrong")


def test_ids_sort_by_creation_within_a_process() -> None:
    ids = [new_id("led") for _ in range(2000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == 2000
    assert all(i.startswith("led_") and len(i) == 30 for i in ids[:5])


@given(st.integers(min_value=0, max_value=(1 << 80) - 1), st.integers(min_value=0, max_value=(1 << 50) - 1))
def test_an_id_body_is_crockford_base32_of_its_time_and_randomness(rand: int, millis: int) -> None:
    # Decoded character by character, the body gives back the milliseconds and the random part.
    body = _encode(millis, 10) + _encode(rand, 16)
    value = 0
    for char in body:
        value = value * 32 + "0123456789abcdefghjkmnpqrstvwxyz".index(char)
    assert (value >> 80, value & ((1 << 80) - 1)) == (millis, rand)
    assert id_at("led", millis) <= f"led_{body}"
