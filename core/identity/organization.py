"""The organization's own settings: its display name and its time zone (docs/api.md,
"Organization settings").

The time zone is where the organization's people work: the zone the dashboard shows times in.
It changes no instant anywhere: `schedule_at` and every time in a response stay ISO 8601
instants. Reading the settings is open to every credential of the organization (agents with
posts:read); changing them to API keys and dashboard sessions only (core/identity/accounts_servicer.py)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.organization import time_zones
from core.db.models import organizations
from core.errors import NotFound, ValidationError
from core.tags import normalize_tag

MAX_NAME_LENGTH = 200
MAX_TIME_ZONE_LENGTH = 64  # organizations.time_zone's column


@dataclass(frozen=True, slots=True)
class Approvals:
    """Which posts wait for a person's approval (docs/teams.md, "Approvals")."""

    required_for: tuple[str, ...] = ()  # agents, api_keys
    profile_tags: tuple[str, ...] = ()  # empty: every profile
    self_approval: bool = False


@dataclass(frozen=True, slots=True)
class OrganizationSettings:
    id: str
    slug: str
    name: str
    time_zone: str
    created_at: datetime
    approvals: Approvals = Approvals()


def check_time_zone(value: str) -> str:
    if len(value) > MAX_TIME_ZONE_LENGTH or value not in time_zones():
        raise ValidationError(
            f"time_zone {value[:MAX_TIME_ZONE_LENGTH]!r} is not a known IANA time zone (e.g. Europe/Paris, UTC)"
        )
    return value


def check_name(value: str) -> str:
    """The name as stored: trimmed, 1 to 200 characters, no control characters (a name is shown
    on one line)."""
    name = value.strip()
    if not name:
        raise ValidationError("name must not be empty")
    if len(name) > MAX_NAME_LENGTH:
        raise ValidationError(f"name must be at most {MAX_NAME_LENGTH} characters (it has {len(name)})")
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise ValidationError("name must not contain control characters (line breaks, tabs)")
    return name


_COLUMNS = (
    organizations.c.id,
    organizations.c.slug,
    organizations.c.name,
    organizations.c.time_zone,
    organizations.c.created_at,
    organizations.c.approvals_required_for,
    organizations.c.approval_profile_tags,
    organizations.c.self_approval,
)
MAX_APPROVAL_TAGS = 20
# What approvals_required_for may name: posts written by agents (OAuth tokens), by API keys.
CHANNELS = frozenset({"agents", "api_keys"})


def _settings(row) -> OrganizationSettings:  # a Row of _COLUMNS
    approvals = Approvals(
        tuple(row.approvals_required_for.split()), tuple(row.approval_profile_tags.split()), row.self_approval
    )
    return OrganizationSettings(row.id, row.slug, row.name, row.time_zone, row.created_at, approvals)


def check_required_for(values: list[str]) -> str:
    """The stored list (space-separated, deduplicated, in a fixed order)."""
    unknown = sorted(set(values) - CHANNELS)
    if unknown:
        raise ValidationError(
            f"approvals_required_for takes {', '.join(sorted(CHANNELS))}; not {', '.join(v[:40] for v in unknown)}"
        )
    return " ".join(sorted(set(values)))


def check_approval_tags(values: list[str]) -> str:
    if len(set(values)) > MAX_APPROVAL_TAGS:
        raise ValidationError(f"approval_profile_tags takes at most {MAX_APPROVAL_TAGS} tags")
    return " ".join(sorted({normalize_tag(v) for v in values}))


async def get_settings(conn: AsyncConnection, org_id: str) -> OrganizationSettings:
    row = (await conn.execute(select(*_COLUMNS).where(organizations.c.id == org_id))).first()
    if row is None:  # the credential's organization was deleted during the call
        raise NotFound("no such organization")
    return _settings(row)


async def update_settings(
    conn: AsyncConnection,
    org_id: str,
    *,
    name: str | None = None,
    time_zone: str | None = None,
    approvals_required_for: list[str] | None = None,
    approval_profile_tags: list[str] | None = None,
    self_approval: bool | None = None,
) -> OrganizationSettings:
    """Changes the fields given (None keeps one; none at all is refused, as every PATCH here),
    every field checked before anything is written: a refused request changes nothing. One statement, so two concurrent changes of
    different fields both apply."""
    values: dict[str, object] = {}
    if name is not None:
        values["name"] = check_name(name)
    if time_zone is not None:
        values["time_zone"] = check_time_zone(time_zone)
    if approvals_required_for is not None:
        values["approvals_required_for"] = check_required_for(approvals_required_for)
    if approval_profile_tags is not None:
        values["approval_profile_tags"] = check_approval_tags(approval_profile_tags)
    if self_approval is not None:
        values["self_approval"] = self_approval
    if not values:
        raise ValidationError(
            "nothing to change: send name, time_zone, approvals_required_for, approval_profile_tags or self_approval"
        )
    row = (
        await conn.execute(
            update(organizations).where(organizations.c.id == org_id).values(**values).returning(*_COLUMNS)
        )
    ).first()
    if row is None:
        raise NotFound("no such organization")
    return _settings(row)
