"""Resolves the `authorization` metadata of a call to a Principal with one indexed lookup."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.db.models import api_keys, memberships, organizations
from core.errors import Unauthorized
from core.identity.credentials import API_KEY_PREFIX, parse_api_key, secret_matches
from core.identity.principal import ALL_SCOPES, CredentialKind, Principal

# last_used_at is kept to the minute: a write per request would double the cost of reads.
LAST_USE_RESOLUTION = timedelta(minutes=1)

_API_KEY_LOOKUP = select(
    api_keys.c.id,
    api_keys.c.secret_hash,
    api_keys.c.user_id,
    api_keys.c.org_id,
    api_keys.c.revoked_at,
    api_keys.c.last_used_at,
    organizations.c.slug,
    organizations.c.plan,
    organizations.c.credit_balance,
).select_from(
    api_keys.join(organizations, organizations.c.id == api_keys.c.org_id).join(
        memberships,
        and_(memberships.c.user_id == api_keys.c.user_id, memberships.c.org_id == api_keys.c.org_id),
    )
)
# Built once; the key id is a bound parameter, so SQLAlchemy's compiled cache always hits.
_API_KEY_LOOKUP = _API_KEY_LOOKUP.where(api_keys.c.key_id == bindparam("key_id"))


@dataclass(frozen=True, slots=True)
class Authentication:
    principal: Principal
    # Set when the credential's last-use time is stale and should be written after the call.
    touch_api_key_id: str | None = None


def bearer_token(authorization: str | None) -> str:
    """Extracts the token of an `authorization: Bearer <token>` value (scheme case-insensitive)."""
    if not authorization:
        raise Unauthorized("missing credential: send Authorization: Bearer <API key>")
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        raise Unauthorized("malformed Authorization header: expected 'Bearer <credential>'")
    return token


async def authenticate(conn: AsyncConnection, authorization: str | None, now: datetime) -> Authentication:
    token = bearer_token(authorization)
    if token.startswith(API_KEY_PREFIX):
        return await _authenticate_api_key(conn, token, now)
    raise Unauthorized("unknown credential")


async def _authenticate_api_key(conn: AsyncConnection, token: str, now: datetime) -> Authentication:
    key_id = parse_api_key(token)
    if key_id is None:
        raise Unauthorized("malformed API key")
    row = (await conn.execute(_API_KEY_LOOKUP, {"key_id": key_id})).first()
    # One message for unknown, wrong and revoked keys: the answer must not tell them apart.
    if row is None or not secret_matches(token, row.secret_hash) or row.revoked_at is not None:
        raise Unauthorized("invalid or revoked API key")
    principal = Principal(
        user_id=row.user_id,
        org_id=row.org_id,
        org_slug=row.slug,
        credential_kind=CredentialKind.API_KEY,
        credential_id=row.id,
        scopes=ALL_SCOPES,
        plan=row.plan,
        credit_balance=row.credit_balance,
    )
    stale = row.last_used_at is None or now - row.last_used_at >= LAST_USE_RESOLUTION
    return Authentication(principal, row.id if stale else None)


async def touch_api_key(engine: AsyncEngine, api_key_id: str, now: datetime) -> None:
    """Records the key's last use in its own short transaction, after the call's own work."""
    async with engine.begin() as conn:
        await conn.execute(
            update(api_keys)
            .where(api_keys.c.id == api_key_id)
            .where((api_keys.c.last_used_at.is_(None)) | (api_keys.c.last_used_at < now - LAST_USE_RESOLUTION))
            .values(last_used_at=now)
        )
