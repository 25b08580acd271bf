"""The analytics page's tables (docs/dashboard.md, "Analytics"), each the accessible source of
its chart and the content of its CSV export: the core's answers (GetAnalyticsSummary's groups,
ListPostAnalytics' posts) made rows of cells, a cell's text as the page shows it ("12,345", "—"
for a metric none of the posts has) and its value as the CSV has it (12345, empty).

A table and its chart are built from the same rows, so what the canvas draws is what the table
and the CSV hold."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

from herald.analytics.v1 import analytics_pb2

from facades.web.metric_words import chart, label, names_in, number
from facades.web.pages import when

EXCERPT = 60  # characters of a post's text in the top posts' table


@dataclass(frozen=True, slots=True)
class Cell:
    text: str  # as the page shows it
    value: str  # as the CSV holds it
    href: str = ""  # the top posts' link to the post's page
    numeric: bool = False
    shade: int = -1  # a heatmap cell's step (best_times_view.py); -1 for none


@dataclass(slots=True)
class Table:
    """One chart's numbers: a caption (short: it must fit a phone's width), what the numbers are
    (said under the chart), the column headings, the rows, the chart drawn from them (None when
    there is nothing to draw) and what the page says when there are no rows."""

    name: str
    caption: str
    about: str
    columns: list[str]
    rows: list[list[Cell]]
    empty: str
    chart: dict[str, Any] | None = None

    def csv(self) -> str:
        """The table as CSV (RFC 4180: a heading row, CRLF line ends), numbers without separators."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(self.columns)
        writer.writerows([cell.value for cell in row] for row in self.rows)
        return out.getvalue()


def _same(text: str) -> Cell:
    return Cell(text, text)


def _count(value: int | None) -> Cell:
    return Cell(number(value), "" if value is None else str(value), numeric=True)


def _group_cells(group: analytics_pb2.AnalyticsGroup, names: list[str]) -> list[Cell]:
    """A group's posts, engagement and each metric's sum (absent: none of its posts has it)."""
    engagement = group.engagement if group.HasField("engagement") else None
    return [_count(group.posts), _count(engagement), *(_count(group.metrics.get(n)) for n in names)]


def _series(names: list[str], groups: list[analytics_pb2.AnalyticsGroup]) -> dict[str, list[int | None]]:
    """Engagement and each metric, per group (None: the metric absent from it)."""
    series = {"Engagement": [g.engagement if g.HasField("engagement") else None for g in groups]}
    for n in names:
        series[label(n)] = [g.metrics.get(n) for g in groups]
    return series


def daily(summary: analytics_pb2.AnalyticsSummary) -> Table:
    """The range's days with posts, oldest first (a day without posts has no point: the chart's
    axis names the days it has, as the table's rows do)."""
    groups = list(summary.groups)
    names = names_in(g.metrics for g in groups)
    rows = [[_same(g.key), *_group_cells(g, names)] for g in groups]
    spec = chart("line", [g.key for g in groups], _series(names, groups)) if groups else None
    return Table(
        "daily",
        "Metrics per day",
        f"Each day with posts, in {summary.time_zone}: the posts published that day and their latest metrics, "
        "summed. Days without posts are left out.",
        ["Day", "Posts", "Engagement", *map(label, names)],
        rows,
        "No posts were published in this range.",
        spec,
    )


def breakdown(summary: analytics_pb2.AnalyticsSummary, platforms: dict[str, str]) -> Table:
    """Per profile or per platform (`summary.group_by`), by name, with the total under it."""
    groups = list(summary.groups)
    names = names_in(g.metrics for g in groups)
    by_profile = summary.group_by == "profile"
    shown = [g.key if by_profile else platforms.get(g.key, g.key) for g in groups]
    rows = [[_same(key), *_group_cells(g, names)] for key, g in zip(shown, groups, strict=True)]
    if groups:
        rows.append([_same("All"), *_group_cells(summary.total, names)])
    heading = "Profile" if by_profile else "Platform"
    spec = chart("bar", shown, _series(names, groups)) if groups else None
    return Table(
        "profiles" if by_profile else "platforms",
        f"Metrics per {heading.lower()}",
        f"Per {heading.lower()}: the posts published in the range and their latest metrics, summed; then all of "
        "them together.",
        [heading, "Posts", "Engagement", *map(label, names)],
        rows,
        "No posts were published in this range.",
        spec,
    )


def excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 1].rstrip() + "…"


def top_posts(listed: analytics_pb2.ListPostAnalyticsResponse, zone: str, platforms: dict[str, str]) -> Table:
    """The posts with the most engagement, highest first, each linking to its page; posts not
    read yet (or whose platform gives no engagement) last, as the core orders them."""
    posts = list(listed.posts)
    names = names_in(p.metrics for p in posts)
    rows = []
    for rank, p in enumerate(posts, start=1):
        engagement = p.engagement if p.HasField("engagement") else None
        text = excerpt(p.content) or p.post_id
        rows.append(
            [
                Cell(str(rank), str(rank), numeric=True),
                Cell(text, text, href=f"/dashboard/posts/{p.post_id}"),
                _same(p.profile),
                _same(platforms.get(p.connector, p.connector)),
                _same(when(p.publish_time, zone, "").removesuffix(f" ({zone})")),
                _count(engagement),
                *(_count(p.metrics.get(n)) for n in names),
                _same(p.post_id),
            ]
        )
    labels = [f"{rank}. {p.profile}: {excerpt(p.content)[:30]}" for rank, p in enumerate(posts, start=1)]
    spec = None
    if posts:
        engagement = [p.engagement if p.HasField("engagement") else None for p in posts]
        spec = chart("bar", labels, {"Engagement": engagement}, horizontal=True)
    return Table(
        "top-posts",
        f"The {len(posts)} top posts" if len(posts) > 1 else "The top post",
        "The posts published in the range with the most engagement (likes, reposts, replies, quotes, bookmarks "
        "and shares, of those the platform gives), highest first; posts without any last.",
        ["#", "Post", "Profile", "Platform", f"Published ({zone})", "Engagement", *map(label, names), "Post id"],
        rows,
        "No posts were published in this range.",
        spec,
    )
