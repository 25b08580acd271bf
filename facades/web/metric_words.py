"""Metrics as the dashboard says them (docs/dashboard.md, "Post detail", "Analytics"): each name
of the vocabulary (contract/analytics.py) in words, numbers with their thousands separated, a
metric the platform does not give left out (never shown as 0), and the charts' data as the pages
hand it to static/charts.js (a JSON block beside each canvas, the table under it the accessible
source of the same numbers)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from contract.analytics import POST_METRICS

LABELS = {
    "impressions": "Impressions",
    "reach": "Reach",
    "likes": "Likes",
    "reposts": "Reposts",
    "replies": "Replies",
    "quotes": "Quotes",
    "bookmarks": "Bookmarks",
    "shares": "Shares",
    "link_clicks": "Link clicks",
    "video_views": "Video views",
    "watch_time_seconds": "Watch time (seconds)",
}
SOURCES = {"sandbox": "the sandbox (synthetic numbers)", "platform": "the platform"}
# What a table cell says for a metric the platform does not give (or a group none of whose posts has).
ABSENT = "—"


def label(name: str) -> str:
    return LABELS.get(name, name.replace("_", " ").capitalize())


def number(value: int | None) -> str:
    """12345 → "12,345"; None (not given) → the absent mark."""
    return ABSENT if value is None else f"{value:,}"


def names_in(readings: Iterable[Mapping[str, int]]) -> list[str]:
    """The metrics any of the readings has, in the vocabulary's order (an unknown name last)."""
    present = {name for reading in readings for name in reading}
    known = [name for name in POST_METRICS if name in present]
    return known + sorted(present.difference(POST_METRICS))


def listed(metrics: Mapping[str, int]) -> list[dict[str, Any]]:
    """A reading's metrics, only those it has, in the vocabulary's order, each named in words."""
    return [
        {"name": name, "label": label(name), "value": metrics[name], "text": number(metrics[name])}
        for name in names_in([metrics])
    ]


def chart(kind: str, labels: list[str], series: Mapping[str, list[int | None]], **options: Any) -> dict[str, Any]:
    """A chart as static/charts.js draws it: `kind` line or bar, the x axis' labels, one series
    per metric (None where a point has no value: a gap, not a 0)."""
    return {
        "type": kind,
        "labels": labels,
        "datasets": [{"label": name, "data": data} for name, data in series.items()],
        **options,
    }
