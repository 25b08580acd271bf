"""Instagram's post metrics (docs/analytics.md, "Each platform"): each media object's insights,
`GET /{media-id}/insights?metric=views,reach,likes,comments,saved,shares`, sent as one Graph batch
(`POST /` with `batch`, up to 50 requests; Meta counts each request of a batch against the
account's limit, so a batch saves round trips, not calls).

`views` is our `impressions`, `comments` our `replies`, `saved` our `bookmarks`, the rest keep
their names. A reel is asked for `ig_reels_video_view_total_time` too (milliseconds, our
`watch_time_seconds`); Instagram refuses that metric for other media (code 100), and an item so
refused is asked again without it in the next batch: the item's kind is not known here, and a
refusal costs one request where asking every reel apart would cost one a read.

An empty `data` is numbers Instagram does not have yet (they can lag up to 48 hours): every
metric is absent, never 0. A media object that no longer exists (code 100, subcode 33) is gone.
Reading needs `instagram_business_manage_insights`: a refusal for want of it (Graph code 10 or
200, or a 403) makes the profile's metrics unavailable."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from core.connectors.base import DeliveryError, ErrorClass, PlatformAPI, PlatformRequest
from core.connectors.common import as_int, dig
from core.connectors.metrics_common import count
from core.connectors.readings import MetricsItem, MetricsReading, MetricsUnavailable, gone

API = "https://graph.instagram.com/v25.0"
BATCH = "https://graph.instagram.com"
METRICS = {
    "views": "impressions",
    "reach": "reach",
    "likes": "likes",
    "comments": "replies",
    "saved": "bookmarks",
    "shares": "shares",
}
WATCH_TIME = "ig_reels_video_view_total_time"
PERMISSION_CODES = frozenset({10, 200})
NOT_FOUND = (100, 33)
# Graph's throttling codes (app, account, page, business use case): come back later.
THROTTLE_CODES = frozenset({4, 17, 32, 613, 80002})


async def read(items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
    ids = list(dict.fromkeys(item.platform_post_id for item in items))
    found = await _batch(ids, api, watch_time=True)
    again = [media_id for media_id, reading in found.items() if reading is None]
    if again:
        found.update(await _batch(again, api, watch_time=False))
    return [found[item.platform_post_id] or gone() for item in items]


def insights_url(media_id: str, *, watch_time: bool) -> str:
    metrics = ",".join((*METRICS, WATCH_TIME) if watch_time else METRICS)
    return f"v25.0/{quote(media_id, safe='')}/insights?metric={metrics}"


async def _batch(ids: list[str], api: PlatformAPI, *, watch_time: bool) -> dict[str, MetricsReading | None]:
    """Each media's reading; None for one that refused the reels metric (asked again without)."""
    batch = [{"method": "GET", "relative_url": insights_url(i, watch_time=watch_time)} for i in ids]
    response = await api.send(
        PlatformRequest("POST", BATCH, form={"batch": json.dumps(batch), "include_headers": "false"})
    )
    answers = response.body if isinstance(response.body, list) else []
    if len(answers) != len(ids):
        raise DeliveryError(ErrorClass.RETRYABLE, f"Instagram answered {len(answers)} of a batch of {len(ids)}")
    return {media_id: _one(answer, watch_time) for media_id, answer in zip(ids, answers, strict=True)}


def _one(answer: Any, watch_time: bool) -> MetricsReading | None:
    if not isinstance(answer, dict):  # Graph leaves a request it did not get to as null
        raise DeliveryError(ErrorClass.RETRYABLE, "Instagram did not answer every request of the batch")
    status = as_int(answer.get("code")) or 0
    body = _decoded(answer.get("body"))
    if status == 200:
        return MetricsReading(values(body), body)
    code, subcode = as_int(dig(body, "error", "code")), as_int(dig(body, "error", "error_subcode"))
    message = str(dig(body, "error", "message") or body)[:500]
    if (code, subcode) == NOT_FOUND or status == 404:
        return gone(body)
    if code == 100 and watch_time and WATCH_TIME in message:
        return None
    if status == 403 or code in PERMISSION_CODES:
        raise MetricsUnavailable(f"{status} from Instagram insights: {message}")
    if status == 429 or code in THROTTLE_CODES:
        raise DeliveryError(ErrorClass.RETRYABLE, f"Instagram's limit: {message}", status=429, code=str(code))
    if code == 190:
        raise DeliveryError(ErrorClass.NEEDS_REAUTH, f"Instagram refused the token: {message}", status=status)
    raise DeliveryError(ErrorClass.PERMANENT, f"{status} from Instagram insights: {message}", status=status)


def values(body: Any) -> dict[str, int]:
    """Each metric's lifetime value (`values[0].value`, or `total_value.value`); the reels'
    watch time in whole seconds."""
    out: dict[str, int] = {}
    for entry in dig(body, "data") or []:
        name = str(dig(entry, "name"))
        number = count(dig(entry, "values", 0, "value"))
        if number is None:
            number = count(dig(entry, "total_value", "value"))
        if number is None:
            continue
        if name == WATCH_TIME:
            out["watch_time_seconds"] = number // 1000
        elif name in METRICS:
            out[METRICS[name]] = number
    return out


def _decoded(body: Any) -> Any:
    if isinstance(body, str):
        try:
            return json.loads(body)
        except ValueError:
            return body
    return body
