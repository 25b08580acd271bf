"""The analytics page's best times (docs/dashboard.md, "Analytics", Best times): each shown
profile's week as a heatmap, read with AudienceService's GetBestTimes (docs/analytics.md, "Best
times"). The heatmap is an HTML table, the hours of the day down and the weekdays across (eight
columns: it fits a phone), each cell's text its score (0 to 100: its posts' mean engagement over
the best hour's, or the platform's default weight) and its shade one of five steps of it, so the
numbers are the table's and the shades only repeat them (WCAG 1.4.1). Its CSV export is the same
grid."""

from __future__ import annotations

import asyncio
import math
from typing import Any

from herald.analytics.v1 import audience_pb2
from sanic import Request

from contract.requests import rpc_path
from facades.errors import ApiError
from facades.web.analytics_tables import Cell, Table
from facades.web.session import Viewer

GET = rpc_path(audience_pb2, "AudienceService", "GetBestTimes")
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAY_NAMES = {"mon": "Mon", "tue": "Tue", "wed": "Wed", "thu": "Thu", "fri": "Fri", "sat": "Sat", "sun": "Sun"}
LONG_DAYS = {
    "mon": "Monday",
    "tue": "Tuesday",
    "wed": "Wednesday",
    "thu": "Thursday",
    "fri": "Friday",
    "sat": "Saturday",
    "sun": "Sunday",
}
# Heatmaps the page shows at most without a profile chosen (one call each).
SHOWN = 4
SHADES = 5


def score(value: float) -> int:
    return round(value * 100)


def shade(value: float) -> int:
    """0 for none, else 1 to SHADES by fifths of the score."""
    return 0 if value <= 0 else min(SHADES, math.ceil(value * SHADES))


def heatmap(found: audience_pb2.BestTimes) -> Table:
    """A profile's 168 hours as a grid (an hour a row, a weekday a column) of scores."""
    cells = {(c.day, c.hour): c for c in found.grid}
    rows = []
    for hour in range(24):
        row = [Cell(f"{hour:02d}:00", f"{hour:02d}:00")]
        for day in DAYS:
            c = cells.get((day, hour))
            value = c.score if c is not None else 0.0
            row.append(Cell(str(score(value)), str(score(value)), numeric=True, shade=shade(value)))
        rows.append(row)
    basis = (
        f"from {found.sample_size} of its posts read"
        if found.basis == "history"
        else f"the platform's usual best hours, not this profile's: {found.sample_size} of its posts read so far, "
        f"{found.minimum_sample} needed"
    )
    return Table(
        f"best-times-{found.slug}",
        f"Best times of {found.slug} ({found.time_zone})",
        f"Each hour of the week in {found.time_zone}, scored 0 to 100 against the best one ({basis}); a darker cell "
        "scores higher.",
        ["Hour", *(DAY_NAMES[d] for d in DAYS)],
        rows,
        "No best times.",
    )


def top_of(found: audience_pb2.BestTimes) -> list[str]:
    """The best hours in words, best first: "Tuesday 10:00: score 100, 4 posts, mean engagement 52"."""
    out = []
    for c in found.top:
        posts = f", {c.posts} post{'s' if c.posts != 1 else ''}, mean engagement {c.engagement:,.0f}" if c.posts else ""
        out.append(f"{LONG_DAYS.get(c.day, c.day)} {c.hour:02d}:00: score {score(c.score)}{posts}")
    return out


async def best_times(request: Request, viewer: Viewer, slug: str) -> audience_pb2.BestTimes | None:
    """A profile's best times; None for one the member may not see (NOT_FOUND)."""
    core = request.app.ctx.core
    try:
        found = await core.call(
            core.method(GET), audience_pb2.GetBestTimesRequest(slug=slug), authorization=viewer.authorization
        )
    except ApiError as error:
        if error.code != "NOT_FOUND":
            raise
        return None
    return found.response


async def section(request: Request, viewer: Viewer, slugs: list[str]) -> dict[str, Any]:
    """The best times of the first SHOWN of the profiles (sorted), each a heatmap and its best
    hours, and how many were left out."""
    chosen = sorted(slugs)[:SHOWN]
    found = await asyncio.gather(*(best_times(request, viewer, slug) for slug in chosen))
    maps = [{"slug": f.slug, "table": heatmap(f), "top": top_of(f), "basis": f.basis} for f in found if f is not None]
    return {"maps": maps, "left_out": max(0, len(slugs) - SHOWN)}
