"""`herald admin …`: administration without the dashboard; its output is a fixed contract
(docs/decisions.md, "Admin CLI").

Each command runs one transaction against the database and returns one JSON-ready dict.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from core.credits import service as credits
from core.db.engine import transaction
from core.db.models import connect_attempts, organizations, platform_apps
from core.db.models import profiles as profiles_table
from core.db.types import utcnow
from core.errors import NotFound, Unauthorized, ValidationError
from core.identity import service as identity
from core.identity.passwords import verify_password
from core.oauth import jwks as signing_keys
from core.platform_accounts.vault import TokenVault
from core.profiles import service as profiles
from core.webhooks import service as webhook_secrets


def profile_json(profile: profiles.Profile) -> dict[str, Any]:
    """The profile as /v1 shows it: rendered by the contract's own model."""
    from contract.resources import Profile
    from core.profiles.messages import profile_message

    return Profile.from_proto(profile_message(profile))


async def bootstrap(
    engine: AsyncEngine, *, email: str, password: str, org: str, credits_: int | None, plan: str | None
) -> dict[str, Any]:
    """Creates what is missing (user, organization, membership) and mints a new API key.

    An existing user's password must match (bootstrap never resets a password); `--credits`
    is the starting balance of an organization it creates and is ignored for an existing one
    (use `admin credits --add`); `--plan` is applied whenever given (new organizations
    default to `active`).
    """
    if credits_ is not None and credits_ < 0:
        raise ValidationError("--credits must not be negative")
    now = utcnow()
    async with transaction(engine, writes=True) as conn:
        user = await identity.find_user_by_email(conn, email)
        if user is None:
            user_id = await identity.create_user(conn, email, password, now)
        elif not verify_password(user.password_hash, password):
            raise Unauthorized("a user with this email exists and the password does not match")
        else:
            user_id = user.id
        existing = await identity.find_org_by_slug(conn, org)
        if existing is None:
            org_id = await identity.create_organization(conn, org, plan or "active", now)
            if credits_:
                await credits.grant(conn, org_id, credits_, reason="grant", reference="admin bootstrap", now=now)
        else:
            org_id = existing.id
            if plan is not None:
                await identity.set_plan(conn, org_id, plan)
        await identity.ensure_membership(conn, user_id, org_id, "owner", now)
        _, minted = await identity.create_api_key(conn, user_id, org_id, now)
    return {"user_id": user_id, "org_id": org_id, "org": org, "api_key": minted.secret}


async def _org_id(conn, slug: str) -> str:
    org = await identity.find_org_by_slug(conn, slug)
    if org is None:
        raise NotFound(f"no organization {slug!r}")
    return org.id


async def add_profile(
    engine: AsyncEngine,
    *,
    org: str,
    slug: str,
    platform: str,
    tags: list[str],
    display_name: str = "",
    language: str = "",
) -> dict[str, Any]:
    async with transaction(engine, writes=True) as conn:
        org_id = await _org_id(conn, org)
        created = await profiles.create_profile(
            conn,
            org_id,
            slug=slug,
            connector=platform,
            display_name=display_name,
            tags=tags,
            now=utcnow(),
            default_language=language,
        )
    return profile_json(created)


async def add_credits(engine: AsyncEngine, *, org: str, amount: int) -> dict[str, Any]:
    async with transaction(engine, writes=True) as conn:
        org_id = await _org_id(conn, org)
        balance = await credits.grant(conn, org_id, amount, reason="grant", reference="admin credits", now=utcnow())
    return {"org": org, "balance": balance}


async def set_plan(engine: AsyncEngine, *, org: str, plan: str) -> dict[str, Any]:
    async with transaction(engine, writes=True) as conn:
        org_id = await _org_id(conn, org)
        await identity.set_plan(conn, org_id, plan)
    return {"org": org, "plan": plan}


async def set_stock(engine: AsyncEngine, *, org: str, enable: list[str], disable: list[str]) -> dict[str, Any]:
    """Turns stock providers on or off for one organization (docs/stock.md); answers which are
    off now."""
    from core.stock.rules import PROVIDERS

    unknown = sorted(set(enable + disable) - set(PROVIDERS))
    if unknown:
        raise ValidationError(f"unknown provider(s) {', '.join(unknown)}; providers: {', '.join(PROVIDERS)}")
    if set(enable) & set(disable):
        raise ValidationError("a provider cannot be both enabled and disabled")
    async with transaction(engine, writes=True) as conn:
        org_id = await _org_id(conn, org)
        current = await conn.scalar(select(organizations.c.stock_disabled).where(organizations.c.id == org_id))
        off = (set(filter(None, (current or "").split(","))) | set(disable)) - set(enable)
        await conn.execute(
            update(organizations).where(organizations.c.id == org_id).values(stock_disabled=",".join(sorted(off)))
        )
    return {"org": org, "stock_disabled": sorted(off)}


async def reseal_tokens(engine: AsyncEngine, vault: TokenVault) -> dict[str, Any]:
    """Re-seals every platform secret not sealed under the vault's current key (key rotation,
    docs/live-publishing.md): profiles' tokens, Mastodon app secrets, pending PKCE verifiers,
    webhook signing secrets, the OAuth signing key (sealed for the first time if an earlier
    version stored it in the clear).
    Each row is rewritten only if unchanged since it was read (its token version, its value)."""
    resealed = 0
    async with transaction(engine, writes=True) as conn:
        rows = (
            await conn.execute(
                select(profiles_table.c.id, profiles_table.c.access_token, profiles_table.c.refresh_token).where(
                    profiles_table.c.access_token.is_not(None)
                )
            )
        ).all()
        for row in rows:
            values = {}
            for field in ("access", "refresh"):
                sealed = getattr(row, f"{field}_token")
                if sealed and vault.needs_reseal(sealed):
                    values[f"{field}_token"] = vault.reseal(sealed, bound_to=f"{row.id}:{field}")
            if values:
                await conn.execute(
                    update(profiles_table)
                    .where(profiles_table.c.id == row.id, profiles_table.c.access_token == row.access_token)
                    .values(**values)
                )
                resealed += 1
        for app in (await conn.execute(select(platform_apps.c.id, platform_apps.c.client_secret))).all():
            if vault.needs_reseal(app.client_secret):
                sealed = vault.reseal(app.client_secret, bound_to=f"{app.id}:secret")
                await conn.execute(
                    update(platform_apps).where(platform_apps.c.id == app.id).values(client_secret=sealed)
                )
                resealed += 1
        attempts = (
            await conn.execute(
                select(connect_attempts.c.id, connect_attempts.c.code_verifier).where(
                    connect_attempts.c.used_at.is_(None)
                )
            )
        ).all()
        for attempt in attempts:
            if vault.needs_reseal(attempt.code_verifier):
                sealed = vault.reseal(attempt.code_verifier, bound_to=f"{attempt.id}:verifier")
                await conn.execute(
                    update(connect_attempts).where(connect_attempts.c.id == attempt.id).values(code_verifier=sealed)
                )
                resealed += 1
        resealed += await webhook_secrets.reseal(conn, vault)
        resealed += await signing_keys.reseal(conn, vault)
    return {"resealed": resealed, "key_id": vault.current_key_id}
