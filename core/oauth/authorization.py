"""The authorization endpoint's rules (RFC 6749 4.1.1, RFC 7636, RFC 8707): checking a request,
saying what the consent page asks (only what is new on a step-up), and issuing a single-use code
once a signed-in human approved it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import oauth_codes, oauth_grants
from core.identity.accounts import member_organization
from core.identity.opaque_tokens import AUTHORIZATION_CODE_PREFIX, mint_token
from core.identity.principal import Principal
from core.identity.scopes import ALL_SCOPES, RESOURCE_SCOPES
from core.ids import new_id
from core.oauth.clients import (
    Client,
    check_redirect_uri,
    find_client,
    redirect_uri_matches,
    store_metadata_client,
)
from core.oauth.errors import (
    InvalidClient,
    InvalidRedirectUri,
    InvalidRequest,
    InvalidScope,
    InvalidTarget,
    UnauthorizedClient,
    UnsupportedResponseType,
)

# BASE64URL(SHA-256(verifier)) without padding is exactly 43 characters (RFC 7636 4.2).
CODE_CHALLENGE_RE = re.compile(r"[A-Za-z0-9_-]{43}")
MAX_STATE_LENGTH = 1024


@dataclass(frozen=True, slots=True)
class AuthorizationParameters:
    response_type: str
    client_id: str
    redirect_uri: str
    scope: str
    state: str
    code_challenge: str
    code_challenge_method: str
    resource: str


@dataclass(frozen=True, slots=True)
class CheckedAuthorization:
    client: Client
    redirect_uri: str
    scopes: tuple[str, ...]
    resource: str


@dataclass(frozen=True, slots=True)
class ConsentView:
    """What the consent page asks: `granted` are the scopes the user already gave the client in
    the organization, `new` the requested ones beyond them (all of them on a first approval)."""

    checked: CheckedAuthorization
    organization: str
    granted: tuple[str, ...]
    new: tuple[str, ...]


def requested_scopes(requested: str, client: Client, *, redirect: bool, human_consent: bool) -> tuple[str, ...]:
    """The scopes asked for, or by default the client's registered ones (at most the resource's).
    Unknown scopes are `invalid_scope`. The registered scope caps only grants no human approves
    (client_credentials): with a human consenting to each scope, any scope Herald supports may
    be asked for, so a client can step up to a scope a tool needs (docs/oauth.md, "Scopes, and stepping up")."""
    if not requested.strip():
        default = client.scopes if client.scopes else RESOURCE_SCOPES
        return tuple(sorted(default))
    scopes = set(requested.split())
    unknown = scopes - ALL_SCOPES
    if unknown:
        raise InvalidScope(f"unknown scope {sorted(unknown)[0]!r}", redirect=redirect)
    if not human_consent and client.scopes and not scopes <= client.scopes:
        raise InvalidScope("the client did not register for a requested scope", redirect=redirect)
    return tuple(sorted(scopes))


def check_resource(resource: str, expected: str, *, redirect: bool = False) -> str:
    if resource and resource.rstrip("/") != expected:
        raise InvalidTarget(f"this server issues tokens only for {expected}", redirect=redirect)
    return expected


async def check_authorization(
    conn: AsyncConnection, params: AuthorizationParameters, *, resource: str, client: Client | None = None
) -> CheckedAuthorization:
    """Checks in the order RFC 6749 4.1.2.1 requires: while the client or the redirect URI is
    in doubt, nothing may be sent to the redirect URI; after that, errors go back by redirect.
    `client`: a metadata-document client, as its document (just fetched and checked) describes
    it; otherwise the registered client is looked up."""
    if client is None:
        client = await find_client(conn, params.client_id)
    if client is None:
        raise InvalidClient("unknown client_id")
    if not params.redirect_uri:
        if len(client.redirect_uris) != 1:
            raise InvalidRequest("redirect_uri is required")
        redirect_uri = client.redirect_uris[0]
    else:
        redirect_uri = params.redirect_uri
    # The URI the code would go to meets the registration rules itself (a row stored before a
    # rule existed included), and then matches a registered one (core/oauth/clients.py).
    try:
        check_redirect_uri(redirect_uri)
    except InvalidRedirectUri as error:
        raise InvalidRequest(f"redirect_uri is not acceptable: {error.message}") from None
    if not any(redirect_uri_matches(r, redirect_uri) for r in client.redirect_uris):
        raise InvalidRequest("redirect_uri does not match a registered redirect URI")
    # From here on the redirect URI is trusted: errors may be sent to it.
    if params.response_type != "code":
        raise UnsupportedResponseType("only response_type=code is supported", redirect=True)
    if "authorization_code" not in client.grant_types:
        raise UnauthorizedClient("the client is not registered for the authorization_code grant", redirect=True)
    if not params.code_challenge:
        raise InvalidRequest("code_challenge is required (PKCE, S256)", redirect=True)
    if params.code_challenge_method != "S256":
        raise InvalidRequest("code_challenge_method must be S256 (plain is not supported)", redirect=True)
    if not CODE_CHALLENGE_RE.fullmatch(params.code_challenge):
        raise InvalidRequest("code_challenge must be BASE64URL(SHA-256(code_verifier)), 43 characters", redirect=True)
    if len(params.state) > MAX_STATE_LENGTH:
        raise InvalidRequest("state is too long", redirect=True)
    scopes = requested_scopes(params.scope, client, redirect=True, human_consent=True)
    return CheckedAuthorization(client, redirect_uri, scopes, check_resource(params.resource, resource, redirect=True))


async def granted_scopes(conn: AsyncConnection, client_id: str, user_id: str, org_id: str) -> frozenset[str]:
    """Every scope the user's active grant gives the client in the organization (one at most:
    a later consent widens it; docs/oauth.md, "One grant per agent")."""
    rows = await conn.execute(
        select(oauth_grants.c.scope).where(
            oauth_grants.c.client_id == client_id,
            oauth_grants.c.user_id == user_id,
            oauth_grants.c.org_id == org_id,
            oauth_grants.c.revoked_at.is_(None),
        )
    )
    return frozenset(scope for row in rows for scope in row.scope.split())


async def prepare_consent(
    conn: AsyncConnection,
    principal: Principal,
    params: AuthorizationParameters,
    *,
    resource: str,
    client: Client | None = None,
) -> ConsentView:
    """The checked request and, for a step-up (a client the user already approved in the
    session's organization asking for more), the scopes it holds and those that are new."""
    checked = await check_authorization(conn, params, resource=resource, client=client)
    granted = await granted_scopes(conn, checked.client.id, principal.user_id, principal.org_id)
    new = tuple(scope for scope in checked.scopes if scope not in granted)
    return ConsentView(checked, principal.org_slug, tuple(sorted(granted)), new)


async def approve_authorization(
    conn: AsyncConnection,
    principal: Principal,
    params: AuthorizationParameters,
    org_slug: str,
    *,
    resource: str,
    lifetime: int,
    now: datetime,
    client: Client | None = None,
) -> tuple[CheckedAuthorization, str]:
    """Issues a code bound to the approving user, the chosen organization and the PKCE
    challenge. Returns the checked request and the code (shown once, stored as a hash). A
    metadata-document client is recorded, or refreshed from its document, first."""
    checked = await check_authorization(conn, params, resource=resource, client=client)
    org = await member_organization(conn, principal.user_id, org_slug)
    if checked.client.metadata_url:
        await store_metadata_client(conn, checked.client)
    minted = mint_token(AUTHORIZATION_CODE_PREFIX)
    await conn.execute(
        insert(oauth_codes).values(
            id=new_id("cod"),
            code_hash=minted.token_hash,
            client_id=checked.client.id,
            user_id=principal.user_id,
            org_id=org.id,
            # The redirect_uri as sent: the token request must repeat it exactly (RFC 6749 4.1.3).
            redirect_uri=params.redirect_uri,
            code_challenge=params.code_challenge,
            scope=" ".join(checked.scopes),
            audience=checked.resource,
            created_at=now,
            expires_at=now + timedelta(seconds=lifetime),
        )
    )
    return checked, minted.token
