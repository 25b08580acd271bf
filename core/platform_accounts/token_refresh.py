"""Platform tokens on the workers: opened for a delivery, refreshed one worker at a time.

A refresh takes a short lease on the profile (`refresh_lease_until`, set only over the token
version it read), calls the platform with no transaction open, and stores the new tokens only
over that same version. Platforms that rotate refresh tokens (X, TikTok, Bluesky) accept each
one once, so two workers must never refresh with the same one: the second waits for the lease,
sees the new version, and uses the new token. A platform's definite refusal marks the profile
`needs_reauth` (a human connects it again; its due posts fail with `needs_reauth`); a platform
that does not answer leaves the profile as it is and the delivery retries later.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from core.connectors.base import DeliveryError, ErrorClass
from core.connectors.transport import PlatformEndpoints
from core.db.engine import transaction
from core.db.models import profiles
from core.db.types import utcnow
from core.platform_accounts import bluesky_sessions
from core.platform_accounts.oauth import PlatformAuthError, TokenSet
from core.platform_accounts.platforms import OAUTH_PLATFORMS
from core.platform_accounts.vault import Secret, TokenVault
from core.profiles import events as profile_events
from core.settings import CoreSettings

log = logging.getLogger(__name__)

REFRESH_LEASE = timedelta(seconds=60)
WAIT_FOR_OTHER_REFRESH = 0.25
WAIT_ROUNDS = 120  # up to 30 s for another worker's refresh
# Refreshed before a delivery when the access token ends within this.
EXPIRY_MARGIN = timedelta(seconds=60)
# Platforms whose tokens cannot be refreshed (Mastodon's never expire; a refused one was revoked).
NOT_REFRESHABLE = frozenset({"mastodon"})


@dataclass(frozen=True, slots=True)
class StoredTokens:
    """A profile's sealed tokens as read with its post (publisher claim) or on its own."""

    profile_id: str
    connector: str
    instance_url: str
    access_token: str | None
    refresh_token: str | None
    expires_at: datetime | None
    version: int


class NeedsReauth(DeliveryError):
    def __init__(self, message: str) -> None:
        super().__init__(ErrorClass.NEEDS_REAUTH, message, code="needs_reauth")


class ProfileToken:
    """The live API's TokenSource for one delivery."""

    def __init__(self, keeper: TokenKeeper, stored: StoredTokens) -> None:
        if stored.access_token is None:
            raise NeedsReauth("the profile has no connected account")
        self.keeper = keeper
        self.stored = stored
        self.access = keeper.vault.open(stored.access_token, bound_to=f"{stored.profile_id}:access")
        self.version = stored.version

    def authorization(self, scheme: str) -> str:
        return f"{scheme} {self.access.value}"

    def expires_soon(self, now: datetime) -> bool:
        return self.stored.expires_at is not None and self.stored.expires_at - now < EXPIRY_MARGIN

    async def refresh(self) -> None:
        self.access, self.version = await self.keeper.refresh(self.stored.profile_id, self.version)


