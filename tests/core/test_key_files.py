"""Key files at start-up (core/keyfiles.py): a process refuses a key file other users may read or
write, saying how to fix it; HERALD_PLATFORM_TOKEN_KEYS_FILE puts the platform-token key outside
the data directory, and that key is the one sealing what the core stores."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.keyfiles import load_or_create_key_file
from core.platform_accounts.vault import TokenVault
from core.settings import CoreSettings
from core.storage import signing
from harness.stack import ROOT, database, free_port, stack_env
from tests.core.cores import cores, jwks, sql


@pytest.mark.parametrize(
    ("command", "which"),
    [
        ("core", "platform"),
        ("worker", "platform"),
        ("storage", "storage"),
        ("core", "storage"),
        # serve says it once, before starting anything (no crash loop of every child)
        ("serve", "platform"),
        ("serve", "storage"),
    ],
)
def test_a_process_refuses_a_key_file_others_can_read(tmp_path: Path, command: str, which: str) -> None:
    data, elsewhere = tmp_path / "data", tmp_path / "keys" / "platform.key"
    path = elsewhere if which == "platform" else data / signing.KEY_FILE
    load_or_create_key_file(path)
    path.chmod(0o644)
    env = stack_env(
        f"sqlite+aiosqlite:///{tmp_path / 'herald.db'}",  # never reached: the key is read first
        tmp_path,
        HERALD_PLATFORM_TOKEN_KEYS_FILE=str(elsewhere),
        HERALD_CORE_LISTEN=f"127.0.0.1:{free_port()}",
        HERALD_STORAGE_LISTEN=f"127.0.0.1:{free_port()}",
        HERALD_FACADE_LISTEN=f"127.0.0.1:{free_port()}",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "core", command], env=env, cwd=ROOT, stderr=subprocess.PIPE, text=True
    )
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"`herald {command}` started with a world-readable {path.name}")
    assert proc.returncode == 1, err
    assert f"herald: cannot start: {path}" in err and f"chmod 600 {path}" in err
    assert "Traceback" not in err


def test_the_platform_token_key_at_its_own_location_seals_what_the_core_stores(backend: str, tmp_path: Path) -> None:
    keys = tmp_path / "secrets" / "platform.key"
    with database(backend, tmp_path) as url, cores(url, tmp_path, HERALD_PLATFORM_TOKEN_KEYS_FILE=str(keys)) as (t,):
        (served,) = jwks(t)
        ((kid, stored),) = sql(url, "SELECT kid, private_pem FROM oauth_signing_keys")
    assert keys.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "data" / "platform-token.key").exists()
    vault = TokenVault.from_settings(CoreSettings(data_dir=tmp_path / "data", platform_token_keys_file=str(keys)))
    assert kid == served["kid"]
    assert vault.open(stored, bound_to=f"oauth-signing-key:{kid}").value.startswith("-----BEGIN PRIVATE KEY")
