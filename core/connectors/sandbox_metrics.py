"""The sandbox's metrics (HERALD_PUBLISH_MODE=sandbox; docs/analytics.md, "Sandbox metrics"):
deterministic synthetic numbers for a published item, from its post id, its part and its age,
growing over time, so the whole collection runs (`make run`) without a platform.

Each item has an audience of its own (500 to 20,500 impressions at the end, from a hash of the
post id and part) and each metric a share of it with a spread of its own (likes about 4 %,
reposts about 1 % …). Only the metrics the connector's platform gives are made
(`Connector.post_metric_names`): a sandbox Bluesky post has no impressions either.

The numbers grow with the item's age on the schedule's own clock: a share log(1 + age/u) /
log(1 + span/u) of the final value, where `span` is the schedule's last read (30 days by default)
and u = span / 720 (an hour of 30 days); at the last read an item has its final numbers. So a
schedule of seconds (the tests') shows the same growth as one of days, and a later read never
shows less than an earlier one.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from datetime import datetime, timedelta

from core.connectors.base import Connector
from core.connectors.readings import MetricsItem, MetricsReading

# A metric's final value as a share of the item's audience, before its spread (0.6x to 1.4x).
_SHARE = {
    "impressions": 1.0,
    "reach": 0.7,
    "video_views": 0.45,
    "watch_time_seconds": 6.0,
    "likes": 0.04,
    "reposts": 0.008,
    "replies": 0.005,
    "quotes": 0.002,
    "bookmarks": 0.006,
    "shares": 0.004,
    "link_clicks": 0.012,
}


def _unit(*parts: object) -> float:
    """A number in [0, 1) from the parts, the same on every run."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def growth(age: timedelta, span: timedelta) -> float:
    """The share of its final numbers an item has at `age` (0 at publishing, 1 from `span`)."""
    if age <= timedelta(0):
        return 0.0
    unit = span / 720
    return min(1.0, math.log1p(age / unit) / math.log1p(span / unit))


def reading(connector: Connector, item: MetricsItem, now: datetime, span: timedelta) -> MetricsReading:
    """One item's synthetic reading at `now`; its raw answer says it is the sandbox's."""
    audience = 500 + 20_000 * _unit(item.post_id, item.part)
    share = growth(now - item.published_at, span)
    values = {}
    for name in connector.post_metric_names:
        spread = 1.0 if name == "impressions" else 0.6 + 0.8 * _unit(item.post_id, item.part, name)
        values[name] = math.floor(audience * _SHARE[name] * spread * share)
    raw = {
        "sandbox": True,
        "id": item.platform_post_id,
        "age_seconds": round((now - item.published_at).total_seconds(), 3),
        "metrics": values,
    }
    return MetricsReading(values, raw)


def sandbox_post_metrics(
    connector: Connector, items: Sequence[MetricsItem], now: datetime, span: timedelta
) -> list[MetricsReading]:
    """One metrics call of the sandbox: a reading per item, in order (at most
    `connector.metrics_batch_size` items, as a platform's batch endpoint takes)."""
    return [reading(connector, item, now, span) for item in items]
