"""Resolves the `authorization` metadata of a call to a Principal with one indexed lookup."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.db.models import api_keys, memberships, oauth_grants, oauth_tokens, organizations, sessions, users
from core.db.prepared import Prepared
from core.errors import Unauthorized
from core.identity.credentials import API_KEY_PREFIX, parse_api_key, secret_matches
from core.identity.opaque_tokens import ACCESS_TOKEN_PREFIX, SESSION_PREFIX, hash_token
from core.identity.principal import CredentialKind, Principal
from core.identity.scopes import ALL_SCOPES

# last_used_at is kept to the minute: a write per request would double the cost of reads.
LAST_USE_RESOLUTION = timedelta(minutes=1)

# What the team checks read (core/identity/roles.py, profile_limits.py, core/posts/approvals.py):
# the member's role and profile limits and the organization's approval and verification settings.
# They ride on each credential's lookup, so the checks add no statement (bench/teams_checks.py).
TEAM_COLUMNS = (
    memberships.c.role,
    memberships.c.profile_tags,
    organizations.c.approvals_required_for,
    organizations.c.approval_profile_tags,
    organizations.c.self_approval,
    organizations.c.awaiting_verification,
)
# An API key, its organization, and the membership that must exist (a removed member's key stops
# working on its next request).
API_KEY_COLUMNS = (
    api_keys.c.id,
    api_keys.c.secret_hash,
    api_keys.c.user_id,
    api_keys.c.org_id,
    api_keys.c.revoked_at,
    api_keys.c.last_used_at,
    organizations.c.slug,
    organizations.c.plan,
    organizations.c.credit_balance,
)
API_KEY_FROM = api_keys.join(organizations, organizations.c.id == api_keys.c.org_id).join(
    memberships,
    and_(memberships.c.user_id == api_keys.c.user_id, memberships.c.org_id == api_keys.c.org_id),
)
# Every API call runs it: built once, run on the driver (core/db/prepared.py).
_API_KEY_LOOKUP = Prepared(
    select(*API_KEY_COLUMNS, *TEAM_COLUMNS).select_from(API_KEY_FROM).where(api_keys.c.key_id == bindparam("key_id"))
)


# Sessions and access tokens: found by the SHA-256 of the whole token (unique index), joined to
# the membership so a user removed from the organization loses access on the next request, and one
# whose role or profile limits changed acts with the new ones (core/identity/roles.py,
# core/identity/profile_limits.py).
_ORG_COLUMNS = (organizations.c.slug, organizations.c.plan, organizations.c.credit_balance, *TEAM_COLUMNS)
_SESSION_LOOKUP = (
    select(
        sessions.c.id,
        sessions.c.user_id,
        sessions.c.org_id,
        sessions.c.expires_at,
        sessions.c.revoked_at,
        users.c.email,
        organizations.c.time_zone,
        *_ORG_COLUMNS,
    )
    .select_from(
        sessions.join(organizations, organizations.c.id == sessions.c.org_id)
        .join(users, users.c.id == sessions.c.user_id)
        .join(memberships, and_(memberships.c.user_id == sessions.c.user_id, memberships.c.org_id == sessions.c.org_id))
    )
    .where(sessions.c.token_hash == bindparam("token_hash"))
)
_ACCESS_TOKEN_LOOKUP = (
    select(
        oauth_tokens.c.id,
        oauth_tokens.c.user_id,
        oauth_tokens.c.org_id,
        oauth_tokens.c.scope,
        oauth_tokens.c.audience,
        oauth_tokens.c.expires_at,
        oauth_tokens.c.revoked_at,
        oauth_grants.c.revoked_at.label("grant_revoked_at"),
        oauth_grants.c.client_id,
        *_ORG_COLUMNS,
    )
    .select_from(
        oauth_tokens.join(oauth_grants, oauth_grants.c.id == oauth_tokens.c.grant_id)
        .join(organizations, organizations.c.id == oauth_tokens.c.org_id)
        .join(
            memberships,
            and_(memberships.c.user_id == oauth_tokens.c.user_id, memberships.c.org_id == oauth_tokens.c.org_id),
        )
    )
    .where(oauth_tokens.c.token_hash == bindparam("token_hash"), oauth_tokens.c.kind == "access")
)


def _member(row) -> dict:
    """The member's role and profile limits, and the organization's approval settings, as the
    principal carries them."""
    return {
        "role": row.role,
        "profile_tags": tuple(row.profile_tags.split()),
        "approvals_required_for": frozenset(row.approvals_required_for.split()),
        "approval_profile_tags": tuple(row.approval_profile_tags.split()),
        "self_approval": row.self_approval,
        "awaiting_verification": row.awaiting_verification,
    }


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


async def authenticate(
    conn: AsyncConnection, authorization: str | None, now: datetime, *, audience: str
) -> Authentication:
    """Resolves a credential to its principal. `audience` is the resource the calling surface
    serves: an OAuth access token issued for another one is refused."""
    token = bearer_token(authorization)
    if token.startswith(API_KEY_PREFIX):
        return await _authenticate_api_key(conn, token, now)
    if token.startswith(ACCESS_TOKEN_PREFIX):
        return await _authenticate_access_token(conn, token, now, audience)
    if token.startswith(SESSION_PREFIX):
        return await _authenticate_session(conn, token, now)
    raise Unauthorized("unknown credential")


async def _authenticate_session(conn: AsyncConnection, token: str, now: datetime) -> Authentication:
    row = (await conn.execute(_SESSION_LOOKUP, {"token_hash": hash_token(token)})).first()
    if row is None or row.revoked_at is not None or row.expires_at <= now:
        raise Unauthorized("invalid, expired or ended session")
    return Authentication(
        Principal(
            row.user_id,
            row.org_id,
            row.slug,
            CredentialKind.SESSION,
            row.id,
            ALL_SCOPES,
            row.plan,
            row.credit_balance,
            **_member(row),
            email=row.email,
            time_zone=row.time_zone,
        )
    )


async def _authenticate_access_token(conn: AsyncConnection, token: str, now: datetime, audience: str) -> Authentication:
    # client_credentials tokens have no grant, user or organization: the inner joins leave them
    # out, so they are refused like unknown tokens: there is no machine-only identity
    # (docs/decisions.md, "Every call carries the caller's credential").
    row = (await conn.execute(_ACCESS_TOKEN_LOOKUP, {"token_hash": hash_token(token)})).first()
    if (
        row is None
        or row.revoked_at is not None
        or row.grant_revoked_at is not None
        or row.expires_at <= now
        or row.audience != audience
    ):
        raise Unauthorized("invalid, expired or revoked access token, or one issued for another audience")
    return Authentication(
        Principal(
            row.user_id,
            row.org_id,
            row.slug,
            CredentialKind.OAUTH_ACCESS_TOKEN,
            row.id,
            frozenset(row.scope.split()),
            row.plan,
            row.credit_balance,
            **_member(row),
            client_id=row.client_id,
        )
    )


async def _authenticate_api_key(conn: AsyncConnection, token: str, now: datetime) -> Authentication:
    key_id = parse_api_key(token)
    if key_id is None:
        raise Unauthorized("malformed API key")
    row = await _API_KEY_LOOKUP.first(conn, {"key_id": key_id})
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
        **_member(row),
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
