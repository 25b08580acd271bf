"""The analytics page, `/dashboard/analytics` ("Analytics" in the navigation; docs/dashboard.md,
"Analytics"): what the organization's published posts did, in a range of days in its time zone,
filtered by profile and platform: the sums per day (a line per metric), the top posts by
engagement, and the sums per profile and per platform, each a chart over a table that holds its
numbers, the best times of the profiles shown (a heatmap table each: best_times_view.py), and
each table's CSV export (`/dashboard/analytics/csv/<chart>`, the same rows).

It reads AnalyticsService's GetAnalyticsSummary (grouped by day, profile and connector) and
ListPostAnalytics (sorted by engagement), and AudienceService's GetBestTimes, with the session's
credential: the core decides which posts the member may see (another organization's never; a
member limited to some profiles, theirs only)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from herald.analytics.v1 import analytics_pb2
from sanic import Request
from sanic.response import HTTPResponse, raw

from contract.requests import rpc_path
from facades.errors import ApiError
from facades.web import analytics_query, analytics_tables, best_times_view, chart_assets
from facades.web.analytics_query import Shown
from facades.web.analytics_tables import Table
from facades.web.pages import Route, dashboard_page, listed_profiles, navigation, signed_in
from facades.web.session import Viewer

SUMMARY = rpc_path(analytics_pb2, "AnalyticsService", "GetAnalyticsSummary")
LIST = rpc_path(analytics_pb2, "AnalyticsService", "ListPostAnalytics")
TOP_POSTS = 10
# Each chart's CSV export, by the name in its URL (best times: of the profile the query names).
CHARTS = ("daily", "top-posts", "profiles", "platforms")
BEST_TIMES = "best-times"
# A spreadsheet would read a cell starting with one of these as a formula (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def zone_of(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):  # a zone this host does not know: UTC, named so
        return ZoneInfo("UTC")


async def _platforms(request: Request) -> dict[str, str]:
    """Platform key -> its name, from the core's catalog."""
    contract = await request.app.ctx.contract.get()
    return {p.key: p.name for p in contract.catalog.message.platforms}


async def _summary(
    request: Request, viewer: Viewer, shown: Shown, zone: ZoneInfo, group_by: str
) -> analytics_pb2.AnalyticsSummary:
    core = request.app.ctx.core
    start, end = shown.instants(zone)
    message = analytics_pb2.GetAnalyticsSummaryRequest(
        start_time=start, end_time=end, group_by=group_by, profile=shown.profile, connector=shown.platform
    )
    return (await core.call(core.method(SUMMARY), message, authorization=viewer.authorization)).response


async def _top(
    request: Request, viewer: Viewer, shown: Shown, zone: ZoneInfo
) -> analytics_pb2.ListPostAnalyticsResponse:
    core = request.app.ctx.core
    start, end = shown.instants(zone)
    message = analytics_pb2.ListPostAnalyticsRequest(
        start_time=start,
        end_time=end,
        profile=shown.profile,
        connector=shown.platform,
        sort="engagement",
        order="desc",
        page_size=TOP_POSTS,
    )
    return (await core.call(core.method(LIST), message, authorization=viewer.authorization)).response


async def table_of(
    request: Request, viewer: Viewer, shown: Shown, zone: ZoneInfo, chart: str, platforms: dict[str, str]
) -> Table:
    """One chart's table, from the core (one call; `platforms`: the catalog's names)."""
    if chart == "daily":
        return analytics_tables.daily(await _summary(request, viewer, shown, zone, "day"))
    if chart == "top-posts":
        return analytics_tables.top_posts(await _top(request, viewer, shown, zone), zone.key, platforms)
    group_by = "profile" if chart == "profiles" else "connector"
    return analytics_tables.breakdown(await _summary(request, viewer, shown, zone, group_by), platforms)


def _platform_options(profiles: list, platforms: dict[str, str], chosen: str) -> list[dict[str, str]]:
    """The platforms of the organization's profiles (and the one asked for, even if none is)."""
    keys = {p.connector for p in profiles} | ({chosen} if chosen else set())
    return sorted(({"key": k, "name": platforms.get(k, k)} for k in keys), key=lambda o: o["name"])


