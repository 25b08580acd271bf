"""The OAuth signing key (core/oauth/jwks.py): served from each core's memory (an anonymous JWKS
request does no database write), one key for every core sharing a database, and its private part
stored sealed by the platform-token vault, which `herald admin reseal-tokens` moves to a new key."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx
import pytest
from joserfc.jwk import ECKey

from core.db.models import oauth_signing_keys
from core.db.types import utcnow
from core.platform_accounts.vault import TokenVault, new_key_entry
from core.settings import CoreSettings
from harness.stack import Stack, database
from tests.core.cores import cores, herald, jwks, sql

ROWS = "SELECT kid, public_jwk, private_pem FROM oauth_signing_keys"


def _public(private_pem: str) -> dict[str, str]:
    key = ECKey.import_key(private_pem)
    return {**key.as_dict(private=False), "kid": key.thumbprint(), "use": "sig", "alg": "ES256"}


async def test_jwks_answers_while_another_connection_holds_the_write_lock(
    backend: str, stack: Stack, http: httpx.AsyncClient
) -> None:
    """A JWKS request takes no lock: with SQLite's write lock held elsewhere it still answers at
    once (a request that wrote would wait for the lock: 30 s of busy timeout)."""
    if backend != "sqlite":
        pytest.skip("SQLite's database-wide write lock is the observable")
    first = await http.get("/api/auth/jwks")
    assert first.status_code == 200 and len(first.json()["keys"]) == 1
    holder = sqlite3.connect(stack.database_url.split("///", 1)[1], isolation_level=None, timeout=5)
    try:
        holder.execute("BEGIN IMMEDIATE")
        for _ in range(3):
            again = await http.get("/api/auth/jwks", timeout=5)
            assert again.status_code == 200 and again.json() == first.json()
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_cores_started_together_serve_one_sealed_key(backend: str, tmp_path: Path) -> None:
    with database(backend, tmp_path) as url, cores(url, tmp_path, count=3) as targets:
        served = [jwks(target) for target in targets]
        again = [jwks(target) for target in targets]
        rows = sql(url, ROWS)
    assert served == again and all(keys == served[0] for keys in served)
    assert len(served[0]) == 1 and len(rows) == 1
    kid, _, stored = rows[0]
    assert served[0][0]["kid"] == kid
    # Sealed under the generated key (id `local`), not the PEM itself.
    assert stored.startswith("v1.local.") and "BEGIN" not in stored
    assert (tmp_path / "data" / "platform-token.key").exists()
    vault = TokenVault.from_settings(CoreSettings(data_dir=tmp_path / "data"))
    assert _public(vault.open(stored, bound_to=f"oauth-signing-key:{kid}").value) == served[0][0]


def test_a_plain_key_is_sealed_at_start_and_reseal_moves_it(backend: str, tmp_path: Path) -> None:
    """A key an earlier version stored in the clear is sealed when a core starts; key rotation
    (`herald admin reseal-tokens`) reseals it; the published key never changes."""
    k1, k2 = new_key_entry("k1"), new_key_entry("k2")
    plain = ECKey.generate_key("P-256")
    public = {**plain.as_dict(private=False), "kid": plain.thumbprint(), "use": "sig", "alg": "ES256"}
    with database(backend, tmp_path) as url:
        stored_plain = oauth_signing_keys.insert().values(
            kid=public["kid"],
            public_jwk=json.dumps(public),
            private_pem=plain.as_pem(private=True).decode(),
            created_at=utcnow(),
        )
        sql(url, stored_plain)
        with cores(url, tmp_path, HERALD_PLATFORM_TOKEN_KEYS=k1) as (target,):
            assert jwks(target) == [public]
            (_, _, stored), *others = sql(url, ROWS)
            assert not others and stored.startswith("v1.k1.") and "BEGIN" not in stored

        rotating = {"HERALD_PLATFORM_TOKEN_KEYS": f"{k2},{k1}"}
        code, out, err = herald("admin", "reseal-tokens", database_url=url, workdir=tmp_path, **rotating)
        assert (code, out) == (0, {"resealed": 1, "key_id": "k2"}), err
        ((_, _, resealed),) = sql(url, ROWS)
        assert resealed.startswith("v1.k2.")
        only_k2 = TokenVault.from_settings(CoreSettings(platform_token_keys=k2))
        assert _public(only_k2.open(resealed, bound_to=f"oauth-signing-key:{public['kid']}").value) == public

        with cores(url, tmp_path, HERALD_PLATFORM_TOKEN_KEYS=k2) as (target,):
            assert jwks(target) == [public]
