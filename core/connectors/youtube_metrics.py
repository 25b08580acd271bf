"""YouTube's post metrics (docs/analytics.md, "Each platform"): `videos.list?part=statistics&id=`
with up to 50 ids, one quota unit a call whatever the count; the counts come as strings.
`viewCount` is our `video_views`, `likeCount` our `likes`, `commentCount` our `replies` (a count
the owner hid, or comments turned off, is left out: absent, not 0). A video the answer leaves out
is gone (deleted, or no longer the channel's to read).

Watch time and shares are YouTube Analytics': one report for the videos the statistics found,
after them (core/connectors/youtube_analytics.py). The raw answer kept is the video's statistics
item with the video's report row under `analytics` (or what refused the report, `analytics_error`).

The project's daily quota (10,000 units) spent is a 403 `quotaExceeded`: not a permission the
account lacks but a limit, so the reads wait until the quota resets, at the next midnight in
Pacific time. A token without a read scope is 403 `insufficientPermissions`: the profile's
metrics are unavailable."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from urllib.parse import quote
from zoneinfo import ZoneInfo

from core.connectors import youtube_analytics
from core.connectors.base import DeliveryError, ErrorClass, PlatformAPI, PlatformRequest
from core.connectors.common import dig
from core.connectors.metrics_common import mapped
from core.connectors.readings import MetricsItem, MetricsReading, MetricsUnavailable, gone
from core.db.types import utcnow

VIDEOS = "https://www.googleapis.com/youtube/v3/videos"
FIELDS = {"viewCount": "video_views", "likeCount": "likes", "commentCount": "replies"}
PACIFIC = ZoneInfo("America/Los_Angeles")
QUOTA_REASONS = frozenset({"quotaExceeded", "dailyLimitExceeded"})
PERMISSION_REASONS = frozenset({"insufficientPermissions", "forbidden", "accessNotConfigured"})


async def read(items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
    ids = list(dict.fromkeys(item.platform_post_id for item in items))
    url = f"{VIDEOS}?part=statistics&id={quote(','.join(ids), safe=',')}&maxResults=50"
    response = await api.send(PlatformRequest("GET", url), expect=(200, 403))
    if response.status == 403:
        errors = dig(response.body, "error", "errors")
        reasons = {dig(e, "reason") for e in errors} if isinstance(errors, list) else set()
        message = str(dig(response.body, "error", "message") or "forbidden")[:300]
        if reasons & QUOTA_REASONS:
            wait = (next_pacific_midnight(utcnow()) - utcnow()).total_seconds()
            raise DeliveryError(
                ErrorClass.RETRYABLE, f"YouTube's daily quota is spent: {message}", status=429, retry_after=wait
            )
        raise MetricsUnavailable(f"403 from YouTube videos.list: {message}")
    videos = {str(v.get("id")): v for v in dig(response.body, "items") or [] if isinstance(v, dict)}
    found = [i for i in ids if i in videos]
    rows, refused, problem = await youtube_analytics.read(found, items, api) if found else ({}, None, "")
    readings = {}
    for video_id in found:
        row = rows.get(video_id)
        raw = dict(videos[video_id])
        if row is not None:
            raw["analytics"] = row
        elif refused is not None or problem:
            raw["analytics_error"] = str(refused or problem)
        values = mapped(raw.get("statistics"), FIELDS) | youtube_analytics.values(row)
        readings[video_id] = MetricsReading(values, raw, refused=refused)
    return [readings.get(i.platform_post_id) or gone() for i in items]


def next_pacific_midnight(now: datetime) -> datetime:
    """When YouTube's daily quota resets: the next midnight in Pacific time (a few minutes after,
    for the clocks)."""
    local = now.astimezone(PACIFIC)
    midnight = datetime.combine(local.date() + timedelta(days=1), datetime.min.time(), PACIFIC)
    return midnight + timedelta(minutes=5)