class TokenKeeper:
    def __init__(
        self, settings: CoreSettings, engine: AsyncEngine, endpoints: PlatformEndpoints, vault: TokenVault
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.endpoints = endpoints
        self.vault = vault

    def token(self, stored: StoredTokens) -> ProfileToken:
        return ProfileToken(self, stored)

    async def refresh(self, profile_id: str, seen_version: int) -> tuple[Secret, int]:
        """New tokens for the profile (or the ones another worker just got): the access token
        and its version. Raises NeedsReauth, or DeliveryError(RETRYABLE) when the platform did
        not answer."""
        for _ in range(WAIT_ROUNDS):
            now = utcnow()
            async with transaction(self.engine, writes=True) as conn:
                row = (await conn.execute(select(profiles).where(profiles.c.id == profile_id))).first()
                if row is None or row.connection_status != "connected" or row.access_token is None:
                    raise NeedsReauth(
                        row.connection_error
                        if row is not None and row.connection_error
                        else "the profile is not connected"
                    )
                if row.token_version != seen_version:
                    return self._access(row), row.token_version
                leased = await conn.execute(
                    update(profiles)
                    .where(
                        profiles.c.id == profile_id,
                        profiles.c.token_version == seen_version,
                        or_(profiles.c.refresh_lease_until.is_(None), profiles.c.refresh_lease_until <= now),
                    )
                    .values(refresh_lease_until=now + REFRESH_LEASE)
                )
            if leased.rowcount:
                return await self._refresh_leased(row, now)
            await asyncio.sleep(WAIT_FOR_OTHER_REFRESH)
        raise DeliveryError(ErrorClass.RETRYABLE, "another worker is still refreshing this profile's token")

    async def _refresh_leased(self, row, now: datetime) -> tuple[Secret, int]:  # a profiles row
        try:
            fresh = await self._platform_refresh(row)
        except PlatformAuthError as failure:
            if failure.refused:
                await self._needs_reauth(
                    row.id, row.token_version, f"{row.connector} refused the token refresh: {failure}"
                )
                raise NeedsReauth(f"{row.connector} refused the token refresh; connect the account again") from None
            await self._release(row.id, row.token_version)
            raise DeliveryError(ErrorClass.RETRYABLE, f"{row.connector} did not refresh the token: {failure}") from None
        refresh = (
            self.vault.seal(fresh.refresh_token.value, bound_to=f"{row.id}:refresh")
            if fresh.refresh_token is not None
            else row.refresh_token
        )
        async with transaction(self.engine, writes=True) as conn:
            stored = await conn.execute(
                update(profiles)
                .where(profiles.c.id == row.id, profiles.c.token_version == row.token_version)
                .values(
                    access_token=self.vault.seal(fresh.access_token.value, bound_to=f"{row.id}:access"),
                    refresh_token=refresh,
                    token_expires_at=fresh.expires_at,
                    token_version=row.token_version + 1,
                    refresh_lease_until=None,
                )
            )
        if not stored.rowcount:  # the account was connected again or disconnected meanwhile
            raise DeliveryError(ErrorClass.RETRYABLE, "the profile's tokens changed during the refresh")
        log.info("refreshed the %s token of profile %s", row.connector, row.id)
        return fresh.access_token, row.token_version + 1

    async def _platform_refresh(self, row) -> TokenSet:
        access = self._access(row)
        refresh = self.vault.open(row.refresh_token, bound_to=f"{row.id}:refresh") if row.refresh_token else None
        if row.connector in NOT_REFRESHABLE:
            raise PlatformAuthError(f"{row.connector} tokens cannot be refreshed", refused=True)
        if row.connector == "bluesky":
            if refresh is None:
                raise PlatformAuthError("no refresh token", refused=True)
            return await bluesky_sessions.refresh_session(self.endpoints, row.instance_url, refresh)
        platform = OAUTH_PLATFORMS[row.connector]
        app = platform.app(self.settings)
        if app is None:
            raise PlatformAuthError(f"the operator's {row.connector} app is not configured", refused=False)
        return await platform.refresh(self.endpoints, app, TokenSet(access, refresh))

    def _access(self, row) -> Secret:
        return self.vault.open(row.access_token, bound_to=f"{row.id}:access")

    async def _needs_reauth(self, profile_id: str, version: int, reason: str) -> None:
        async with transaction(self.engine, writes=True) as conn:
            org_id = await conn.scalar(
                update(profiles)
                .where(profiles.c.id == profile_id, profiles.c.token_version == version)
                .where(profiles.c.connection_status != "needs_reauth")
                .values(connection_status="needs_reauth", connection_error=reason[:2000], refresh_lease_until=None)
                .returning(profiles.c.org_id)
            )
            if org_id is not None:
                await profile_events.emit(conn, org_id, profile_id, "profile.needs_reauth", utcnow())

    async def _release(self, profile_id: str, version: int) -> None:
        async with transaction(self.engine, writes=True) as conn:
            await conn.execute(
                update(profiles)
                .where(profiles.c.id == profile_id, profiles.c.token_version == version)
                .values(refresh_lease_until=None)
            )

    async def needs_reauth_now(self, profile_id: str, version: int, reason: str) -> None:
        """The platform refused a token that was just refreshed (or cannot be): a human must
        connect the account again."""
        await self._needs_reauth(profile_id, version, reason)

    async def expiring(self, now: datetime, limit: int = 100) -> list[tuple[str, str, int]]:
        """Connected, refreshable profiles whose token ends within the refresh-ahead window:
        (profile id, organization id, token version)."""
        horizon = now + timedelta(seconds=self.settings.platform_refresh_ahead_seconds)
        async with transaction(self.engine) as conn:
            rows = await conn.execute(
                select(profiles.c.id, profiles.c.org_id, profiles.c.token_version)
                .where(
                    profiles.c.connection_status == "connected",
                    profiles.c.token_expires_at.is_not(None),
                    profiles.c.token_expires_at < horizon,
                    profiles.c.connector.not_in(list(NOT_REFRESHABLE)),
                    or_(profiles.c.refresh_lease_until.is_(None), profiles.c.refresh_lease_until <= now),
                    profiles.c.access_token.is_not(None),
                )
                .order_by(profiles.c.token_expires_at)
                .limit(limit)
            )
            return [(r.id, r.org_id, r.token_version) for r in rows]
