"""YouTube's post metrics (docs/analytics.md, "Each platform"): `videos.list?part=statistics&id=`
with up to 50 ids, one quota unit a call whatever the count; the counts come as strings.
`viewCount` is our `video_views`, `likeCount` our `likes`, `commentCount` our `replies` (a count
the owner hid, or comments turned off, is left out: absent, not 0). A video the answer leaves out
is gone (deleted, or no longer the channel's to read).

Watch time and shares are YouTube Analytics' (`yt-analytics.readonly`, a report per video); they
are not read yet.

The project's daily quota (10,000 units) spent is a 403 `quotaExceeded`: not a permission the
account lacks but a limit, so the reads wait until the quota resets, at the next midnight in
Pacific time. A token without a read scope is 403 `insufficientPermissions`: the profile's
metrics are unavailable."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from urllib.parse import quote
from zoneinfo import ZoneInfo

from core.connectors.base import (
    DeliveryError,
    ErrorClass,
    MetricsItem,
    MetricsReading,
    MetricsUnavailable,
    PlatformAPI,
    PlatformRequest,
    gone,
)
from core.connectors.common import dig
from core.connectors.metrics_common import mapped
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
    return [
        MetricsReading(mapped(videos[i.platform_post_id].get("statistics"), FIELDS), videos[i.platform_post_id])
        if i.platform_post_id in videos
        else gone()
        for i in items
    ]


def next_pacific_midnight(now: datetime) -> datetime:
    """When YouTube's daily quota resets: the next midnight in Pacific time (a few minutes after,
    for the clocks)."""
    local = now.astimezone(PACIFIC)
    midnight = datetime.combine(local.date() + timedelta(days=1), datetime.min.time(), PACIFIC)
    return midnight + timedelta(minutes=5)
