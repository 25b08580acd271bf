"""Bluesky's post metrics (docs/analytics.md, "Each platform"): `app.bsky.feed.getPosts` on the
public AppView (`public.api.bsky.app`, no token: a PDS holds no counts), up to 25 `uris`. A post
the answer leaves out is gone (deleted, or hidden by its author). No views. The AppView's limits
are per client address, not per account: the connector's reads are paced per app
(`metrics_limit_scope`), by its `RateLimit-*` headers and 429s."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from core.connectors.base import PlatformAPI, PlatformRequest
from core.connectors.common import dig
from core.connectors.metrics_common import mapped
from core.connectors.readings import MetricsItem, MetricsReading, gone

APPVIEW = "https://public.api.bsky.app"
FIELDS = {
    "likeCount": "likes",
    "repostCount": "reposts",
    "replyCount": "replies",
    "quoteCount": "quotes",
    "bookmarkCount": "bookmarks",
}


async def read(items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
    uris = list(dict.fromkeys(item.platform_post_id for item in items))
    query = "&".join(f"uris={quote(uri, safe='')}" for uri in uris)
    response = await api.send(PlatformRequest("GET", f"{APPVIEW}/xrpc/app.bsky.feed.getPosts?{query}", auth=None))
    found = {str(p.get("uri")): p for p in dig(response.body, "posts") or [] if isinstance(p, dict)}
    return [
        MetricsReading(mapped(found[i.platform_post_id], FIELDS), found[i.platform_post_id])
        if i.platform_post_id in found
        else gone()
        for i in items
    ]
