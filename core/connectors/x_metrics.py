"""X's post metrics (docs/analytics.md, "Each platform"): `GET /2/tweets?ids=` with up to 100 ids,
`tweet.fields=public_metrics` and, for the account's own posts of the last 30 days,
`non_public_metrics` (X refuses those fields for older posts, so a batch's older posts are asked
apart, without them: up to two calls a batch).

An id X no longer has comes back in `errors` (`resource-not-found`) and not in `data`: that post
is gone. The rate limit is per user per 15 minutes (`x-rate-limit-*` headers, read by the live
API)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from core.connectors.base import PlatformAPI, PlatformRequest
from core.connectors.common import dig
from core.connectors.metrics_common import mapped
from core.connectors.readings import MetricsItem, MetricsReading, gone
from core.db.types import utcnow

API = "https://api.x.com/2"
# Non-public metrics are given for posts up to 30 days old; a margin for clocks and the call.
NON_PUBLIC_DAYS = timedelta(days=30) - timedelta(hours=1)
PUBLIC = {
    "impression_count": "impressions",
    "like_count": "likes",
    "retweet_count": "reposts",
    "reply_count": "replies",
    "quote_count": "quotes",
    "bookmark_count": "bookmarks",
}
NON_PUBLIC = {"url_link_clicks": "link_clicks"}


async def read(items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
    now = utcnow()
    recent = [i for i in items if now - i.published_at < NON_PUBLIC_DAYS]
    older = [i for i in items if now - i.published_at >= NON_PUBLIC_DAYS]
    found: dict[str, MetricsReading] = {}
    for group, fields in ((recent, "public_metrics,non_public_metrics"), (older, "public_metrics")):
        if group:
            found.update(await _call(group, fields, api))
    return [found[item.platform_post_id] for item in items]


async def _call(items: Sequence[MetricsItem], fields: str, api: PlatformAPI) -> dict[str, MetricsReading]:
    ids = ",".join(dict.fromkeys(item.platform_post_id for item in items))
    response = await api.send(PlatformRequest("GET", f"{API}/tweets?ids={ids}&tweet.fields={fields}"))
    tweets = {str(t.get("id")): t for t in dig(response.body, "data") or [] if isinstance(t, dict)}
    errors = {
        str(e.get("resource_id") or e.get("value")): e
        for e in dig(response.body, "errors") or []
        if isinstance(e, dict)
    }
    out = {}
    for item in items:
        tweet = tweets.get(item.platform_post_id)
        out[item.platform_post_id] = _reading(tweet) if tweet is not None else gone(errors.get(item.platform_post_id))
    return out


def _reading(tweet: dict[str, Any]) -> MetricsReading:
    private = tweet.get("non_public_metrics")
    values = mapped(tweet.get("public_metrics"), PUBLIC)
    values |= mapped(private, NON_PUBLIC)
    if "impressions" not in values:  # older answers carry it in the non-public metrics only
        values |= mapped(private, {"impression_count": "impressions"})
    return MetricsReading(values, tweet)
