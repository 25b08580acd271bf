"""Connecting a Bluesky account with an app password (docs/live-publishing.md,
"Connecting accounts").

The app password is sent once, to the account's PDS (`com.atproto.server.createSession`), and
never stored: Herald keeps the session's access and refresh JWTs (sealed). The access JWT lasts
about two hours; `refreshSession` with the refresh JWT (about 90 days) gives new ones, and both
rotate. When the refresh JWT is dead the user enters an app password again. The PDS the session
answers from (`didDoc`'s #atproto_pds service) is where the account's records live.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Any

import httpx2

from core.connectors.common import base_url, dig
from core.connectors.transport import PlatformEndpoints
from core.platform_accounts.oauth import AccountIdentity, PlatformAuthError, TokenSet
from core.platform_accounts.vault import Secret

DEFAULT_PDS = "https://bsky.social"


async def create_session(
    endpoints: PlatformEndpoints, pds_url: str, identifier: str, app_password: Secret
) -> tuple[TokenSet, AccountIdentity, str]:
    """The session's tokens, whose account it is, and the account's own PDS URL."""
    pds = base_url(pds_url, DEFAULT_PDS)
    body = await _post(
        endpoints,
        f"{pds}/xrpc/com.atproto.server.createSession",
        json={"identifier": identifier, "password": app_password.value},
    )
    tokens = _tokens(body)
    did, handle = body.get("did"), body.get("handle")
    if not isinstance(did, str) or not did.startswith("did:"):
        raise PlatformAuthError("the PDS did not say which account this is", refused=False)
    home = _pds_of(body.get("didDoc")) or pds
    name, avatar = await _profile(endpoints, home, did, tokens.access_token)
    identity = AccountIdentity(did[:255], handle[:255] if isinstance(handle, str) else "", name, avatar)
    return tokens, identity, home


async def refresh_session(endpoints: PlatformEndpoints, pds_url: str, refresh: Secret) -> TokenSet:
    body = await _post(endpoints, f"{pds_url}/xrpc/com.atproto.server.refreshSession", bearer=refresh)
    return _tokens(body)


async def delete_session(endpoints: PlatformEndpoints, pds_url: str, refresh: Secret) -> bool:
    """Ends the session at the PDS (disconnect); False when the PDS did not confirm."""
    try:
        await _post(endpoints, f"{pds_url}/xrpc/com.atproto.server.deleteSession", bearer=refresh)
    except PlatformAuthError:
        return False
    return True


async def _post(
    endpoints: PlatformEndpoints, url: str, *, json: Any = None, bearer: Secret | None = None
) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {bearer.value}"} if bearer is not None else {}
    async with endpoints.client(timeout=30.0) as client:
        try:
            response = await client.post(url, json=json, headers=headers)
        except httpx2.HTTPError as error:
            raise PlatformAuthError(f"the PDS did not answer: {type(error).__name__}", refused=False) from None
    try:
        body = response.json() if response.content else {}
    except ValueError:
        body = None
    if response.status_code == 429 or response.status_code >= 500:
        raise PlatformAuthError(f"the PDS answered {response.status_code}", refused=False)
    if response.status_code >= 400:
        code = dig(body, "error") or response.status_code
        raise PlatformAuthError(f"the PDS refused: {code}", refused=True)
    if not isinstance(body, dict):
        raise PlatformAuthError("the PDS answered something that is not JSON", refused=False)
    return body


def _tokens(body: dict[str, Any]) -> TokenSet:
    access, refresh = body.get("accessJwt"), body.get("refreshJwt")
    if not isinstance(access, str) or not isinstance(refresh, str) or not access or not refresh:
        raise PlatformAuthError("the PDS's session has no tokens", refused=False)
    return TokenSet(Secret(access), Secret(refresh), jwt_expiry(access), ("app_password",))


def jwt_expiry(token: str) -> datetime | None:
    """The `exp` of a JWT, read without verifying it (it is only when to refresh ahead)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return datetime.fromtimestamp(int(claims["exp"]), UTC)
    except (IndexError, ValueError, KeyError, TypeError):
        return None


def _pds_of(did_doc: Any) -> str | None:
    for service in dig(did_doc, "service") or []:
        if isinstance(service, dict) and str(service.get("id", "")).endswith("#atproto_pds"):
            endpoint = service.get("serviceEndpoint")
            if isinstance(endpoint, str) and endpoint.startswith(("https://", "http://")):
                return endpoint.rstrip("/")
    return None


async def _profile(endpoints: PlatformEndpoints, pds: str, did: str, token: Secret) -> tuple[str, str]:
    """Display name and avatar from app.bsky.actor.getProfile (the PDS proxies it to the
    AppView); empty when there is none to ask (a PDS without an AppView)."""
    async with endpoints.client(timeout=10.0) as client:
        try:
            response = await client.get(
                f"{pds}/xrpc/app.bsky.actor.getProfile",
                params={"actor": did},
                headers={"Authorization": f"Bearer {token.value}"},
            )
            body = response.json() if response.status_code == 200 else {}
        except (httpx2.HTTPError, ValueError):
            body = {}
    name, avatar = dig(body, "displayName"), dig(body, "avatar")
    return (name[:200] if isinstance(name, str) else ""), (avatar[:1000] if isinstance(avatar, str) else "")
