"""Webhook endpoints: register, list, change, delete, rotate the signing secret.

Secrets are Standard Webhooks secrets (`whsec_` + base64 of 32 random bytes), answered on
creation and rotation only and stored sealed (core/platform_accounts/vault.py), bound to the row and
to their role, so a sealed secret copied into another row or column does not open. After a
rotation the previous secret stays for ROTATION_OVERLAP: deliveries carry both signatures.
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import bindparam, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import organizations, webhooks
from core.errors import NotFound, ValidationError
from core.ids import new_id
from core.pagination import Page, next_token
from core.platform_accounts.vault import TokenVault
from core.webhooks.events import ALL, EVENT_TYPES

MAX_URL = 2000
MAX_DESCRIPTION = 500
MAX_ENDPOINTS = 20
SECRET_BYTES = 32
ROTATION_OVERLAP = timedelta(hours=24)
_ID = re.compile(r"whk_[0-9a-z]{26}")
# Control characters and whitespace have no place in a URL a server will be called at.
_UNSAFE = re.compile(r"[\x00-\x20\x7f]")


@dataclass(frozen=True, slots=True)
class Endpoint:
    id: str
    url: str
    events: tuple[str, ...]
    description: str
    enabled: bool
    disabled_reason: str
    created_at: datetime
    # Only in the answer of create (and of rotate, as `secret` of its own message).
    secret: str = ""


def new_secret() -> str:
    return "whsec_" + base64.b64encode(os.urandom(SECRET_BYTES)).decode()


def check_url(url: str) -> str:
    if not url:
        raise ValidationError("url is required: an absolute http(s) URL")
    if len(url) > MAX_URL:
        raise ValidationError(f"url is {len(url)} characters; the maximum is {MAX_URL}")
    if _UNSAFE.search(url):
        raise ValidationError("url must not contain spaces or control characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise ValidationError("url is not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError("url must be an absolute http(s) URL, e.g. https://example.com/herald-events")
    if parts.username is not None or parts.password is not None:
        raise ValidationError("url must not carry credentials (user:password@); the signature authenticates Herald")
    return url


def check_events(events: list[str]) -> tuple[str, ...]:
    if not events:
        raise ValidationError('events must name at least one event type, or be ["*"] for every type')
    if ALL in events:
        if len(set(events)) > 1:
            raise ValidationError('events: "*" already means every type; send ["*"] alone')
        return (ALL,)
    unknown = [e for e in events if e not in EVENT_TYPES]
    if unknown:
        raise ValidationError(f"events: unknown event type {unknown[0][:64]!r} (GET /v1/webhook-events lists them)")
    return tuple(sorted(set(events)))


def check_description(description: str) -> str:
    if len(description) > MAX_DESCRIPTION:
        raise ValidationError(f"description is {len(description)} characters; the maximum is {MAX_DESCRIPTION}")
    return description


def _bound(webhook_id: str, role: str) -> str:
    return f"webhook:{webhook_id}:{role}"


_COLUMNS = (
    webhooks.c.id,
    webhooks.c.url,
    webhooks.c.events,
    webhooks.c.description,
    webhooks.c.enabled,
    webhooks.c.disabled_reason,
    webhooks.c.created_at,
)
_GET = select(*_COLUMNS).where(webhooks.c.org_id == bindparam("org"), webhooks.c.id == bindparam("id"))


def _endpoint(row, secret: str = "") -> Endpoint:  # a result row
    return Endpoint(
        row.id,
        row.url,
        tuple(row.events.split(",")),
        row.description,
        row.enabled,
        row.disabled_reason,
        row.created_at,
        secret,
    )


async def create(
    conn: AsyncConnection,
    vault: TokenVault,
    org_id: str,
    *,
    url: str,
    events: list[str],
    description: str,
    now: datetime,
) -> Endpoint:
    url, chosen, description = check_url(url), check_events(events), check_description(description)
    # The organization's row is locked so two concurrent registrations cannot both be the 20th.
    await conn.execute(select(organizations.c.id).where(organizations.c.id == org_id).with_for_update())
    count = await conn.scalar(select(func.count()).select_from(webhooks).where(webhooks.c.org_id == org_id))
    if count >= MAX_ENDPOINTS:
        raise ValidationError(f"an organization may have at most {MAX_ENDPOINTS} webhook endpoints; delete one first")
    webhook_id, secret = new_id("whk"), new_secret()
    row = {
        "id": webhook_id,
        "org_id": org_id,
        "url": url,
        "events": ",".join(chosen),
        "description": description,
        "enabled": True,
        "disabled_reason": "",
        "secret_sealed": vault.seal(secret, bound_to=_bound(webhook_id, "current")),
        "previous_secret_sealed": "",
        "previous_secret_until": None,
        "created_at": now,
        "updated_at": now,
    }
    await conn.execute(webhooks.insert(), row)
    return Endpoint(webhook_id, url, chosen, description, True, "", now, secret)


async def list_endpoints(conn: AsyncConnection, org_id: str, page: Page) -> tuple[list[Endpoint], str]:
    """Newest first (ids sort by creation time)."""
    stmt = select(*_COLUMNS).where(webhooks.c.org_id == org_id)
    if page.after:
        stmt = stmt.where(webhooks.c.id < page.after)
    rows = (await conn.execute(stmt.order_by(webhooks.c.id.desc()).limit(page.size + 1))).all()
    return [_endpoint(r) for r in rows[: page.size]], next_token([r.id for r in rows], page.size)


async def get(conn: AsyncConnection, org_id: str, webhook_id: str) -> Endpoint:
    row = (
        (await conn.execute(_GET, {"org": org_id, "id": webhook_id})).one_or_none()
        if _ID.fullmatch(webhook_id)
        else None
    )
    if row is None:
        raise NotFound("no such webhook in this organization")
    return _endpoint(row)


async def change(
    conn: AsyncConnection,
    org_id: str,
    webhook_id: str,
    *,
    url: str | None,
    events: list[str] | None,
    description: str | None,
    enabled: bool | None,
    now: datetime,
) -> Endpoint:
    await get(conn, org_id, webhook_id)
    values: dict[str, object] = {"updated_at": now}
    if url is not None:
        values["url"] = check_url(url)
    if events is not None:
        values["events"] = ",".join(check_events(events))
    if description is not None:
        values["description"] = check_description(description)
    if enabled is not None:
        values["enabled"] = enabled
        if enabled:
            values.update(disabled_reason="", failing_since=None)  # a fresh start
    await conn.execute(update(webhooks).where(webhooks.c.org_id == org_id, webhooks.c.id == webhook_id).values(values))
    return await get(conn, org_id, webhook_id)


async def remove(conn: AsyncConnection, org_id: str, webhook_id: str) -> Endpoint:
    endpoint = await get(conn, org_id, webhook_id)
    await conn.execute(delete(webhooks).where(webhooks.c.org_id == org_id, webhooks.c.id == webhook_id))
    return endpoint


async def rotate(
    conn: AsyncConnection, vault: TokenVault, org_id: str, webhook_id: str, now: datetime
) -> tuple[str, datetime]:
    """A new secret; the current one becomes the previous one until now + ROTATION_OVERLAP
    (a previous one still in its overlap is dropped: two signatures at most)."""
    await get(conn, org_id, webhook_id)
    sealed = await conn.scalar(select(webhooks.c.secret_sealed).where(webhooks.c.id == webhook_id).with_for_update())
    current = vault.open(sealed, bound_to=_bound(webhook_id, "current")).value
    secret, until = new_secret(), now + ROTATION_OVERLAP
    await conn.execute(
        update(webhooks)
        .where(webhooks.c.id == webhook_id)
        .values(
            secret_sealed=vault.seal(secret, bound_to=_bound(webhook_id, "current")),
            previous_secret_sealed=vault.seal(current, bound_to=_bound(webhook_id, "previous")),
            previous_secret_until=until,
            updated_at=now,
        )
    )
    return secret, until


async def signing_secrets(conn: AsyncConnection, vault: TokenVault, webhook_id: str, now: datetime) -> list[str]:
    """The secrets a delivery is signed with now: the current one, and the previous one during
    its overlap."""
    row = (await conn.execute(select(*SECRET_COLUMNS).where(webhooks.c.id == webhook_id))).one()
    return secrets_of(vault, webhook_id, row, now)


# What `secrets_of` reads of an endpoint's row.
SECRET_COLUMNS = (webhooks.c.secret_sealed, webhooks.c.previous_secret_sealed, webhooks.c.previous_secret_until)


def secrets_of(vault: TokenVault, webhook_id: str, row: Any, now: datetime) -> list[str]:  # a Row
    """The secrets, opened, of a row holding SECRET_COLUMNS."""
    secrets = [vault.open(row.secret_sealed, bound_to=_bound(webhook_id, "current")).value]
    if row.previous_secret_sealed and row.previous_secret_until is not None and row.previous_secret_until > now:
        secrets.append(vault.open(row.previous_secret_sealed, bound_to=_bound(webhook_id, "previous")).value)
    return secrets


async def reseal(conn: AsyncConnection, vault: TokenVault) -> int:
    """Every webhook secret not sealed under the vault's current key, sealed under it (key
    rotation: `herald admin reseal-tokens`); how many endpoints changed."""
    changed = 0
    rows = (
        await conn.execute(select(webhooks.c.id, webhooks.c.secret_sealed, webhooks.c.previous_secret_sealed))
    ).all()
    for row in rows:
        values = {}
        if vault.needs_reseal(row.secret_sealed):
            values["secret_sealed"] = vault.reseal(row.secret_sealed, bound_to=_bound(row.id, "current"))
        if row.previous_secret_sealed and vault.needs_reseal(row.previous_secret_sealed):
            values["previous_secret_sealed"] = vault.reseal(
                row.previous_secret_sealed, bound_to=_bound(row.id, "previous")
            )
        if values:
            await conn.execute(
                update(webhooks)
                .where(webhooks.c.id == row.id, webhooks.c.secret_sealed == row.secret_sealed)
                .values(values)
            )
            changed += 1
    return changed
