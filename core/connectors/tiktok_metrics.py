"""TikTok's post metrics (docs/analytics.md, "Each platform"): `POST /v2/video/query/` with
`filters.video_ids` (up to 20) and `fields=id,view_count,like_count,comment_count,share_count`;
`view_count` is our `video_views`, `comment_count` our `replies`, the others keep their names.
No reach, saves or watch time. It lists the creator's public videos only: an id it leaves out is
gone (deleted, or made private since). A video's id exists once moderation published it (the
publish status's `publicaly_available_post_id`), so a post published private has none to read.

Reading needs `video.list`: a refusal for want of it (`scope_not_authorized`) makes the
profile's metrics unavailable. The limit is 600 calls a minute per endpoint, 429
`rate_limit_exceeded` over it."""

from __future__ import annotations

from collections.abc import Sequence

from core.connectors.base import DeliveryError, ErrorClass, PlatformAPI, PlatformRequest
from core.connectors.common import JSON_UTF8, dig
from core.connectors.metrics_common import mapped
from core.connectors.readings import MetricsItem, MetricsReading, MetricsUnavailable, gone

QUERY = "https://open.tiktokapis.com/v2/video/query/"
FIELDS = {"view_count": "video_views", "like_count": "likes", "comment_count": "replies", "share_count": "shares"}
PRIVATE = {"reason": "published private: TikTok lists no video for it"}
SCOPE_CODES = frozenset({"scope_not_authorized", "scope_permission_missed"})


async def read(items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
    # A private post's id is its publish_id: it has no video to list, and nothing is asked for it.
    ids = list(dict.fromkeys(i.platform_post_id for i in items if i.platform_post_id.isdigit()))
    if not ids:
        return [gone(PRIVATE) for _ in items]
    request = PlatformRequest(
        "POST",
        f"{QUERY}?fields=id,{','.join(FIELDS)}",
        dict(JSON_UTF8),
        json={"filters": {"video_ids": ids}},
    )
    try:
        response = await api.send(request, expect=(200,))
    except DeliveryError as error:
        if error.code in SCOPE_CODES or any(code in str(error) for code in SCOPE_CODES):
            raise MetricsUnavailable(f"TikTok refused its videos' metrics: {error}") from None
        raise
    code = dig(response.body, "error", "code")
    if code not in (None, "ok"):  # TikTok can refuse with 200 and its own code
        message = str(dig(response.body, "error", "message") or code)[:300]
        if code in SCOPE_CODES:
            raise MetricsUnavailable(f"TikTok refused its videos' metrics: {message}")
        error_class = ErrorClass.RETRYABLE if code == "rate_limit_exceeded" else ErrorClass.PERMANENT
        raise DeliveryError(error_class, f"TikTok's video query: {code}: {message}", code=str(code))
    videos = {str(v.get("id")): v for v in dig(response.body, "data", "videos") or [] if isinstance(v, dict)}
    return [
        MetricsReading(mapped(videos[i.platform_post_id], FIELDS), videos[i.platform_post_id])
        if i.platform_post_id in videos
        else gone(None if i.platform_post_id.isdigit() else PRIVATE)
        for i in items
    ]
