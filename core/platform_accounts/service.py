"""Connecting platform accounts to profiles (docs/live-publishing.md, "Connecting accounts").

1. **Start** (`start`): checks what the user asked for, finds the app to sign in with (the
   operator's, or Herald's own on a Mastodon instance, registered once and reused), stores an
   attempt (SHA-256 of a random `state`, a sealed PKCE verifier, the session that started it) and
   answers the platform's authorization URL.
2. **Complete** (`complete`, from the callback the platform redirects the browser to): the
   attempt is used up first (single use, whatever happens next), then the code is exchanged and
   the account identified over HTTP with no transaction open, then the profile is written.
3. **Bluesky** (`connect_bluesky`): an app password exchanged at the account's PDS for a session.

The profile the account lands in: core/platform_accounts/accounts.py. The app Herald signs in with:
core/platform_accounts/apps.py.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.redirects import app_url, local_path
from core.connectors.transport import PlatformEndpoints
from core.db.models import connect_attempts, profiles, sessions
from core.errors import NotFound, ValidationError
from core.identity.credentials import hash_secret
from core.ids import new_id
from core.platform_accounts import bluesky_sessions
from core.platform_accounts.accounts import AccountProfiles, Wanted, check_wanted
from core.platform_accounts.apps import PlatformApps
from core.platform_accounts.errors import ConnectionFailed, ConnectStateInvalid, PlatformNotConfigured
from core.platform_accounts.oauth import PlatformAuthError, TokenSet
from core.platform_accounts.platforms import OAUTH_PLATFORMS, MastodonAuth
from core.platform_accounts.vault import Secret, TokenVault
from core.posts.rules import PLATFORMS
from core.profiles import events as profile_events
from core.profiles.service import validate_slug
from core.settings import CoreSettings

Transaction = Callable[..., AbstractAsyncContextManager[AsyncConnection]]


@dataclass(frozen=True, slots=True)
class Started:
    authorization_url: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class Connected:
    profile_id: str
    slug: str
    return_to: str
    created: bool


class Connections:
    def __init__(self, settings: CoreSettings, endpoints: PlatformEndpoints, vault: TokenVault) -> None:
        self.settings = settings
        self.endpoints = endpoints
        self.vault = vault
        self.apps = PlatformApps(settings, endpoints, vault)
        self.accounts = AccountProfiles(vault)

    @property
    def callback_url(self) -> str:
        return self.apps.callback_url

    async def start(
        self,
        tx: Transaction,
        *,
        org_id: str,
        user_id: str,
        session_id: str | None,
        connector: str,
        instance_url: str,
        return_to: str,
        wanted: Wanted,
        now: datetime,
    ) -> Started:
        platform = _oauth_platform(connector)
        wanted = check_wanted(wanted)
        return_to = _check_return_to(return_to, self.settings.connect_return_origins)
        if isinstance(platform, MastodonAuth):
            app, app_id = await self.apps.for_instance(tx, self._instance(instance_url), now)
        else:
            if instance_url:
                raise ValidationError(f"instance_url is only for mastodon, not {connector}")
            configured = platform.app(self.settings)
            if configured is None:
                raise PlatformNotConfigured(
                    f"the operator has not registered Herald on {connector} (HERALD_{connector.upper()}_CLIENT_ID)"
                )
            app, app_id = configured, None
        state, verifier = secrets.token_urlsafe(32), secrets.token_urlsafe(48)
        attempt_id = new_id("cnx")
        expires_at = now + timedelta(seconds=self.settings.connect_attempt_lifetime_seconds)
        async with tx(writes=True) as conn:
            await conn.execute(
                insert(connect_attempts).values(
                    id=attempt_id,
                    state_hash=hash_secret(state),
                    org_id=org_id,
                    user_id=user_id,
                    session_id=session_id,
                    connector=connector,
                    instance_url=app.instance_url,
                    app_id=app_id,
                    code_verifier=self.vault.seal(verifier, bound_to=f"{attempt_id}:verifier"),
                    redirect_uri=self.callback_url,
                    return_to=return_to,
                    slug=wanted.slug,
                    display_name=wanted.display_name,
                    tags=" ".join(wanted.tags),
                    created_at=now,
                    expires_at=expires_at,
                    used_at=None,
                )
            )
        url = platform.authorization_url(app, redirect_uri=self.callback_url, state=state, code_verifier=verifier)
        return Started(str(self.endpoints.rewrite(url)), expires_at)

    async def complete(
        self, tx: Transaction, *, state: str, code: str, error: str, session_token: str, now: datetime
    ) -> Connected:
        async with tx(writes=True) as conn:
            attempt = await self._use_attempt(conn, state, session_token, now)
        return_to = attempt.return_to
        if error or not code:
            raise ConnectionFailed(
                f"the sign-in on {attempt.connector} did not grant access ({error[:64] or 'no code'})",
                refused="true",
                return_to=return_to,
            )
        platform = OAUTH_PLATFORMS[attempt.connector]
        app = await self.apps.of_attempt(tx, attempt)
        verifier = self.vault.open(attempt.code_verifier, bound_to=f"{attempt.id}:verifier").value
        try:
            tokens = await platform.exchange(
                self.endpoints, app, code=code, redirect_uri=attempt.redirect_uri, code_verifier=verifier
            )
            identity = await platform.identity(self.endpoints, app, tokens)
        except PlatformAuthError as failure:
            raise ConnectionFailed(
                f"{attempt.connector}: {failure}", refused=str(failure.refused).lower(), return_to=return_to
            ) from None
        wanted = Wanted(attempt.slug, attempt.display_name, tuple(attempt.tags.split()))
        async with tx(writes=True) as conn:
            profile_id, slug, created = await self.accounts.write(
                conn, attempt.org_id, attempt.connector, attempt.instance_url, identity, tokens, wanted, now
            )
        return Connected(profile_id, slug, return_to, created)

    async def connect_bluesky(
        self,
        tx: Transaction,
        *,
        org_id: str,
        identifier: str,
        app_password: Secret,
        pds_url: str,
        wanted: Wanted,
        now: datetime,
    ) -> Connected:
        wanted = check_wanted(wanted)
        identifier = identifier.strip().lstrip("@")
        if not identifier or len(identifier) > 253:
            raise ValidationError("identifier must be the account's handle, DID or email")
        if not app_password.value or len(app_password.value) > 256:
            raise ValidationError("app_password must be an app password created in the account's settings")
        pds = self._instance(pds_url or bluesky_sessions.DEFAULT_PDS, "pds_url")
        try:
            tokens, identity, home = await bluesky_sessions.create_session(self.endpoints, pds, identifier, app_password)
        except PlatformAuthError as failure:
            raise ConnectionFailed(f"bluesky: {failure}", refused=str(failure.refused).lower()) from None
        async with tx(writes=True) as conn:
            profile_id, slug, created = await self.accounts.write(
                conn, org_id, "bluesky", home, identity, tokens, wanted, now
            )
        return Connected(profile_id, slug, "", created)

    async def disconnect(self, tx: Transaction, *, org_id: str, slug: str, now: datetime) -> bool:
        """Forgets the profile's tokens (status `disconnected`; the account id stays, so connecting
        the same account again finds this profile). The grant is revoked at the platform first
        where the platform offers that; True when it confirmed."""
        async with tx() as conn:
            row = (
                await conn.execute(
                    select(profiles).where(profiles.c.org_id == org_id, profiles.c.slug == validate_slug(slug))
                )
            ).first()
        if row is None:
            raise NotFound(f"no profile {slug!r} in this organization")
        revoked = False
        if row.access_token:
            revoked = await self._revoke(tx, row)
        async with tx(writes=True) as conn:
            await conn.execute(
                update(profiles)
                .where(profiles.c.id == row.id)
                .values(
                    connection_status="disconnected",
                    connection_error="",
                    access_token=None,
                    refresh_token=None,
                    token_expires_at=None,
                    token_version=profiles.c.token_version + 1,
                    refresh_lease_until=None,
                )
            )
            if row.connection_status != "disconnected":  # disconnecting again changes nothing
                await profile_events.emit(conn, org_id, row.id, "profile.disconnected", now)
        return revoked

    async def _revoke(self, tx: Transaction, row) -> bool:  # a profiles row
        access = self.vault.open(row.access_token, bound_to=f"{row.id}:access")
        refresh = self.vault.open(row.refresh_token, bound_to=f"{row.id}:refresh") if row.refresh_token else None
        try:
            if row.connector == "bluesky":
                return refresh is not None and await bluesky_sessions.delete_session(self.endpoints, row.instance_url, refresh)
            app = await self.apps.of_profile(tx, row.connector, row.instance_url)
            if app is None:
                return False
            return await OAUTH_PLATFORMS[row.connector].revoke(self.endpoints, app, TokenSet(access, refresh))
        except PlatformAuthError:
            return False

    # --- attempts and apps ------------------------------------------------------------------

    async def _use_attempt(self, conn: AsyncConnection, state: str, session_token: str, now: datetime):
        if not state or len(state) > 200:
            raise ConnectStateInvalid("the callback carries no valid state; start connecting again")
        row = (
            await conn.execute(select(connect_attempts).where(connect_attempts.c.state_hash == hash_secret(state)))
        ).first()
        if row is None or row.used_at is not None or row.expires_at <= now:
            raise ConnectStateInvalid("this connection was already completed, has expired, or is unknown; start again")
        if row.session_id is not None and await self._session_id(conn, session_token, now) != row.session_id:
            raise ConnectStateInvalid("this connection was started in another browser session; start again here")
        used = await conn.execute(
            update(connect_attempts)
            .where(connect_attempts.c.id == row.id, connect_attempts.c.used_at.is_(None))
            .values(used_at=now)
        )
        if not used.rowcount:
            raise ConnectStateInvalid("this connection was already completed; start again")
        return row

    @staticmethod
    async def _session_id(conn: AsyncConnection, token: str, now: datetime) -> str | None:
        if not token:
            return None
        return await conn.scalar(
            select(sessions.c.id).where(
                sessions.c.token_hash == hash_secret(token),
                sessions.c.revoked_at.is_(None),
                sessions.c.expires_at > now,
            )
        )

    # --- checks -------------------------------------------------------------------------------

    def _instance(self, url: str, field: str = "instance_url") -> str:
        """A Mastodon instance or Bluesky PDS base URL: https (http only where private addresses
        are allowed, i.e. tests and private deployments), a host, nothing else."""
        url = url.strip().rstrip("/")
        if not url:
            raise ValidationError(f"{field} is required: the server the account lives on, e.g. mastodon.social")
        if "://" not in url:
            url = f"https://{url}"
        parts = urlsplit(url)
        schemes = ("https", "http") if self.settings.allows_private_targets else ("https",)
        if (
            parts.scheme not in schemes
            or not parts.hostname
            or parts.path not in ("", "/")
            or parts.query
            or parts.fragment
            or parts.username
            or len(url) > 500
        ):
            raise ValidationError(f"{field} must be the server's https address, e.g. https://mastodon.social")
        return f"{parts.scheme}://{parts.netloc.lower()}"


def _oauth_platform(connector: str):
    if connector == "bluesky":
        raise ValidationError("bluesky accounts connect with an app password (ConnectBluesky), not a sign-in page")
    if connector not in PLATFORMS:
        raise ValidationError(f"platform must be one of {', '.join(PLATFORMS)}")
    return OAUTH_PLATFORMS[connector]


def _check_return_to(return_to: str, origins: str) -> str:
    """Where the browser goes when the connection ends: a path of this site, or a page of an
    application whose origin the operator listed (HERALD_CONNECT_RETURN_ORIGINS); the shapes are
    contract/redirects.py's, which the facade's callback applies again before redirecting."""
    return_to = return_to.strip()
    if checked := local_path(return_to):
        return checked
    allowed = {origin.strip().rstrip("/").lower() for origin in origins.split(",") if origin.strip()}
    if (checked := app_url(return_to)) and _origin(checked) in allowed:
        return checked
    listed = f" or a page of {', '.join(sorted(allowed))}" if allowed else ""
    raise ValidationError(
        f"return_to must be a path of this site (/…){listed}: at most 2000 characters, without "
        "whitespace, control characters or backslashes"
    )


def _origin(url: str) -> str:
    parts = urlsplit(url)
    default = {"https": 443, "http": 80}[parts.scheme]
    port = f":{parts.port}" if parts.port is not None and parts.port != default else ""
    return f"{parts.scheme}://{(parts.hostname or '').lower()}{port}"
