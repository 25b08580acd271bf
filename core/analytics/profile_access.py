"""What a profile allows the metrics reads (docs/analytics.md, "Each platform"): whether its
posts' metrics can be read at all (a permission not granted, a dead token: `metrics_error` says
why and how to fix it, `metrics_unavailable` which metrics), and until when the platform's
metrics calls asked it to wait (`metrics_throttled_until`, apart from publishing's
`throttled_until`: a platform's limits are per endpoint, and a spent metrics window must not
hold a post back). Connecting the account again clears them (core/platform_accounts/accounts.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.engine import transaction
from core.db.models import profiles

p = profiles.c


@dataclass(frozen=True, slots=True)
class Access:
    error: str = ""
    throttled_until: datetime | None = None


async def load(engine: AsyncEngine, profile_ids: Sequence[str]) -> dict[str, Access]:
    """The profiles' metrics access, for those that have anything to say (others read freely)."""
    if not profile_ids:
        return {}
    async with transaction(engine) as conn:
        rows = await conn.execute(
            select(p.id, p.metrics_error, p.metrics_throttled_until).where(
                p.id.in_(list(profile_ids)),
                or_(p.metrics_error != "", p.metrics_throttled_until.is_not(None)),
            )
        )
        return {r.id: Access(r.metrics_error, r.metrics_throttled_until) for r in rows}


async def mark_unavailable(
    engine: AsyncEngine, profile_id: str, token_version: int | None, message: str, metrics: Sequence[str]
) -> None:
    """The profile's metrics cannot be read: `message` says why and how to fix it. Only over the
    token it was read with: an account connected again meanwhile is not marked."""
    statement = update(profiles).where(p.id == profile_id)
    if token_version is not None:
        statement = statement.where(p.token_version == token_version)
    async with transaction(engine, writes=True) as conn:
        await conn.execute(statement.values(metrics_error=message[:2000], metrics_unavailable=",".join(metrics)[:300]))


async def throttle(engine: AsyncEngine, profile_id: str, until: datetime) -> None:
    """The platform's metrics calls asked this profile to wait until `until`."""
    async with transaction(engine, writes=True) as conn:
        await conn.execute(
            update(profiles)
            .where(p.id == profile_id)
            .where(or_(p.metrics_throttled_until.is_(None), p.metrics_throttled_until < until))
            .values(metrics_throttled_until=until)
        )
