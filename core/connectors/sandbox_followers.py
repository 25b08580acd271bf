"""The sandbox's account metrics (HERALD_PUBLISH_MODE=sandbox; docs/analytics.md, "Account
metrics"): a profile's followers, synthetic and deterministic, from its id and the day, growing
slowly, so the daily collection and the account's history show something without a platform.

Each profile starts with 50 to 5,050 followers (a hash of its id) and gains a share of that
start each day (0.2 % to 1 %, a hash too), with a wobble of under a day's gain from a hash of
the day: followers = start + floor(gain × (days + wobble)), days counted in UTC from the
profile's creation. The same profile on the same day always has the same number, and a later
day never has fewer.
"""

from __future__ import annotations

import hashlib
import math
from datetime import datetime

from core.connectors.readings import MetricsReading


def _unit(*parts: object) -> float:
    """A number in [0, 1) from the parts, the same on every run."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def followers(profile_id: str, created_at: datetime, now: datetime) -> int:
    start = 50 + math.floor(5000 * _unit(profile_id, "followers"))
    gain = start * (0.002 + 0.008 * _unit(profile_id, "growth"))
    days = max(0, (now.date() - created_at.date()).days)
    return start + math.floor(gain * (days + _unit(profile_id, now.date().isoformat())))


def sandbox_account_metrics(profile_id: str, created_at: datetime, now: datetime) -> MetricsReading:
    """One account read of the sandbox; its raw answer says it is the sandbox's."""
    count = followers(profile_id, created_at, now)
    raw = {"sandbox": True, "profile_id": profile_id, "day": now.date().isoformat(), "followers": count}
    return MetricsReading({"followers": count}, raw)
