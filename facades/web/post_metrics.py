"""A post's metrics as its page shows them (docs/dashboard.md, "Post detail", "Metrics"): the
latest reading in words (only the metrics the platform gives), when and where from it was read,
the next read, each thread item's latest, the history as a chart with its table, and "Refresh
metrics" (AnalyticsService's GetPostMetrics and RefreshPostMetrics, docs/analytics.md). The page's
handlers are post_detail_pages.py's; this module reads, shapes and asks."""

from __future__ import annotations

from typing import Any

from herald.analytics.v1 import analytics_pb2
from sanic import Request

from contract.requests import rpc_path
from facades.web import chart_assets
from facades.web.metric_words import SOURCES, chart, label, listed, names_in, number
from facades.web.pages import when
from facades.web.session import Viewer

GET = rpc_path(analytics_pb2, "AnalyticsService", "GetPostMetrics")
REFRESH = rpc_path(analytics_pb2, "AnalyticsService", "RefreshPostMetrics")
# Only a post that is out has metrics (RefreshPostMetrics refuses the others: INVALID_POST_STATE).
OUT = ("published", "partially_published")
# What a refresh's answer says on the page after its redirect (`?notice=`).
QUEUED, PENDING = "metrics-queued", "metrics-pending"
NOTICES = {
    QUEUED: "A read of this post's metrics is queued: a worker makes it within seconds. Reload the page to see it.",
    PENDING: "Nothing changed: a read of this post's metrics is already queued, due or under way.",
}
# The refusals a refresh shows on the post's page (anything else is a failure page).
SHOWN = ("INVALID_POST_STATE", "RATE_LIMITED")
NOT_READ = "Not read yet — first reading about 1 h after publishing."


def _reading(snapshot: analytics_pb2.MetricSnapshot, zone: str) -> dict[str, Any]:
    return {
        "metrics": listed(snapshot.metrics),
        "read": when(snapshot.collect_time, zone, ""),
        "instant": snapshot.collect_time.ToJsonString(),
        "source": SOURCES.get(snapshot.source, snapshot.source),
    }


def _history(found: analytics_pb2.PostMetrics, zone: str) -> dict[str, Any] | None:
    """Every reading of the post, oldest first, as one table (a column per metric any reading
    has) and, from the second reading, the chart of the same numbers; None before the first."""
    if not found.HasField("latest"):
        return None
    readings = [*reversed(found.history), found.latest]
    names = names_in(r.metrics for r in readings)
    rows = [
        {
            "read": when(r.collect_time, zone, ""),
            "instant": r.collect_time.ToJsonString(),
            "cells": [{"name": n, "text": number(r.metrics.get(n))} for n in names],
        }
        for r in readings
    ]
    series = {label(n): [r.metrics.get(n) for r in readings] for n in names}
    return {
        "columns": [{"name": n, "label": label(n)} for n in names],
        "rows": rows,
        # A line needs two readings; the table alone says what one reading is.
        "chart": chart("line", [row["read"].removesuffix(f" ({zone})") for row in rows], series)
        if len(rows) > 1
        else None,
    }


async def metrics_of(request: Request, viewer: Viewer, post_id: str, status: str) -> dict[str, Any] | None:
    """The post's metrics section; None for a post that is not out (no call: it has none)."""
    if status not in OUT:
        return None
    core = request.app.ctx.core
    found = (
        await core.call(
            core.method(GET), analytics_pb2.GetPostMetricsRequest(post_id=post_id), authorization=viewer.authorization
        )
    ).response
    zone = viewer.time_zone
    return {
        "latest": _reading(found.latest, zone) if found.HasField("latest") else None,
        "not_read": NOT_READ,
        "next": when(found.next_read_time, zone, ""),
        "thread": [{"position": t.position, "item": t.position + 1, **_reading(t.latest, zone)} for t in found.thread],
        "history": _history(found, zone),
        "library": chart_assets.script_url(),
    }


async def refresh(request: Request, viewer: Viewer, post_id: str) -> str:
    """Asks the workers to read the post's metrics now; the notice that says what happened
    (queued, or nothing changed). Raises the core's refusals."""
    core = request.app.ctx.core
    done = await core.call(
        core.method(REFRESH),
        analytics_pb2.RefreshPostMetricsRequest(post_id=post_id),
        authorization=viewer.authorization,
    )
    return QUEUED if done.response.queued else PENDING
