"""The authorization server's key set (RFC 7517): one EC P-256 key, made once, served from memory.

Access tokens are opaque, so nothing is signed with it yet; the key set is real so that clients
and tools that fetch `jwks_uri` get a valid document, and a future signed artefact (ID tokens,
signed metadata) has its key published ahead of use.

The private key is stored sealed by the platform-token vault (core/platform_accounts/vault.py: AES-256-GCM
under HERALD_PLATFORM_TOKEN_KEYS, bound to the key's id), so a copy of the database alone does not
give it away, and `herald admin reseal-tokens` moves it to the newest key with the tokens.

Each core process reads the key set once (at start-up, else at its first request) and serves it
from memory: an anonymous request costs no database work. Reading takes no lock; only a database
without a key, or with a key stored in the clear by an earlier version, takes the write lock
once, and then re-reads under it, so processes starting together agree on one key.
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime

from joserfc.jwk import ECKey
from sqlalchemy import insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.db.engine import is_sqlite, transaction
from core.db.models import oauth_signing_keys
from core.db.types import utcnow
from core.platform_accounts.vault import TokenVault
from core.settings import CoreSettings

_PLAIN = "-----BEGIN"  # how a private key stored in the clear (before sealing existed) starts

Jwk = dict[str, str]


def bound_to(kid: str) -> str:
    """What a sealed private key is bound to: it opens only in its own row."""
    return f"oauth-signing-key:{kid}"


class PublishedKeys:
    """The public key set of this process, read (or made) once."""

    def __init__(self) -> None:
        self._keys: list[Jwk] | None = None
        self._lock: asyncio.Lock | None = None

    async def get(self, engine: AsyncEngine, settings: CoreSettings) -> list[Jwk]:
        if self._keys is None:
            self._lock = self._lock or asyncio.Lock()
            async with self._lock:  # concurrent first requests load once
                if self._keys is None:
                    self._keys = await load(engine, settings)
        return self._keys


# One per process: a core serves one database.
PUBLISHED = PublishedKeys()


async def load(engine: AsyncEngine, settings: CoreSettings) -> list[Jwk]:
    """The public keys, oldest first. Makes the first key, and seals a key stored in the clear,
    under the write lock; otherwise only reads."""
    async with transaction(engine) as conn:
        rows = await _rows(conn)
    if rows and not any(r.private_pem.startswith(_PLAIN) for r in rows):
        return [json.loads(r.public_jwk) for r in rows]
    vault = TokenVault.from_settings(settings)
    async with transaction(engine, writes=True) as conn:
        if not is_sqlite(engine):  # SQLite: the transaction holds the write lock already
            await conn.execute(text("LOCK TABLE oauth_signing_keys IN SHARE ROW EXCLUSIVE MODE"))
        rows = await _rows(conn)
        if not rows:
            await _create(conn, vault, utcnow())
        else:
            await seal_plain(conn, vault)
        rows = await _rows(conn)
    return [json.loads(r.public_jwk) for r in rows]


async def _rows(conn: AsyncConnection) -> list:
    stmt = select(oauth_signing_keys.c.kid, oauth_signing_keys.c.public_jwk, oauth_signing_keys.c.private_pem)
    return list((await conn.execute(stmt.order_by(oauth_signing_keys.c.created_at))).all())


async def _create(conn: AsyncConnection, vault: TokenVault, now: datetime) -> None:
    key = ECKey.generate_key("P-256")
    public = {**key.as_dict(private=False), "kid": key.thumbprint(), "use": "sig", "alg": "ES256"}
    await conn.execute(
        insert(oauth_signing_keys).values(
            kid=public["kid"],
            public_jwk=json.dumps(public),
            private_pem=vault.seal(key.as_pem(private=True).decode(), bound_to=bound_to(public["kid"])),
            created_at=now,
        )
    )


async def seal_plain(conn: AsyncConnection, vault: TokenVault) -> int:
    """Seals every private key stored in the clear; returns how many. Each row is rewritten only
    if it is still the plain value read."""
    sealed = 0
    for row in await _rows(conn):
        if row.private_pem.startswith(_PLAIN):
            await _rewrite(conn, row, vault.seal(row.private_pem, bound_to=bound_to(row.kid)))
            sealed += 1
    return sealed


async def reseal(conn: AsyncConnection, vault: TokenVault) -> int:
    """`herald admin reseal-tokens`: every private key sealed under the vault's current key (a
    plain one sealed for the first time); returns how many rows changed."""
    changed = await seal_plain(conn, vault)
    for row in await _rows(conn):
        if vault.needs_reseal(row.private_pem):
            await _rewrite(conn, row, vault.reseal(row.private_pem, bound_to=bound_to(row.kid)))
            changed += 1
    return changed


async def _rewrite(conn: AsyncConnection, row, value: str) -> None:  # a Row
    await conn.execute(
        update(oauth_signing_keys)
        .where(oauth_signing_keys.c.kid == row.kid, oauth_signing_keys.c.private_pem == row.private_pem)
        .values(private_pem=value)
    )
