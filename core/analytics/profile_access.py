"""What a profile allows the metrics reads (docs/analytics.md, "Each platform"): whether its
posts' metrics can be read at all (a permission not granted, a dead token: `metrics_error` says
why and how to fix it, `metrics_unavailable` which metrics: empty, all of them, and the reads
stop; some named, only those are refused and the reads go on for the rest, as for a YouTube
account without YouTube Analytics' scope), and until when the platform's
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
            select(p.id, p.metrics_error, p.metrics_unavailable, p.metrics_throttled_until).where(
                p.id.in_(list(profile_ids)),
                or_(p.metrics_error != "", p.metrics_throttled_until.is_not(None)),
            )
        )
        # A mark naming some metrics does not stop the reads: the others are still read.
        return {r.id: Access("" if r.metrics_unavailable else r.metrics_error, r.metrics_throttled_until) for r in rows}


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


async def mark_partly_unavailable(
    engine: AsyncEngine, profile_id: str, token_version: int | None, message: str, metrics: Sequence[str]
) -> None:
    """Some of the profile's metrics (`metrics`, not empty) were refused while the others were
    read: the profile names them and says why, and its reads go on. A profile whose metrics are
    all unavailable keeps that mark; one marked so already is not written again."""
    named = ",".join(metrics)[:300]
    statement = (
        update(profiles)
        .where(p.id == profile_id)
        .where(or_(p.metrics_error == "", p.metrics_unavailable != ""))
        .where(or_(p.metrics_error != message[:2000], p.metrics_unavailable != named))
    )
    if token_version is not None:
        statement = statement.where(p.token_version == token_version)
    async with transaction(engine, writes=True) as conn:
        await conn.execute(statement.values(metrics_error=message[:2000], metrics_unavailable=named))


async def throttle(engine: AsyncEngine, profile_id: str, until: datetime) -> None:
    """The platform's metrics calls asked this profile to wait until `until`."""
    async with transaction(engine, writes=True) as conn:
        await conn.execute(
            update(profiles)
            .where(p.id == profile_id)
            .where(or_(p.metrics_throttled_until.is_(None), p.metrics_throttled_until < until))
            .values(metrics_throttled_until=until)
        )
