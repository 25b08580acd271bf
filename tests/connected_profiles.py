"""A profile's connection as connecting leaves it, written straight into its row, for the tests of
what the dashboard and the API show about connections (no platform is reached: the tokens are
placeholders nothing opens). The flows that really connect accounts are tests/e2e/test_live_*.py
and tests/e2e/test_connect_browser.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.models import profiles
from tests.conftest import Org


async def set_connection(
    engine: AsyncEngine,
    org: Org,
    slug: str,
    *,
    status: str = "connected",
    expires_in: timedelta | None = timedelta(days=3),
    renewable: bool = False,
    error: str = "",
    handle: str = "acme",
    instance_url: str = "",
) -> datetime | None:
    """Makes the profile hold an account in `status` whose token ends in `expires_in` (None: never),
    with a refresh token when `renewable` (X, TikTok, YouTube, LinkedIn renew with one), on
    `instance_url` (Mastodon's instance, Bluesky's PDS); answers
    when the token ends. Its access token stays NULL, so disconnecting it asks no platform to
    revoke anything, and no worker refreshes it (the refresh sweep wants an access token)."""
    expires_at = datetime.now(UTC) + expires_in if expires_in is not None else None
    async with engine.begin() as conn:
        await conn.execute(
            update(profiles)
            .where(profiles.c.org_id == org.org_id, profiles.c.slug == slug)
            .values(
                connection_status=status,
                platform_account_id=f"id-{slug}",
                handle=handle,
                connected_at=datetime.now(UTC) - timedelta(days=30),
                token_expires_at=expires_at,
                refresh_token="placeholder" if renewable else None,
                connection_error=error,
                instance_url=instance_url,
            )
        )
    return expires_at
