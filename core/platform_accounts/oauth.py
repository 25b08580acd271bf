"""Herald as an OAuth 2.0 client of the platforms: the machinery every platform shares.

authlib's httpx client does the OAuth 2.0 work (the authorization URL with PKCE S256, the code
exchange, refresh, revocation); `OAuthPlatform` wraps it with what Herald needs around it, and
each platform's class (core/platform_accounts/platforms.py) adds what is its own. Every request goes
through the platform transport (core/connectors/transport.py), so host overrides and the
private-address rule apply here too.

Errors: `PlatformAuthError` with `refused=True` when the platform says no for good (a dead
refresh token, a refused code), `refused=False` when it did not answer usably (try again later).
Tokens are `Secret`s and never appear in an error message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar

import httpx2
from authlib.integrations.base_client import OAuthError
from authlib.integrations.httpx_client import AsyncOAuth2Client

from core.connectors.transport import PlatformEndpoints
from core.db.types import utcnow
from core.platform_accounts.vault import Secret
from core.settings import CoreSettings


@dataclass(frozen=True, slots=True)
class OAuthApp:
    """An app registered on the platform: the operator's (settings), or Herald's own per
    Mastodon instance (`instance_url`)."""

    client_id: str
    client_secret: Secret
    instance_url: str = ""


@dataclass(frozen=True, slots=True)
class TokenSet:
    access_token: Secret
    refresh_token: Secret | None = None
    expires_at: datetime | None = None
    scopes: tuple[str, ...] = ()
    # What the token answer says besides the token (Meta's user_id, TikTok's open_id).
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AccountIdentity:
    platform_account_id: str
    handle: str
    display_name: str = ""
    avatar_url: str = ""


class PlatformAuthError(Exception):
    def __init__(self, message: str, *, refused: bool) -> None:
        super().__init__(message)
        self.refused = refused


def token_set(body: Mapping[str, Any], *, keep_refresh: Secret | None = None, separator: str = " ") -> TokenSet:
    """A token answer (RFC 6749 5.1, and the platforms' variants) as a TokenSet."""
    access = body.get("access_token")
    if not isinstance(access, str) or not access:
        raise PlatformAuthError("the token answer has no access_token", refused=False)
    refresh = body.get("refresh_token")
    expires_in = body.get("expires_in")
    expires_at = None
    if isinstance(expires_in, int | float) and not isinstance(expires_in, bool) and expires_in > 0:
        expires_at = utcnow() + timedelta(seconds=int(expires_in))
    scope = body.get("scope")
    scopes = tuple(sorted({s for s in scope.replace(",", " ").split() if s})) if isinstance(scope, str) else ()
    extra = {k: v for k, v in body.items() if k not in ("access_token", "refresh_token", "id_token")}
    return TokenSet(
        Secret(access),
        Secret(refresh) if isinstance(refresh, str) and refresh else keep_refresh,
        expires_at,
        scopes,
        extra,
    )


class OAuthPlatform:
    """An OAuth 2.0 platform. Subclasses set the class attributes and override what differs."""

    key: ClassVar[str]
    authorize_url: ClassVar[str]
    token_url: ClassVar[str]
    revoke_url: ClassVar[str | None] = None
    scopes: ClassVar[tuple[str, ...]]
    scope_separator: ClassVar[str] = " "
    pkce: ClassVar[bool] = True
    token_auth: ClassVar[str] = "client_secret_post"
    authorize_params: ClassVar[Mapping[str, str]] = {}
    # Whether the platform's refresh uses the access token itself (Meta) instead of a refresh token.
    refreshes_with_access_token: ClassVar[bool] = False

    def app(self, settings: CoreSettings) -> OAuthApp | None:
        """The operator's app from settings (HERALD_<PLATFORM>_CLIENT_ID/_SECRET), or None."""
        client_id = getattr(settings, f"{self.key}_client_id", "")
        secret = getattr(settings, f"{self.key}_client_secret").get_secret_value()
        return OAuthApp(client_id, Secret(secret)) if client_id and secret else None

    def _client(self, endpoints: PlatformEndpoints, app: OAuthApp, redirect_uri: str = "") -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=app.client_id,
            client_secret=app.client_secret.value,
            token_endpoint_auth_method=self.token_auth,
            revocation_endpoint_auth_method=self.token_auth,
            scope=self.scope_separator.join(self.scopes),
            redirect_uri=redirect_uri or None,
            code_challenge_method="S256" if self.pkce else None,
            transport=endpoints.transport(retries=0),
            timeout=30.0,
        )

    def authorization_url(self, app: OAuthApp, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        client = AsyncOAuth2Client(
            client_id=app.client_id,
            scope=self.scope_separator.join(self.scopes),
            redirect_uri=redirect_uri,
            code_challenge_method="S256" if self.pkce else None,
        )
        url, _ = client.create_authorization_url(
            self._authorize_url(app),
            state=state,
            code_verifier=code_verifier if self.pkce else None,
            **self.authorize_params,
        )
        return url

    def _authorize_url(self, app: OAuthApp) -> str:
        return self.authorize_url

    def _token_url(self, app: OAuthApp) -> str:
        return self.token_url

    async def exchange(
        self, endpoints: PlatformEndpoints, app: OAuthApp, *, code: str, redirect_uri: str, code_verifier: str
    ) -> TokenSet:
        async with self._client(endpoints, app, redirect_uri) as client:
            kwargs = {"code_verifier": code_verifier} if self.pkce else {}
            body = await _token_call(client.fetch_token(self._token_url(app), code=code, **kwargs))
        return token_set(body, separator=self.scope_separator)

    async def refresh(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> TokenSet:
        if tokens.refresh_token is None:
            raise PlatformAuthError(
                f"{self.key} gave no refresh token; the account must be connected again", refused=True
            )
        async with self._client(endpoints, app) as client:
            body = await _token_call(
                client.refresh_token(self._token_url(app), refresh_token=tokens.refresh_token.value)
            )
        return token_set(body, keep_refresh=tokens.refresh_token, separator=self.scope_separator)

    async def revoke(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> bool:
        """Revokes the grant at the platform where it offers that; False when it does not."""
        if self.revoke_url is None:
            return False
        token, hint = (
            (tokens.refresh_token, "refresh_token") if tokens.refresh_token else (tokens.access_token, "access_token")
        )
        async with self._client(endpoints, app) as client:
            try:
                response = await client.revoke_token(self._revoke_url(app), token=token.value, token_type_hint=hint)
            except (httpx2.HTTPError, OAuthError) as error:
                raise PlatformAuthError(f"{self.key} did not revoke: {type(error).__name__}", refused=False) from None
        return response.status_code < 400

    def _revoke_url(self, app: OAuthApp) -> str:
        return self.revoke_url or ""

    async def identity(self, endpoints: PlatformEndpoints, app: OAuthApp, tokens: TokenSet) -> AccountIdentity:
        raise NotImplementedError

    async def _get_json(self, endpoints: PlatformEndpoints, url: str, token: Secret | None = None) -> Any:
        headers = {"Authorization": f"Bearer {token.value}"} if token is not None else {}
        async with endpoints.client(timeout=30.0) as client:
            try:
                response = await client.get(url, headers=headers)
            except httpx2.HTTPError as error:
                raise PlatformAuthError(f"{self.key} did not answer: {type(error).__name__}", refused=False) from None
        try:
            body = response.json()
        except (ValueError, json.JSONDecodeError):
            body = None
        if response.status_code >= 500 or response.status_code == 429:
            raise PlatformAuthError(f"{self.key} answered {response.status_code}", refused=False)
        if response.status_code >= 400 or not isinstance(body, dict):
            raise PlatformAuthError(f"{self.key} refused ({response.status_code})", refused=True)
        return body


async def _token_call(call: Any) -> dict[str, Any]:  # an authlib coroutine
    try:
        token = await call
    except OAuthError as error:  # the platform's RFC 6749 error: it refused
        raise PlatformAuthError(f"the platform refused: {error.error}", refused=True) from None
    except httpx2.HTTPStatusError as error:
        status = error.response.status_code
        raise PlatformAuthError(
            f"the token endpoint answered {status}", refused=400 <= status < 500 and status != 429
        ) from None
    except (httpx2.HTTPError, ValueError) as error:
        raise PlatformAuthError(
            f"the token endpoint did not answer usably: {type(error).__name__}", refused=False
        ) from None
    return dict(token)


def account_identity(key: str, account_id: Any, handle: Any, name: Any, avatar: Any) -> AccountIdentity:
    if not isinstance(account_id, str | int) or isinstance(account_id, bool) or str(account_id) == "":
        raise PlatformAuthError(f"{key} did not say whose account this is", refused=False)
    text = [v if isinstance(v, str) else "" for v in (handle, name, avatar)]
    return AccountIdentity(str(account_id)[:255], text[0][:255], text[1][:200], text[2][:1000])
