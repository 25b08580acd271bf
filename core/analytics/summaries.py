"""The sums of an organization's posts' latest metrics over a range (GET /v1/analytics/summary;
docs/analytics.md, "Summaries and lists"), per day or week in the organization's time zone, per
profile or per connector.

One statement over the series rows of the range (each carries its post's latest reading:
core/analytics/latest.py), grouped in the database: SUM leaves a metric NULL where no post of the
group has it, so an absent metric stays absent. Days and weeks are the organization's: PostgreSQL
converts with `timezone()`; SQLite, which knows no time zones, calls herald_local_date
(core/db/engine.py registers it on every connection)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import Date, cast, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.analytics import POST_METRICS
from core.analytics.filters import ENGAGEMENT, Filters, conditions, latest, series, time_range
from core.db.models import organizations, profiles
from core.errors import ValidationError

GROUPS = ("day", "week", "profile", "connector")


@dataclass(frozen=True, slots=True)
class Group:
    key: str  # a local date (a week: its Monday), a profile's slug or a connector; "" the total
    posts: int
    values: dict[str, int]
    engagement: int | None


@dataclass(frozen=True, slots=True)
class Summary:
    group_by: str
    time_zone: str
    start: datetime
    end: datetime
    groups: list[Group]
    total: Group


def _key(conn: AsyncConnection, group_by: str, time_zone: str) -> Any:  # a column expression
    if group_by == "profile":
        return series.profile_id
    if group_by == "connector":
        return series.connector
    if conn.dialect.name == "sqlite":
        return func.herald_local_date(series.published_at, time_zone, group_by)
    local = func.timezone(time_zone, series.published_at)
    return cast(local if group_by == "day" else func.date_trunc("week", local), Date)


async def summary(conn: AsyncConnection, org_id: str, filters: Filters, group_by: str, now: datetime) -> Summary:
    group_by = group_by or "day"
    if group_by not in GROUPS:
        raise ValidationError(f"group_by must be one of {', '.join(GROUPS)}", argument="group_by")
    start, end = time_range(filters.start, filters.end, now)
    time_zone = await conn.scalar(select(organizations.c.time_zone).where(organizations.c.id == org_id)) or "UTC"
    rows = (
        select(
            _key(conn, group_by, time_zone).label("key"),
            *(latest(name).label(name) for name in POST_METRICS),
        )
        .where(*conditions(org_id, filters, start, end))
        .subquery()
    )
    stmt = select(
        rows.c.key,
        func.count().label("posts"),
        *(func.sum(rows.c[name]).label(name) for name in POST_METRICS),
    ).group_by(rows.c.key)
    groups = [_group(row) for row in await conn.execute(stmt)]
    if group_by == "profile" and groups:
        slugs = dict(
            (await conn.execute(select(profiles.c.id, profiles.c.slug).where(profiles.c.org_id == org_id))).all()
        )
        groups = [Group(slugs.get(g.key, g.key), g.posts, g.values, g.engagement) for g in groups]
    groups.sort(key=lambda g: g.key)
    return Summary(group_by, time_zone, start, end, groups, _total(groups))


def _group(row: Any) -> Group:  # a row of the grouped select
    key = row.key.isoformat() if isinstance(row.key, date) else str(row.key)
    values = {name: int(getattr(row, name)) for name in POST_METRICS if getattr(row, name) is not None}
    # The sum of each post's engagement is the sum of the engagement metrics' sums: no per-post
    # expression to evaluate in the statement.
    engaged = [values[name] for name in ENGAGEMENT if name in values]
    return Group(key, row.posts, values, sum(engaged) if engaged else None)


def _total(groups: list[Group]) -> Group:
    values: dict[str, int] = {}
    for group in groups:
        for name, value in group.values.items():
            values[name] = values.get(name, 0) + value
    engaged = [g.engagement for g in groups if g.engagement is not None]
    return Group("", sum(g.posts for g in groups), values, sum(engaged) if engaged else None)
