"""The app Herald signs in with on each platform: the operator's (settings), or on Mastodon,
Herald's own app registered once per instance (`POST /api/v1/apps`) and reused; its secret is
sealed by the vault."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.connectors.transport import PlatformEndpoints
from core.db.models import platform_apps
from core.ids import new_id
from core.platform_accounts.errors import ConnectionFailed, ConnectStateInvalid, PlatformNotConfigured
from core.platform_accounts.oauth import OAuthApp, PlatformAuthError
from core.platform_accounts.platforms import OAUTH_PLATFORMS, MastodonAuth
from core.platform_accounts.vault import TokenVault
from core.settings import CoreSettings

Transaction = Callable[..., AbstractAsyncContextManager[AsyncConnection]]


class PlatformApps:
    def __init__(self, settings: CoreSettings, endpoints: PlatformEndpoints, vault: TokenVault) -> None:
        self.settings = settings
        self.endpoints = endpoints
        self.vault = vault

    @property
    def callback_url(self) -> str:
        """The one redirect URI the operator registers with every platform."""
        return f"{self.settings.base_url}/connect/callback"

    async def of_profile(self, tx: Transaction, connector: str, instance_url: str) -> OAuthApp | None:
        """The app a connected profile's grant belongs to (for revoking it), None if gone."""
        platform = OAUTH_PLATFORMS[connector]
        if not isinstance(platform, MastodonAuth):
            return platform.app(self.settings)
        async with tx() as conn:
            row = (await conn.execute(self._query(instance_url))).first()
        return self.opened(row) if row is not None else None

    async def for_instance(self, tx: Transaction, instance_url: str, now: datetime) -> tuple[OAuthApp, str]:
        """Herald's app on a Mastodon instance: the one registered before, else a new one."""
        async with tx() as conn:
            row = (await conn.execute(self._query(instance_url))).first()
        if row is None:
            platform = OAUTH_PLATFORMS["mastodon"]
            assert isinstance(platform, MastodonAuth)
            try:
                app = await platform.register(
                    self.endpoints,
                    instance_url,
                    name=self.settings.mastodon_app_name,
                    redirect_uri=self.callback_url,
                    website=self.settings.base_url,
                )
            except PlatformAuthError as failure:
                raise ConnectionFailed(f"mastodon: {failure}", refused=str(failure.refused).lower()) from None
            app_id = new_id("app")
            async with tx(writes=True) as conn:
                # Two users of one new instance at once: the first registration stays.
                row = (await conn.execute(self._query(instance_url))).first()
                if row is None:
                    await conn.execute(
                        insert(platform_apps).values(
                            id=app_id,
                            connector="mastodon",
                            instance_url=instance_url,
                            redirect_uri=self.callback_url,
                            client_id=app.client_id,
                            client_secret=self.vault.seal(app.client_secret.value, bound_to=f"{app_id}:secret"),
                            scopes=" ".join(platform.scopes),
                            created_at=now,
                        )
                    )
                    return app, app_id
        return self.opened(row), row.id

    def _query(self, instance_url: str):
        return select(platform_apps).where(
            platform_apps.c.connector == "mastodon",
            platform_apps.c.instance_url == instance_url,
            platform_apps.c.redirect_uri == self.callback_url,
        )

    def opened(self, row) -> OAuthApp:
        return OAuthApp(
            row.client_id, self.vault.open(row.client_secret, bound_to=f"{row.id}:secret"), row.instance_url
        )

    async def of_attempt(self, tx: Transaction, attempt) -> OAuthApp:
        if attempt.app_id is None:
            app = OAUTH_PLATFORMS[attempt.connector].app(self.settings)
            if app is None:
                raise PlatformNotConfigured(f"the operator's {attempt.connector} app is no longer configured")
            return app
        async with tx() as conn:
            row = (await conn.execute(select(platform_apps).where(platform_apps.c.id == attempt.app_id))).first()
        if row is None:
            raise ConnectStateInvalid("the instance's app registration is gone; start again")
        return self.opened(row)
