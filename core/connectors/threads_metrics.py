"""Threads' post metrics (docs/analytics.md, "Each platform"): a media object's insights, one a
call, `GET /{media-id}/insights?metric=views,likes,replies,reposts,quotes,shares`; `views` is our
`impressions`, the rest keep their names (a reply's `replies` counts its direct replies only).
Reading them needs `threads_manage_insights`: a refusal for want of it (Graph codes 10 and 200,
or a 403) makes the profile's metrics unavailable. A media object that no longer exists (code 100,
subcode 33) is gone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from core.connectors.base import DeliveryError, ErrorClass, PlatformAPI, PlatformRequest
from core.connectors.common import as_int, dig
from core.connectors.metrics_common import count
from core.connectors.readings import MetricsItem, MetricsReading, MetricsUnavailable, gone

API = "https://graph.threads.net/v1.0"
METRICS = {
    "views": "impressions",
    "likes": "likes",
    "replies": "replies",
    "reposts": "reposts",
    "quotes": "quotes",
    "shares": "shares",
}
PERMISSION_CODES = frozenset({10, 200})
NOT_FOUND = (100, 33)


async def read(items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
    return [await _one(item, api) for item in items]


async def _one(item: MetricsItem, api: PlatformAPI) -> MetricsReading:
    url = f"{API}/{quote(item.platform_post_id, safe='')}/insights?metric={','.join(METRICS)}"
    response = await api.send(PlatformRequest("GET", url), expect=(200, 400, 403, 404))
    if response.status == 200:
        return MetricsReading(_values(response.body), response.body)
    code, subcode = as_int(dig(response.body, "error", "code")), as_int(dig(response.body, "error", "error_subcode"))
    message = str(dig(response.body, "error", "message") or response.body)[:500]
    if response.status == 404 or (code, subcode) == NOT_FOUND:
        return gone(response.body)
    if response.status == 403 or code in PERMISSION_CODES:
        raise MetricsUnavailable(f"{response.status} from Threads insights: {message}")
    raise DeliveryError(ErrorClass.PERMANENT, f"{response.status} from Threads insights: {message}", status=400)


def _values(body: Any) -> dict[str, int]:
    """Each metric's lifetime value: `values[0].value`, or `total_value.value`."""
    out = {}
    for entry in dig(body, "data") or []:
        ours = METRICS.get(str(dig(entry, "name")))
        if ours is None:
            continue
        number = count(dig(entry, "values", 0, "value"))
        if number is None:
            number = count(dig(entry, "total_value", "value"))
        if number is not None:
            out[ours] = number
    return out
