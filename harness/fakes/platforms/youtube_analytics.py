"""YouTube Analytics on the fake YouTube: `reports.query` as Google documents it
(developers.google.com/youtube/analytics/reference/reports/query, channel reports).

`GET /v2/reports` on `youtubeanalytics.googleapis.com` (FakeYouTube maps that host here too)
needs `yt-analytics.readonly` (or the monetary one): a token without either is 403
`insufficientPermissions`, as YouTube answers an account connected without it. It takes
`ids=channel==MINE` (or the caller's own channel id), `startDate` and `endDate` (YYYY-MM-DD, not
after one another), `metrics` (comma-separated; this fake knows `estimatedMinutesWatched`,
`shares` and `views`), `dimensions=video`, `filters=video==a,b,…` (at most 500 ids), and
optionally `sort` (a requested metric, `-` for descending) and `maxResults` (1 to 200); anything
else is 400 `badRequest`.

The answer is a `youtubeAnalytics#resultTable`: `columnHeaders` (`video` a DIMENSION, then each
metric in the order asked) and `rows`, one per video of the caller's channel with data
(`video_analytics`, a test's: its numbers under YouTube's metric names). A video without data is
left out, and an answer with no row at all has no `rows` key. The Analytics API's own limit
(`analytics_quota`, per project, unbounded unless a test says) spent is 429
`rateLimitExceeded` (RESOURCE_EXHAUSTED), without Retry-After.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.google import google_error
from harness.fakes.platforms.metrics_limits import MetricsLimit

ANALYTICS_HOST = "youtubeanalytics.googleapis.com"
ANALYTICS_SCOPE = "https://www.googleapis.com/auth/yt-analytics.readonly"
MONETARY_SCOPE = "https://www.googleapis.com/auth/yt-analytics-monetary.readonly"
KNOWN_METRICS = ("estimatedMinutesWatched", "shares", "views")
MAX_FILTER_IDS = 500
MAX_RESULTS = 200


class YouTubeAnalytics:
    """FakeYouTube's Analytics reports (see the module docstring)."""

    videos: list[Any]
    seeded: dict[str, str]
    lock: Any

    def init_analytics(self) -> None:
        self.video_analytics: dict[str, dict[str, int]] = {}
        self.analytics_quota = MetricsLimit()

    def analytics_routes(self) -> list[Route]:
        return [("GET", re.compile(r"/v2/reports"), self.reports_query)]

    def reports_query(self, request: Request, match: re.Match[str]) -> Answer:
        channel = self._caller(request, ANALYTICS_SCOPE, MONETARY_SCOPE)  # type: ignore[attr-defined]
        if isinstance(channel, Answer):
            return channel
        if not self.analytics_quota.take("project").allowed:
            return google_error(429, "rateLimitExceeded", "Quota exceeded for quota metric 'Queries'.")
        q = request.query
        problem = _invalid(q, channel.id)
        if problem:
            return google_error(400, "badRequest", problem)
        metrics = q["metrics"].split(",")
        ids = list(dict.fromkeys(q["filters"].removeprefix("video==").split(",")))
        with self.lock:
            mine = {v.id for v in self.videos if v.channel_id == channel.id}
            mine |= {v for v, c in self.seeded.items() if c == channel.id}
            rows = [
                [video_id, *(self.video_analytics[video_id].get(m, 0) for m in metrics)]
                for video_id in ids
                if video_id in mine and video_id in self.video_analytics
            ]
        if sort := q.get("sort"):
            column = 1 + metrics.index(sort.lstrip("-"))
            rows.sort(key=lambda row: row[column], reverse=sort.startswith("-"))
        rows = rows[: int(q.get("maxResults") or len(rows) or 1)]
        headers = [{"name": "video", "columnType": "DIMENSION", "dataType": "STRING"}]
        headers += [{"name": m, "columnType": "METRIC", "dataType": "INTEGER"} for m in metrics]
        body: dict[str, Any] = {"kind": "youtubeAnalytics#resultTable", "columnHeaders": headers}
        if rows:
            body["rows"] = rows
        return answer(200, body)


def _invalid(q: dict[str, str], channel_id: str) -> str:
    """What is wrong with the query ("" when nothing)."""
    if q.get("ids") not in ("channel==MINE", f"channel=={channel_id}"):
        return "Invalid value for ids: a channel report names channel==MINE or the caller's channel."
    try:
        start, end = date.fromisoformat(q.get("startDate", "")), date.fromisoformat(q.get("endDate", ""))
    except ValueError:
        return "startDate and endDate are required, as YYYY-MM-DD."
    if start > end:
        return "The startDate is after the endDate."
    metrics = [m for m in q.get("metrics", "").split(",") if m]
    if not metrics or not set(metrics) <= set(KNOWN_METRICS) or len(set(metrics)) != len(metrics):
        return f"Unknown or missing metrics: {q.get('metrics', '')!r}."
    if q.get("dimensions") != "video":
        return "This report takes dimensions=video."
    filters = q.get("filters", "")
    ids = [i for i in filters.removeprefix("video==").split(",") if i]
    if not filters.startswith("video==") or not ids:
        return "The video report needs filters=video==<ids>."
    if len(ids) > MAX_FILTER_IDS:
        return f"The video filter takes at most {MAX_FILTER_IDS} ids."
    sort = q.get("sort", "")
    if sort and sort.lstrip("-") not in metrics:
        return f"The sort {sort!r} names no requested metric."
    results = q.get("maxResults", "")
    if results and not (results.isdigit() and 1 <= int(results) <= MAX_RESULTS):
        return f"maxResults is 1 to {MAX_RESULTS}."
    return ""