@signed_in
async def analytics(request: Request, viewer: Viewer) -> HTTPResponse:
    """The organization's analytics in a range (the last 7, 30 or 90 days, or from and to dates),
    filtered by profile and platform: four charts, each over its table and with its CSV link."""
    zone = zone_of(viewer.time_zone)
    shown = analytics_query.read(request, zone)
    platforms = await _platforms(request)
    *found, (profiles, best), nav = await asyncio.gather(
        *(table_of(request, viewer, shown, zone, chart, platforms) for chart in CHARTS),
        _profiles_and_best_times(request, viewer, shown),
        navigation(request, viewer),
    )
    tables = dict(zip(CHARTS, found, strict=True))
    return await dashboard_page(
        request,
        viewer,
        "analytics.html",
        "analytics",
        status=400 if shown.problem else 200,
        nav=nav,
        error=shown.problem or None,
        shown=shown,
        zone=zone.key,
        ranges=analytics_query.RANGES,
        range_links={key: f"/dashboard/analytics?{_keep(shown, key)}" for key in analytics_query.RANGES},
        profiles=[p.slug for p in profiles],
        platforms=_platform_options(profiles, platforms, shown.platform),
        tables=tables,
        csv_links={chart: shown.link(f"/dashboard/analytics/csv/{chart}") for chart in CHARTS},
        best=best,
        library=chart_assets.script_url(),
    )


async def _profiles_and_best_times(request: Request, viewer: Viewer, shown: Shown) -> tuple[list, dict]:
    """The organization's profiles (the filters' choices), then the best times of those the
    filters keep."""
    profiles = await listed_profiles(request, viewer.authorization)
    kept = [
        p.slug
        for p in profiles
        if (not shown.profile or p.slug == shown.profile) and (not shown.platform or p.connector == shown.platform)
    ]
    return profiles, await best_times_view.section(request, viewer, kept)


def _keep(shown: Shown, preset: str) -> str:
    """A preset's link, keeping the filters."""
    query = {"range": preset, "profile": shown.profile, "platform": shown.platform}
    return urlencode({k: v for k, v in query.items() if v})


def _csv_cell(value: str) -> str:
    return f"'{value}" if value.startswith(FORMULA_STARTS) else value


@signed_in
async def analytics_csv(request: Request, viewer: Viewer, chart: str) -> HTTPResponse:
    """One chart's table as CSV, for the same range and filters as the page's (its link keeps
    them): a file to download (Content-Disposition), the numbers without separators, a metric
    none of the rows' posts has an empty cell. An unknown chart is 404, a range the page cannot
    read 400."""
    if chart not in (*CHARTS, BEST_TIMES):
        raise ApiError("NOT_FOUND", "no such chart: daily, top-posts, profiles, platforms or best-times")
    zone = zone_of(viewer.time_zone)
    shown = analytics_query.read(request, zone)
    if shown.problem:
        raise ApiError("VALIDATION_ERROR", shown.problem)
    if chart == BEST_TIMES:
        table, name = await _best_times_table(request, viewer, shown), f"herald-best-times-{shown.profile}.csv"
    else:
        table, name = await table_of(request, viewer, shown, zone, chart, await _platforms(request)), None
    table.rows = [[replace(cell, value=_csv_cell(cell.value)) for cell in row] for row in table.rows]
    headers = {
        "Content-Disposition": f'attachment; filename="{name or shown.file_name(chart)}"',
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
    }
    return raw(table.csv().encode(), content_type="text/csv; charset=utf-8", headers=headers)


async def _best_times_table(request: Request, viewer: Viewer, shown: Shown) -> Table:
    """The heatmap of the profile the query names (`profile`, required)."""
    if not shown.profile:
        raise ApiError("VALIDATION_ERROR", "best times are a profile's: name it with profile=<slug>")
    found = await best_times_view.best_times(request, viewer, shown.profile)
    if found is None:
        raise ApiError("NOT_FOUND", "no such profile in this organization")
    return best_times_view.heatmap(found)


ROUTES = (
    Route("GET", "/dashboard/analytics", analytics),
    Route("GET", "/dashboard/analytics/csv/<chart:str>", analytics_csv),
)
