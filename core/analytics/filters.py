"""What the summaries and lists read (docs/analytics.md, "Summaries and lists"): a range of publish
times, and the posts' profile, tag and platform, as conditions on `post_metric_series`.

Both read the series rows alone (each carries its post's profile, platform and latest reading:
core/analytics/latest.py), found by ix_post_metric_series_org_id_published_at: the organization's
posts published in the range, whatever their status became since."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import reduce
from typing import Any

from sqlalchemy import ColumnElement, and_, case, func, select

from core.db.models import post_metric_series, profiles
from core.errors import ValidationError
from core.identity import profile_limits
from core.posts.rules import PLATFORMS
from core.posts.schedule import parse_datetime
from core.tags import normalize_tag

series = post_metric_series.c
# When neither end is given: the 30 days before now.
DEFAULT_RANGE = timedelta(days=30)
# engagement = the sum of these, of those the platform gives (docs/analytics.md, "Engagement").
ENGAGEMENT = ("likes", "reposts", "replies", "quotes", "bookmarks", "shares")


@dataclass(frozen=True, slots=True)
class Filters:
    start: str = ""  # ISO 8601 instants as sent (`from`, `to`); "" for the default
    end: str = ""
    profile: str = ""
    tag: str = ""
    connector: str = ""
    # The caller's profile limits (core/identity/profile_limits.py); (): every profile.
    limited_to: tuple[str, ...] = ()


def time_range(start: str, end: str, now: datetime) -> tuple[datetime, datetime]:
    """[from, to): `to` defaults to now, `from` to 30 days before `to`."""
    end_at = _instant(end, "to") if end else now
    start_at = _instant(start, "from") if start else end_at - DEFAULT_RANGE
    if start_at >= end_at:
        raise ValidationError("from must be before to (to is exclusive)", argument="from")
    return start_at, end_at


def _instant(text: str, name: str) -> datetime:
    try:
        return parse_datetime(text, name)
    except ValidationError as error:
        raise ValidationError(str(error), argument=name) from None


def conditions(org_id: str, filters: Filters, start: datetime, end: datetime) -> list[ColumnElement[bool]]:
    """The series of the organization's posts published in [start, end) that pass the filters."""
    where = [series.org_id == org_id, series.published_at >= start, series.published_at < end]
    if filters.connector:
        if filters.connector not in PLATFORMS:
            raise ValidationError(f"connector must be one of {', '.join(PLATFORMS)}", argument="connector")
        where.append(series.connector == filters.connector)
    if filters.profile:
        named = select(profiles.c.id).where(profiles.c.org_id == org_id, profiles.c.slug == filters.profile)
        where.append(series.profile_id.in_(named))
    if filters.tag:
        where.append(profile_limits.within(series.profile_id, org_id, [normalize_tag(filters.tag)]))
    if filters.limited_to:
        where.append(profile_limits.within(series.profile_id, org_id, filters.limited_to))
    return where


def latest(name: str) -> Any:  # a column of post_metric_series
    return series[f"latest_{name}"]


def engagement() -> ColumnElement[Any]:
    """A post's engagement: the sum of ENGAGEMENT's metrics it has; NULL when it has none."""
    parts = [latest(name) for name in ENGAGEMENT]
    return case(
        (and_(*(p.is_(None) for p in parts)), None), else_=reduce(operator.add, (func.coalesce(p, 0) for p in parts))
    )
