"""Writing a connected account into the organization's profiles (docs/live-publishing.md).

The account (organization, platform, instance, account id) already has a profile → that profile
is updated (tokens, handle, status `connected`) and keeps its slug, tags and its refresh token
when the platform sends no new one; else a named sandbox profile of that platform gets the
account; else a new profile is made, slug from the handle. Tokens are sealed by the vault,
bound to the profile row and the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import profile_tags, profiles
from core.errors import Conflict, ValidationError
from core.identity import profile_limits
from core.identity.principal import Principal
from core.ids import new_id
from core.platform_accounts.oauth import AccountIdentity, TokenSet
from core.platform_accounts.vault import TokenVault
from core.profiles import events as profile_events
from core.profiles.service import validate_slug
from core.tags import normalize_tag

MAX_TAGS = 20
_HANDLE_CHARS = re.compile(r"[^a-z0-9_-]+")


@dataclass(frozen=True, slots=True)
class Wanted:
    """What the user asked the new connection to be called and tagged."""

    slug: str = ""
    display_name: str = ""
    tags: tuple[str, ...] = ()


def check_wanted(wanted: Wanted) -> Wanted:
    if wanted.slug:
        validate_slug(wanted.slug)
    tags = tuple(sorted({normalize_tag(t) for t in wanted.tags}))
    if len(tags) > MAX_TAGS:
        raise ValidationError(f"a profile carries at most {MAX_TAGS} tags")
    name = wanted.display_name.strip()
    if len(name) > 200:
        raise ValidationError("display name is longer than 200 characters")
    return Wanted(wanted.slug, name, tags)


async def check_reach(conn: AsyncConnection, principal: Principal, wanted: Wanted) -> None:
    """A member with profile limits (core/identity/profile_limits.py) connects within them: the
    profile carries one of their tags, and a slug naming an existing profile names one within
    them (else it is taken, as creating a profile with it would say)."""
    if not principal.profile_tags:
        return
    profile_limits.require_kept(principal, wanted.tags)
    if wanted.slug and await profile_limits.outside(conn, principal, [wanted.slug]):
        taken = await conn.scalar(
            select(profiles.c.id).where(profiles.c.org_id == principal.org_id, profiles.c.slug == wanted.slug)
        )
        if taken is not None:
            raise Conflict(f"profile {wanted.slug!r} exists in this organization")


class AccountProfiles:
    def __init__(self, vault: TokenVault) -> None:
        self.vault = vault

    async def write(
        self,
        conn: AsyncConnection,
        org_id: str,
        connector: str,
        instance_url: str,
        identity: AccountIdentity,
        tokens: TokenSet,
        wanted: Wanted,
        now: datetime,
    ) -> tuple[str, str, bool]:
        """The connected account's profile (found by its account, named by `wanted.slug`, or new):
        (profile id, slug, created); `profile.connected` is written with it."""
        profile_id, slug, created = await self._write(
            conn, org_id, connector, instance_url, identity, tokens, wanted, now
        )
        await profile_events.emit(conn, org_id, profile_id, "profile.connected", now)
        return profile_id, slug, created

    async def _write(
        self,
        conn: AsyncConnection,
        org_id: str,
        connector: str,
        instance_url: str,
        identity: AccountIdentity,
        tokens: TokenSet,
        wanted: Wanted,
        now: datetime,
    ) -> tuple[str, str, bool]:
        account = (
            await conn.execute(
                select(profiles.c.id, profiles.c.slug, profiles.c.refresh_token, profiles.c.token_version).where(
                    profiles.c.org_id == org_id,
                    profiles.c.connector == connector,
                    profiles.c.instance_url == instance_url,
                    profiles.c.platform_account_id == identity.platform_account_id,
                )
            )
        ).first()
        if account is not None:
            await self._store(conn, account.id, identity, tokens, now, keep_refresh=account.refresh_token)
            return account.id, account.slug, False
        if wanted.slug:
            named = (
                await conn.execute(
                    select(profiles.c.id, profiles.c.connector, profiles.c.platform_account_id).where(
                        profiles.c.org_id == org_id, profiles.c.slug == wanted.slug
                    )
                )
            ).first()
            if named is not None:
                if named.connector != connector or named.platform_account_id:
                    raise Conflict(f"profile {wanted.slug!r} is connected to another account or platform")
                await conn.execute(update(profiles).where(profiles.c.id == named.id).values(instance_url=instance_url))
                await self._store(conn, named.id, identity, tokens, now, keep_refresh=None)
                return named.id, wanted.slug, False
        slug = wanted.slug or await self._free_slug(conn, org_id, connector, identity.handle)
        profile_id = new_id("prf")
        await conn.execute(
            insert(profiles).values(
                id=profile_id,
                org_id=org_id,
                slug=slug,
                connector=connector,
                display_name=(wanted.display_name or identity.display_name or identity.handle or slug)[:200],
                created_at=now,
                instance_url=instance_url,
            )
        )
        if wanted.tags:
            await conn.execute(
                insert(profile_tags), [{"profile_id": profile_id, "tag": t, "org_id": org_id} for t in wanted.tags]
            )
        await self._store(conn, profile_id, identity, tokens, now, keep_refresh=None)
        return profile_id, slug, True

    async def _store(
        self,
        conn: AsyncConnection,
        profile_id: str,
        identity: AccountIdentity,
        tokens: TokenSet,
        now: datetime,
        *,
        keep_refresh: str | None,
    ) -> None:
        refresh = (
            self.vault.seal(tokens.refresh_token.value, bound_to=f"{profile_id}:refresh")
            if tokens.refresh_token is not None
            else keep_refresh
        )
        await conn.execute(
            update(profiles)
            .where(profiles.c.id == profile_id)
            .values(
                platform_account_id=identity.platform_account_id,
                handle=identity.handle,
                avatar_url=identity.avatar_url,
                granted_scopes=" ".join(tokens.scopes)[:1000],
                connection_status="connected",
                connection_error="",
                connected_at=now,
                access_token=self.vault.seal(tokens.access_token.value, bound_to=f"{profile_id}:access"),
                refresh_token=refresh,
                token_expires_at=tokens.expires_at,
                token_version=profiles.c.token_version + 1,
                refresh_lease_until=None,
                throttled_until=None,
                # Its metrics are read again (docs/analytics.md, "Each platform").
                metrics_error="",
                metrics_unavailable="",
                metrics_throttled_until=None,
            )
        )

    async def _free_slug(self, conn: AsyncConnection, org_id: str, connector: str, handle: str) -> str:
        base = _HANDLE_CHARS.sub("-", f"{connector}-{handle.lower()}").strip("-_")[:56] or connector
        taken = set(
            await conn.scalars(
                select(profiles.c.slug).where(profiles.c.org_id == org_id, profiles.c.slug.like(f"{base}%"))
            )
        )
        if base not in taken:
            return base
        return next(f"{base}-{n}" for n in range(2, 10_000) if f"{base}-{n}" not in taken)
