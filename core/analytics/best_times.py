"""When a profile's posts do best (docs/analytics.md, "Best times"): from the organization's own
history, each published post's engagement at its latest reading, by the weekday and hour it went
out in the organization's time zone; below a minimum of posts read, a documented default per
platform, said as such.

Engagement is likes + reposts + replies + quotes + bookmarks + shares of the post's latest
reading, counting those its platform gives (a post whose platform gives none of them is left
out). A cell's value is the mean engagement of the posts published in that hour of that weekday,
so an hour posted in often does not win by its count alone; its `score` is that mean over the
best cell's (0 to 1), what a heatmap shades.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.analytics.account_metrics import profile_not_found
from core.db.models import organizations, post_metric_series, post_metric_snapshots, posts, profiles
from core.posts.slot_table import DAYS

ENGAGEMENT = ("likes", "reposts", "replies", "quotes", "bookmarks", "shares")
# The history read: posts published in the last year, at most this many (the newest).
HISTORY = timedelta(days=366)
MAX_POSTS = 5000
TOP = 5

# The default when the history is too small (local time, the organization's zone): weekdays
# (0 Monday) and hours most published guidance names for the platform, each with a weight. Not
# measurements of this organization; the answer says `basis: "default"`.
_WORKDAYS = (0, 1, 2, 3, 4)
_MIDWEEK = (1, 2, 3)
DEFAULTS: dict[str, tuple[tuple[tuple[int, ...], tuple[int, ...], float], ...]] = {
    "x": ((_MIDWEEK, (9, 10, 11), 1.0), (_WORKDAYS, (12, 13), 0.6)),
    "bluesky": ((_WORKDAYS, (9, 10, 11), 1.0), (_WORKDAYS, (17, 18), 0.6)),
    "mastodon": ((_WORKDAYS, (10, 11, 12), 1.0), (_WORKDAYS, (15, 16), 0.6)),
    "threads": ((_MIDWEEK, (8, 9, 10), 1.0), (_WORKDAYS, (12, 13), 0.6)),
    "instagram": ((_WORKDAYS, (11, 12, 13), 1.0), (_WORKDAYS, (18, 19), 0.6)),
    "tiktok": ((_MIDWEEK, (17, 18, 19), 1.0), ((3, 4, 5), (20, 21), 0.6)),
    "youtube": (((3, 4), (15, 16, 17), 1.0), ((5, 6), (10, 11, 12), 0.6)),
    "linkedin": ((_MIDWEEK, (8, 9, 10), 1.0), (_MIDWEEK, (12,), 0.6)),
}

snapshots = post_metric_snapshots.c
series = post_metric_series.c


@dataclass(frozen=True, slots=True)
class Cell:
    day: int  # 0 Monday
    hour: int
    posts: int
    engagement: float  # mean per post; 0 without posts
    score: float  # 0 to 1


@dataclass(frozen=True, slots=True)
class BestTimes:
    slug: str
    connector: str
    timezone: str
    basis: str  # "history" or "default"
    sample_size: int
    minimum_sample: int
    top: list[Cell]
    grid: list[Cell]  # 168 cells, Monday 00:00 first, hour by hour


def _zone(name: str) -> ZoneInfo:
    """The organization's zone (checked when it was set); UTC should it no longer load."""
    try:
        return ZoneInfo(name or "UTC")
    except (ValueError, OSError):
        return ZoneInfo("UTC")


def day_name(day: int) -> str:
    return DAYS[day]


async def history(conn: AsyncConnection, profile_id: str, since: datetime) -> list[tuple[datetime, int]]:
    """Each of the profile's posts published since `since` (the newest MAX_POSTS) that has a
    reading with engagement: (published_at, engagement at its latest reading)."""
    later = post_metric_snapshots.alias("later")
    newest = (
        select(func.max(later.c.collected_at))
        .where(later.c.series_id == series.id, later.c.part == -1)
        .correlate(post_metric_series)
        .scalar_subquery()
    )
    columns = [snapshots[name] for name in ENGAGEMENT]
    rows = await conn.execute(
        select(series.published_at, *columns)
        .select_from(
            posts.join(post_metric_series, series.post_id == posts.c.id).join(
                post_metric_snapshots,
                and_(snapshots.series_id == series.id, snapshots.part == -1, snapshots.collected_at == newest),
            )
        )
        .where(posts.c.profile_id == profile_id, series.published_at >= since)
        .order_by(series.published_at.desc())
        .limit(MAX_POSTS)
    )
    out = []
    for row in rows:
        given = [v for v in row[1:] if v is not None]
        if given:
            out.append((row.published_at, sum(given)))
    return out


def from_history(found: list[tuple[datetime, int]], zone: ZoneInfo) -> list[Cell]:
    totals = [[0, 0] for _ in range(168)]
    for published_at, engagement in found:
        local = published_at.astimezone(zone)
        cell = totals[local.weekday() * 24 + local.hour]
        cell[0] += 1
        cell[1] += engagement
    means = [total / count if count else 0.0 for count, total in totals]
    best = max(means)
    return [
        Cell(i // 24, i % 24, totals[i][0], round(means[i], 2), round(means[i] / best, 4) if best else 0.0)
        for i in range(168)
    ]


def from_default(connector: str, found: list[tuple[datetime, int]], zone: ZoneInfo) -> list[Cell]:
    """The platform's default scores, with the history's own counts kept beside them."""
    weights = [0.0] * 168
    for days, hours, weight in DEFAULTS.get(connector, DEFAULTS["x"]):
        for day in days:
            for hour in hours:
                weights[day * 24 + hour] = max(weights[day * 24 + hour], weight)
    measured = from_history(found, zone)
    return [Cell(c.day, c.hour, c.posts, c.engagement, weights[i]) for i, c in enumerate(measured)]


def top_cells(grid: list[Cell], count: int = TOP) -> list[Cell]:
    """The best cells: highest score first, then more posts, then the week's order."""
    ranked = sorted((c for c in grid if c.score > 0), key=lambda c: (-c.score, -c.posts, c.day, c.hour))
    return ranked[:count]


async def best_times(conn: AsyncConnection, org_id: str, slug: str, now: datetime, minimum: int) -> BestTimes:
    """The profile's best times. NOT_FOUND for a profile of another organization."""
    found = (
        await conn.execute(
            select(profiles.c.id, profiles.c.connector, organizations.c.time_zone)
            .select_from(profiles.join(organizations, organizations.c.id == profiles.c.org_id))
            .where(profiles.c.org_id == org_id, profiles.c.slug == slug)
        )
    ).first()
    if found is None:
        raise profile_not_found(slug)
    zone = _zone(found.time_zone)
    readings = await history(conn, found.id, now - HISTORY)
    basis = "history" if len(readings) >= minimum else "default"
    grid = from_history(readings, zone) if basis == "history" else from_default(found.connector, readings, zone)
    return BestTimes(slug, found.connector, zone.key, basis, len(readings), minimum, top_cells(grid), grid)
