"""YouTube's watch time and shares (docs/analytics.md, "Each platform"): the videos.list
statistics carry neither, the YouTube Analytics API does, one `reports.query` per batch of
videos: `GET https://youtubeanalytics.googleapis.com/v2/reports?ids=channel==MINE` with the
batch's ids in `filters=video==a,b,…` (the filter takes up to 500), `dimensions=video` and
`metrics=estimatedMinutesWatched,shares`, from the earliest video's publish date to today.

The answer is a table: `columnHeaders` names the columns, in order, and each of `rows` is one
video's values in that order (found by the headers' names, never by position). A video with no
data in the range is not in `rows` (no `rows` at all when none has any): its two metrics are
absent, never 0. `estimatedMinutesWatched` is whole minutes; ours is seconds, so × 60.

Days are YouTube Analytics' own, in Pacific time: both dates are taken there, so a video
published in the evening (Pacific) of the day before its UTC date is counted from that day.

The Analytics API needs `yt-analytics.readonly`, which accounts connected before Herald asked for
it lack. Its 403 for that (or any 403 other than a limit) is not the statistics' refusal: `read`
returns it as a `MetricsUnavailable` naming the two metrics, and the statistics stand. Its limits
are its own (not the Data API's 10,000 units): a 429, or a 403 naming a rate limit, is a wait of
what `Retry-After` says (a minute without it); a spent daily quota waits for its reset at
midnight Pacific time, as the statistics' does. A 400 (a request YouTube would not report on)
leaves the two metrics absent too, with its message in the raw answer, without marking anyone:
it is not a permission the account can grant."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

from core.connectors import youtube_metrics
from core.connectors.base import DeliveryError, ErrorClass, PlatformAPI, PlatformRequest
from core.connectors.common import dig
from core.connectors.metrics_common import count
from core.connectors.readings import MetricsItem, MetricsUnavailable
from core.db.types import utcnow

REPORTS = "https://youtubeanalytics.googleapis.com/v2/reports"
SCOPE = "https://www.googleapis.com/auth/yt-analytics.readonly"
METRICS = ("watch_time_seconds", "shares")
MAX_FILTER_IDS = 500
DAILY_QUOTA_REASONS = frozenset({"quotaExceeded", "dailyLimitExceeded"})
RATE_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded"})
RATE_WAIT_SECONDS = 60.0


async def read(
    ids: Sequence[str], items: Sequence[MetricsItem], api: PlatformAPI
) -> tuple[dict[str, dict[str, Any]], MetricsUnavailable | None, str]:
    """Each video's report row by id ({column: value}, only the videos the report has), the
    refusal when the account may not read the report, and a 400's message ("" otherwise)."""
    start, end = dates(items, utcnow())
    rows: dict[str, dict[str, Any]] = {}
    for first in range(0, len(ids), MAX_FILTER_IDS):
        chunk = ids[first : first + MAX_FILTER_IDS]
        query = (
            f"ids=channel%3D%3DMINE&startDate={start}&endDate={end}"
            "&metrics=estimatedMinutesWatched%2Cshares&dimensions=video"
            f"&filters=video%3D%3D{quote(','.join(chunk), safe=',')}"
            f"&sort=-estimatedMinutesWatched&maxResults={len(chunk)}"
        )
        response = await api.send(PlatformRequest("GET", f"{REPORTS}?{query}"), expect=(200, 400, 403))
        message = str(dig(response.body, "error", "message") or response.status)[:300]
        if response.status == 400:
            return rows, None, f"400 from YouTube Analytics: {message}"
        if response.status == 403:
            errors = dig(response.body, "error", "errors")
            reasons = {dig(e, "reason") for e in errors} if isinstance(errors, list) else set()
            if reasons & DAILY_QUOTA_REASONS:
                wait = (youtube_metrics.next_pacific_midnight(utcnow()) - utcnow()).total_seconds()
                raise DeliveryError(
                    ErrorClass.RETRYABLE,
                    f"YouTube Analytics' daily quota is spent: {message}",
                    status=429,
                    retry_after=wait,
                )
            if reasons & RATE_REASONS:
                raise DeliveryError(
                    ErrorClass.RETRYABLE,
                    f"YouTube Analytics asks to slow down: {message}",
                    status=429,
                    retry_after=RATE_WAIT_SECONDS,
                )
            refusal = MetricsUnavailable(
                f"403 from YouTube Analytics: {message} (connect the account again, granting {SCOPE})",
                metrics=METRICS,
            )
            return {}, refusal, ""
        rows |= table(response.body)
    return rows, None, ""


def table(body: Any) -> dict[str, dict[str, Any]]:
    """The report's rows as {video id: {column name: value}}, by the headers' names."""
    headers = dig(body, "columnHeaders")
    names = [str(dig(h, "name")) for h in headers] if isinstance(headers, list) else []
    if "video" not in names:
        return {}
    out = {}
    for row in dig(body, "rows") or []:
        if isinstance(row, list) and len(row) == len(names):
            named = dict(zip(names, row, strict=True))
            out[str(named["video"])] = named
    return out


def values(row: Mapping[str, Any] | None) -> dict[str, int]:
    """Our metrics from one video's row: minutes watched in seconds, and shares (each absent when
    the row does not carry it as a count)."""
    if row is None:
        return {}
    minutes, shares = count(row.get("estimatedMinutesWatched")), count(row.get("shares"))
    out = {"watch_time_seconds": minutes * 60} if minutes is not None else {}
    return out | ({"shares": shares} if shares is not None else {})


def dates(items: Sequence[MetricsItem], now: datetime) -> tuple[str, str]:
    """The report's startDate and endDate (YYYY-MM-DD, Pacific time) for these items."""
    pacific = youtube_metrics.PACIFIC
    today = now.astimezone(pacific).date()
    start = min(min(i.published_at for i in items).astimezone(pacific).date(), today)
    return start.isoformat(), today.isoformat()
