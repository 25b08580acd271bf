"""A profile's account metrics as read (docs/analytics.md, "Account metrics"): the followers'
latest reading and their history in a range."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import account_metric_series, account_metric_snapshots, profiles
from core.errors import NotFound, ValidationError
from core.posts.schedule import parse_datetime

DEFAULT_RANGE = timedelta(days=30)
MAX_RANGE = timedelta(days=400)
# Readings a history answers at most: the newest of the range (one a day is 400 at most; a
# shorter interval, HERALD_ACCOUNT_METRICS_INTERVAL_SECONDS, makes more).
MAX_POINTS = 1000

snapshots = account_metric_snapshots.c


@dataclass(frozen=True, slots=True)
class FollowersReading:
    followers: int
    collected_at: datetime
    sandbox: bool


@dataclass(frozen=True, slots=True)
class ProfileMetricsRecord:
    slug: str
    latest: FollowersReading | None
    history: list[FollowersReading]  # oldest first
    start: datetime
    end: datetime
    next_read_at: datetime | None


def profile_not_found(slug: str) -> NotFound:
    return NotFound(f"no profile {slug[:64]!r} in this organization")


async def profile_id_of(conn: AsyncConnection, org_id: str, slug: str) -> str:
    found = await conn.scalar(select(profiles.c.id).where(profiles.c.org_id == org_id, profiles.c.slug == slug))
    if found is None:
        raise profile_not_found(slug)
    return found


def _instant(text: str, name: str) -> datetime:
    try:
        return parse_datetime(text, name)
    except ValidationError as error:
        raise ValidationError(str(error), argument=name) from None


def date_range(start_text: str, end_text: str, now: datetime) -> tuple[datetime, datetime]:
    """[from, to): `to` now unless given, `from` DEFAULT_RANGE before it unless given;
    VALIDATION_ERROR for an empty or reversed range, or one wider than MAX_RANGE."""
    end = _instant(end_text, "to") if end_text else now
    start = _instant(start_text, "from") if start_text else end - DEFAULT_RANGE
    if start >= end:
        raise ValidationError("from must be before to (to is exclusive)", argument="from")
    if end - start > MAX_RANGE:
        raise ValidationError(f"the range from..to is at most {MAX_RANGE.days} days", argument="from")
    return start, end


async def profile_metrics(
    conn: AsyncConnection, org_id: str, slug: str, start_text: str, end_text: str, now: datetime
) -> ProfileMetricsRecord:
    """The profile's latest followers reading and those in the range, oldest first. NOT_FOUND for
    a profile of another organization."""
    start, end = date_range(start_text, end_text, now)
    profile_id = await profile_id_of(conn, org_id, slug)
    columns = (snapshots.followers, snapshots.collected_at, snapshots.sandbox)
    latest = (
        await conn.execute(
            select(*columns).where(snapshots.profile_id == profile_id).order_by(snapshots.collected_at.desc()).limit(1)
        )
    ).first()
    in_range = await conn.execute(
        select(*columns)
        .where(snapshots.profile_id == profile_id, snapshots.collected_at >= start, snapshots.collected_at < end)
        .order_by(snapshots.collected_at.desc())
        .limit(MAX_POINTS)
    )
    history = [FollowersReading(*row) for row in in_range][::-1]
    schedule = (
        await conn.execute(
            select(account_metric_series.c.due_at, account_metric_series.c.lease_owner).where(
                account_metric_series.c.profile_id == profile_id
            )
        )
    ).first()
    # Not enrolled yet: a worker's next round reads it. While a worker holds it, due_at is its lease's end.
    next_read_at = now if schedule is None else (schedule.due_at if schedule.lease_owner is None else None)
    return ProfileMetricsRecord(
        slug, FollowersReading(*latest) if latest is not None else None, history, start, end, next_read_at
    )
