"""The token endpoint's grants (RFC 6749 4.1.3, 6, 4.4; RFC 7636 4.6; OAuth 2.1 refresh token
rotation), revocation (RFC 7009) and introspection (RFC 7662).

Replays revoke: a code used twice revokes the grant its first use made or widened, and a
refresh token used after its rotation revokes its whole family (the grant). Such revocations
must commit even though the request fails, so the grant functions *return* the error to raise
after the commit instead of raising it inside the transaction.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oauth2.rfc7636.challenge import CODE_VERIFIER_PATTERN
from sqlalchemy import and_, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import memberships, oauth_codes, oauth_grants, oauth_tokens, organizations
from core.identity.opaque_tokens import ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX, hash_token, mint_token
from core.ids import new_id
from core.oauth.authorization import check_resource, requested_scopes
from core.oauth.clients import Client, authenticate_client
from core.oauth.errors import (
    InvalidClient,
    InvalidGrant,
    InvalidRequest,
    InvalidScope,
    OAuthError,
    UnauthorizedClient,
    UnsupportedGrantType,
)


@dataclass(frozen=True, slots=True)
class Lifetimes:
    access: int
    refresh: int


@dataclass(frozen=True, slots=True)
class TokenRequest:
    grant_type: str
    client_id: str
    client_secret: str
    code: str = ""
    redirect_uri: str = ""
    code_verifier: str = ""
    refresh_token: str = ""
    scope: str = ""
    resource: str = ""


@dataclass(frozen=True, slots=True)
class IssuedTokens:
    access_token: str
    expires_in: int
    refresh_token: str
    scope: str


@dataclass(frozen=True, slots=True)
class Introspection:
    active: bool
    scope: str = ""
    client_id: str = ""
    token_type: str = ""
    exp: datetime | None = None
    iat: datetime | None = None
    sub: str = ""
    aud: str = ""
    organization: str = ""


SUPPORTED_GRANTS = ("authorization_code", "refresh_token", "client_credentials")


async def exchange(
    conn: AsyncConnection, request: TokenRequest, *, resource: str, lifetimes: Lifetimes, now: datetime
) -> IssuedTokens | OAuthError:
    """Runs one token request. Returns the tokens, or an error to raise *after* committing
    (a replay's revocation); raises errors that must leave nothing behind."""
    if not request.grant_type:
        raise InvalidRequest("grant_type is required")
    if request.grant_type not in SUPPORTED_GRANTS:
        raise UnsupportedGrantType(f"grant_type {request.grant_type!r} is not supported")
    client = await authenticate_client(conn, request.client_id, request.client_secret)
    if request.grant_type not in client.grant_types:
        raise UnauthorizedClient(f"the client is not registered for the {request.grant_type} grant")
    if request.grant_type == "authorization_code":
        return await _authorization_code(conn, client, request, resource, lifetimes, now)
    if request.grant_type == "refresh_token":
        return await _refresh_token(conn, client, request, resource, lifetimes, now)
    return await _client_credentials(conn, client, request, resource, lifetimes, now)


async def _authorization_code(
    conn: AsyncConnection, client: Client, request: TokenRequest, resource: str, lifetimes: Lifetimes, now: datetime
) -> IssuedTokens | OAuthError:
    if not request.code:
        raise InvalidRequest("code is required")
    if not request.code_verifier:
        raise InvalidRequest("code_verifier is required (PKCE)")
    if not CODE_VERIFIER_PATTERN.fullmatch(request.code_verifier):
        raise InvalidRequest("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
    check_resource(request.resource, resource)
    code = (await conn.execute(select(oauth_codes).where(oauth_codes.c.code_hash == hash_token(request.code)))).first()
    if code is None or code.client_id != client.id:
        raise InvalidGrant("the code is invalid or was issued to another client")
    if code.used_at is not None:
        return await _replayed_code(conn, code.id, now)
    if code.expires_at <= now:
        raise InvalidGrant("the code has expired")
    if not hmac.compare_digest(code.redirect_uri.encode(), request.redirect_uri.encode()):
        raise InvalidGrant("redirect_uri does not match the authorization request")
    if not hmac.compare_digest(create_s256_code_challenge(request.code_verifier), code.code_challenge):
        raise InvalidGrant("code_verifier does not match the code_challenge")
    member = await conn.scalar(
        select(memberships.c.role).where(memberships.c.user_id == code.user_id, memberships.c.org_id == code.org_id)
    )
    if member is None:
        raise InvalidGrant("the approving user is no longer a member of the organization")
    # Conditional: of two concurrent exchanges of one code, exactly one marks it used.
    claimed = await conn.execute(
        update(oauth_codes).where(oauth_codes.c.id == code.id, oauth_codes.c.used_at.is_(None)).values(used_at=now)
    )
    if claimed.rowcount != 1:
        return await _replayed_code(conn, code.id, now)
    grant_id = await _grant_for(conn, client.id, code.user_id, code.org_id, code.scope, code.audience, now)
    await conn.execute(update(oauth_codes).where(oauth_codes.c.id == code.id).values(grant_id=grant_id))
    # The tokens carry this consent's scopes; the grant may hold more from earlier consents.
    return await _issue(conn, client, grant_id, code.user_id, code.org_id, code.scope, code.audience, lifetimes, now)


async def _grant_for(
    conn: AsyncConnection, client_id: str, user_id: str, org_id: str, scope: str, audience: str, now: datetime
) -> str:
    """The user's one active grant of the client in the organization, made or widened by this
    consent (docs/oauth.md, "One grant per agent"). One upsert on the unique index of active
    grants: two first consents racing make one row, and the row stays locked by this
    transaction until the scopes are widened, so two step-ups racing lose neither's scopes."""
    dialect_insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    new = dialect_insert(oauth_grants).values(
        id=new_id("grt"),
        client_id=client_id,
        user_id=user_id,
        org_id=org_id,
        scope=scope,
        audience=audience,
        created_at=now,
        last_token_at=now,
    )
    grant = (
        await conn.execute(
            new.on_conflict_do_update(
                index_elements=[oauth_grants.c.client_id, oauth_grants.c.user_id, oauth_grants.c.org_id],
                index_where=oauth_grants.c.revoked_at.is_(None),
                set_={"last_token_at": now, "audience": new.excluded.audience},
            ).returning(oauth_grants.c.id, oauth_grants.c.scope)
        )
    ).one()
    widened = " ".join(sorted(set(grant.scope.split()) | set(scope.split())))
    if widened != grant.scope:
        await conn.execute(update(oauth_grants).where(oauth_grants.c.id == grant.id).values(scope=widened))
    return grant.id


async def _replayed_code(conn: AsyncConnection, code_id: str, now: datetime) -> OAuthError:
    grant_id = await conn.scalar(select(oauth_codes.c.grant_id).where(oauth_codes.c.id == code_id))
    if grant_id:
        await revoke_grant_tokens(conn, grant_id, now)
    return InvalidGrant("the code was already used; the tokens issued for it are revoked")


async def _refresh_token(
    conn: AsyncConnection, client: Client, request: TokenRequest, resource: str, lifetimes: Lifetimes, now: datetime
) -> IssuedTokens | OAuthError:
    if not request.refresh_token:
        raise InvalidRequest("refresh_token is required")
    token = (
        await conn.execute(
            select(oauth_tokens, oauth_grants.c.revoked_at.label("grant_revoked_at"))
            .select_from(oauth_tokens.join(oauth_grants, oauth_grants.c.id == oauth_tokens.c.grant_id))
            .where(oauth_tokens.c.token_hash == hash_token(request.refresh_token), oauth_tokens.c.kind == "refresh")
        )
    ).first()
    if token is None or token.client_id != client.id:
        raise InvalidGrant("the refresh token is invalid or was issued to another client")
    if token.revoked_at is not None or token.grant_revoked_at is not None:
        raise InvalidGrant("the refresh token was revoked")
    if token.used_at is not None:
        return await _replayed_refresh(conn, token.grant_id, now)
    if token.expires_at <= now:
        raise InvalidGrant("the refresh token has expired: authorize again")
    check_resource(request.resource, token.audience)
    scope = token.scope
    if request.scope.strip():
        narrower = set(request.scope.split())
        if not narrower <= set(token.scope.split()):
            raise InvalidScope("a refresh may only keep or narrow the granted scopes")
        scope = " ".join(sorted(narrower))
    rotated = await conn.execute(
        update(oauth_tokens).where(oauth_tokens.c.id == token.id, oauth_tokens.c.used_at.is_(None)).values(used_at=now)
    )
    if rotated.rowcount != 1:
        return await _replayed_refresh(conn, token.grant_id, now)
    await conn.execute(update(oauth_grants).where(oauth_grants.c.id == token.grant_id).values(last_token_at=now))
    return await _issue(
        conn, client, token.grant_id, token.user_id, token.org_id, scope, token.audience, lifetimes, now
    )


async def _replayed_refresh(conn: AsyncConnection, grant_id: str, now: datetime) -> OAuthError:
    await revoke_grant_tokens(conn, grant_id, now)
    return InvalidGrant("the refresh token was already used; its whole family is revoked")


async def _client_credentials(
    conn: AsyncConnection, client: Client, request: TokenRequest, resource: str, lifetimes: Lifetimes, now: datetime
) -> IssuedTokens:
    # Advertised in the server's metadata (docs/oauth.md, "Rules, and the decisions Herald made"),
    # but such tokens carry no user: every surface refuses them.
    scope = " ".join(requested_scopes(request.scope, client, redirect=False, human_consent=False))
    audience = check_resource(request.resource, resource)
    minted = mint_token(ACCESS_TOKEN_PREFIX)
    await conn.execute(
        insert(oauth_tokens).values(
            id=new_id("tok"),
            token_hash=minted.token_hash,
            kind="access",
            client_id=client.id,
            scope=scope,
            audience=audience,
            created_at=now,
            expires_at=now + timedelta(seconds=lifetimes.access),
        )
    )
    return IssuedTokens(minted.token, lifetimes.access, "", scope)


async def _issue(
    conn: AsyncConnection,
    client: Client,
    grant_id: str,
    user_id: str,
    org_id: str,
    scope: str,
    audience: str,
    lifetimes: Lifetimes,
    now: datetime,
) -> IssuedTokens:
    access = mint_token(ACCESS_TOKEN_PREFIX)
    refresh = mint_token(REFRESH_TOKEN_PREFIX) if "refresh_token" in client.grant_types else None
    rows = [("access", access, lifetimes.access)] + ([("refresh", refresh, lifetimes.refresh)] if refresh else [])
    await conn.execute(
        insert(oauth_tokens),
        [
            {
                "id": new_id("tok"),
                "token_hash": minted.token_hash,
                "kind": kind,
                "client_id": client.id,
                "grant_id": grant_id,
                "user_id": user_id,
                "org_id": org_id,
                "scope": scope,
                "audience": audience,
                "created_at": now,
                "expires_at": now + timedelta(seconds=lifetime),
                "revoked_at": None,
                "used_at": None,
            }
            for kind, minted, lifetime in rows
        ],
    )
    return IssuedTokens(access.token, lifetimes.access, refresh.token if refresh else "", scope)


async def revoke_grant_tokens(conn: AsyncConnection, grant_id: str, now: datetime) -> None:
    await conn.execute(
        update(oauth_grants)
        .where(oauth_grants.c.id == grant_id, oauth_grants.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    await conn.execute(
        update(oauth_tokens)
        .where(oauth_tokens.c.grant_id == grant_id, oauth_tokens.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )


async def _find_token(conn: AsyncConnection, token: str):  # a Row
    if not token or len(token) > 256:
        return None
    return (await conn.execute(select(oauth_tokens).where(oauth_tokens.c.token_hash == hash_token(token)))).first()


async def revoke(conn: AsyncConnection, *, token: str, client_id: str, client_secret: str, now: datetime) -> None:
    """RFC 7009: revoking a refresh token revokes its family (the grant); an access token is
    revoked alone. Unknown tokens, and tokens of other clients, are answered the same way and
    left alone (2.2: an invalid token is not an error)."""
    if not token:
        raise InvalidRequest("token is required")
    client = await authenticate_client(conn, client_id, client_secret)
    row = await _find_token(conn, token)
    if row is None or row.client_id != client.id:
        return
    if row.kind == "refresh" and row.grant_id:
        await revoke_grant_tokens(conn, row.grant_id, now)
    else:
        await conn.execute(
            update(oauth_tokens)
            .where(oauth_tokens.c.id == row.id, oauth_tokens.c.revoked_at.is_(None))
            .values(revoked_at=now)
        )


async def introspect(
    conn: AsyncConnection, *, token: str, client_id: str, client_secret: str, now: datetime
) -> Introspection:
    """RFC 7662 for confidential clients, about their own tokens; `active: false` for anything
    unknown, expired, revoked, used (rotated refresh tokens), issued to another client, or
    usable nowhere: a client_credentials token carries no user, and every surface refuses it
    (docs/decisions.md, "Every call carries the caller's credential"), so it is not active anywhere."""
    if not token:
        raise InvalidRequest("token is required")
    client = await authenticate_client(conn, client_id, client_secret)
    if client.is_public:
        raise InvalidClient("introspection requires a confidential client")
    row = await _find_token(conn, token)
    if row is None or row.client_id != client.id or row.revoked_at is not None or row.expires_at <= now:
        return Introspection(False)
    if row.used_at is not None or not row.user_id:
        return Introspection(False)
    org_slug = ""
    if row.grant_id:
        live = (
            await conn.execute(
                select(oauth_grants.c.revoked_at, organizations.c.slug)
                .select_from(oauth_grants.join(organizations, organizations.c.id == oauth_grants.c.org_id))
                .where(and_(oauth_grants.c.id == row.grant_id))
            )
        ).first()
        if live is None or live.revoked_at is not None:
            return Introspection(False)
        org_slug = live.slug
    return Introspection(
        True,
        scope=row.scope,
        client_id=client.client_id,  # the identifier it authenticated with (a URL for a metadata-document client)
        token_type=f"{row.kind}_token",
        exp=row.expires_at,
        iat=row.created_at,
        sub=row.user_id or "",
        aud=row.audience,
        organization=org_slug,
    )
