"""Identity: users, organizations, memberships and API keys."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import api_keys, memberships, organizations, users
from core.errors import Conflict, Forbidden, NotFound, ValidationError
from core.identity.credentials import MintedKey, mint_api_key
from core.identity.passwords import MIN_PASSWORD_LENGTH, hash_password
from core.identity.principal import CredentialKind, Principal
from core.ids import new_id
from core.pagination import Page, next_token

ORG_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}$")
EMAIL_RE = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$")
PLANS = ("active", "trialing", "none")


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    id: str
    display_prefix: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


def validate_org_slug(slug: str) -> str:
    if not ORG_SLUG_RE.match(slug):
        raise ValidationError("organization slug must be 2-63 characters of a-z, 0-9 and '-'")
    return slug


def validate_plan(plan: str) -> str:
    if plan not in PLANS:
        raise ValidationError(f"plan must be one of {', '.join(PLANS)}")
    return plan


def normalize_email(email: str) -> str:
    email = email.strip().lower()
    if len(email) > 320 or not EMAIL_RE.match(email):
        raise ValidationError("email is malformed")
    return email


async def find_user_by_email(conn: AsyncConnection, email: str):  # a Row
    return (await conn.execute(select(users).where(users.c.email == normalize_email(email)))).first()


async def create_user(conn: AsyncConnection, email: str, password: str, now: datetime) -> str:
    """For the admin CLI (hashes inline); the API hashes in a thread first (core/identity/accounts)."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValidationError(f"password must be at least {MIN_PASSWORD_LENGTH} characters")
    return await create_user_with_hash(conn, email, hash_password(password), now)


async def create_user_with_hash(
    conn: AsyncConnection, email: str, password_hash: str, now: datetime, *, verified: bool = True
) -> str:
    """`verified`: the address counts as confirmed (False: a sign-up that must confirm it by mail)."""
    email = normalize_email(email)
    if await find_user_by_email(conn, email) is not None:
        raise Conflict("a user with this email exists")
    user_id = new_id("usr")
    try:  # a concurrent sign-up with the same email loses here, not with a 500
        async with conn.begin_nested():
            await conn.execute(
                insert(users).values(
                    id=user_id,
                    email=email,
                    password_hash=password_hash,
                    created_at=now,
                    email_verified_at=now if verified else None,
                )
            )
    except IntegrityError:
        raise Conflict("a user with this email exists") from None
    return user_id


async def find_org_by_slug(conn: AsyncConnection, slug: str):  # a Row
    return (await conn.execute(select(organizations).where(organizations.c.slug == slug))).first()


async def create_organization(conn: AsyncConnection, slug: str, plan: str, now: datetime) -> str:
    validate_org_slug(slug)
    validate_plan(plan)
    if await find_org_by_slug(conn, slug) is not None:
        raise Conflict(f"organization {slug!r} exists")
    org_id = new_id("org")
    try:
        async with conn.begin_nested():
            await conn.execute(
                insert(organizations).values(
                    id=org_id, slug=slug, name=slug, plan=plan, credit_balance=0, created_at=now
                )
            )
    except IntegrityError:
        raise Conflict(f"organization {slug!r} exists") from None
    return org_id


async def set_plan(conn: AsyncConnection, org_id: str, plan: str) -> None:
    await conn.execute(update(organizations).where(organizations.c.id == org_id).values(plan=validate_plan(plan)))


async def ensure_membership(
    conn: AsyncConnection, user_id: str, org_id: str, role: str, now: datetime, *, profile_tags: tuple[str, ...] = ()
) -> None:
    exists = await conn.scalar(
        select(memberships.c.role).where(memberships.c.user_id == user_id, memberships.c.org_id == org_id)
    )
    if exists is None:
        await conn.execute(
            insert(memberships).values(
                user_id=user_id, org_id=org_id, role=role, created_at=now, profile_tags=" ".join(profile_tags)
            )
        )


async def create_api_key(conn: AsyncConnection, user_id: str, org_id: str, now: datetime) -> tuple[str, MintedKey]:
    minted = mint_api_key()
    key_pk = new_id("key")
    await conn.execute(
        insert(api_keys).values(
            id=key_pk,
            key_id=minted.key_id,
            secret_hash=minted.secret_hash,
            display_prefix=minted.display_prefix,
            user_id=user_id,
            org_id=org_id,
            created_at=now,
        )
    )
    return key_pk, minted


_KEY_COLUMNS = (
    api_keys.c.id,
    api_keys.c.display_prefix,
    api_keys.c.created_at,
    api_keys.c.last_used_at,
    api_keys.c.revoked_at,
)


def _key_record(row) -> ApiKeyRecord:  # a Row
    return ApiKeyRecord(row.id, row.display_prefix, row.created_at, row.last_used_at, row.revoked_at)


async def list_api_keys(conn: AsyncConnection, principal: Principal, page: Page) -> tuple[list[ApiKeyRecord], str]:
    stmt = (
        select(*_KEY_COLUMNS)
        .where(api_keys.c.user_id == principal.user_id, api_keys.c.org_id == principal.org_id)
        .order_by(api_keys.c.id.desc())
        .limit(page.size + 1)
    )
    if page.after:
        stmt = stmt.where(api_keys.c.id < page.after)
    rows = (await conn.execute(stmt)).all()
    return [_key_record(r) for r in rows[: page.size]], next_token([r.id for r in rows], page.size)


async def revoke_api_key(conn: AsyncConnection, principal: Principal, api_key_id: str, now: datetime) -> ApiKeyRecord:
    """Revokes a key of the principal's user in the principal's organization. The conditional
    update is the check: a key of someone else, or one already revoked, is NOT_FOUND."""
    row = (
        await conn.execute(
            update(api_keys)
            .where(
                api_keys.c.id == api_key_id,
                api_keys.c.user_id == principal.user_id,
                api_keys.c.org_id == principal.org_id,
                api_keys.c.revoked_at.is_(None),
            )
            .values(revoked_at=now)
            .returning(*_KEY_COLUMNS)
        )
    ).first()
    if row is None:
        raise NotFound(f"no active API key {api_key_id!r}")
    return _key_record(row)


async def rotate_api_key(
    conn: AsyncConnection, principal: Principal, api_key_id: str, now: datetime
) -> tuple[ApiKeyRecord, str]:
    """Revokes the key and mints its replacement in one transaction; returns the new key and
    its secret. An API key may rotate itself only; other keys need a dashboard session (a key
    that leaked must not be able to replace its owner's other keys)."""
    if principal.credential_kind is CredentialKind.API_KEY and api_key_id != principal.credential_id:
        raise Forbidden("an API key may rotate only itself; manage other keys from the dashboard")
    await revoke_api_key(conn, principal, api_key_id, now)
    new_pk, minted = await create_api_key(conn, principal.user_id, principal.org_id, now)
    await conn.execute(update(api_keys).where(api_keys.c.id == api_key_id).values(replaced_by=new_pk))
    return ApiKeyRecord(new_pk, minted.display_prefix, now, None, None), minted.secret
