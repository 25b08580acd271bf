"""What a connector reads back about published items (docs/analytics.md): the items asked
about, the readings answered, and the refusal of an account that may not read them. Each
platform's reads are in core/connectors/<platform>_metrics.py; the collection that drives them
is core/analytics."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.connectors.base import Account


@dataclass(frozen=True, slots=True)
class MetricsItem:
    """One published item whose metrics are read (docs/analytics.md): the post (`part` -1) or a
    thread item (its position), by the platform's id for it."""

    post_id: str
    part: int
    platform_post_id: str
    published_at: datetime
    # The account that published it (a Mastodon status is read on its instance).
    account: Account = Account("")


@dataclass(frozen=True, slots=True)
class MetricsReading:
    """What the platform said about one item: its numbers in the normalized vocabulary
    (contract/analytics.py; a metric the platform does not give is left out, never 0) and the
    answer they were read from, kept as the post's latest raw answer. `gone`: the platform no
    longer has the item (deleted; a 404, or left out of a batch's answer): its series ends.
    `refused`: some of the platform's metrics were refused for want of a permission while the rest
    were read (YouTube's Analytics report without `yt-analytics.readonly`): the reading stands
    with those left out, and the profile is marked with the metrics it names, which does not stop
    its reads (core/analytics/profile_access.py)."""

    values: Mapping[str, int]
    raw: Any
    gone: bool = False
    refused: MetricsUnavailable | None = None


def gone(raw: Any = None) -> MetricsReading:
    """The reading of an item the platform no longer has."""
    return MetricsReading({}, raw, gone=True)


class MetricsUnavailable(Exception):
    """The account may not read these metrics (a permission it did not grant, a 403 on the
    insights endpoint): the profile's reads stop until it is connected again
    (docs/analytics.md, "Each platform"). `metrics` names what cannot be read (every metric the
    platform gives when empty)."""

    def __init__(self, message: str, *, metrics: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.metrics = metrics
