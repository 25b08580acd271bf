"""Mastodon's post metrics (docs/analytics.md, "Each platform"): `GET /api/v1/statuses?id[]=` on
the account's instance, up to 20 ids (Mastodon 4.3 and later); an instance without that method
answers 404 and is asked one status at a time (`GET /api/v1/statuses/:id`). A status the answer
leaves out (or a 404 of its own) is gone. No views; `quotes_count` only from 4.5. The limits are
the instance's, per account (300 calls a 5 minutes by default, `X-RateLimit-*` headers)."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from core.connectors.base import PlatformAPI, PlatformRequest
from core.connectors.common import base_url
from core.connectors.metrics_common import mapped
from core.connectors.readings import MetricsItem, MetricsReading, gone

DEFAULT_INSTANCE = "https://mastodon.social"
FIELDS = {"favourites_count": "likes", "reblogs_count": "reposts", "replies_count": "replies", "quotes_count": "quotes"}


async def read(items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
    instance = base_url(items[0].account.instance_url, DEFAULT_INSTANCE)
    ids = list(dict.fromkeys(item.platform_post_id for item in items))
    query = "&".join(f"id[]={quote(i, safe='')}" for i in ids)
    response = await api.send(PlatformRequest("GET", f"{instance}/api/v1/statuses?{query}"), expect=(200, 404))
    if response.status == 404:  # before Mastodon 4.3: one status a call
        return [await _one(instance, item, api) for item in items]
    found = {str(s.get("id")): s for s in response.body or [] if isinstance(s, dict)}
    return [_reading(found[i.platform_post_id]) if i.platform_post_id in found else gone() for i in items]


async def _one(instance: str, item: MetricsItem, api: PlatformAPI) -> MetricsReading:
    url = f"{instance}/api/v1/statuses/{quote(item.platform_post_id, safe='')}"
    response = await api.send(PlatformRequest("GET", url), expect=(200, 404))
    return _reading(response.body) if response.status == 200 else gone(response.body)


def _reading(status: object) -> MetricsReading:
    return MetricsReading(mapped(status, FIELDS), status)
