"""A local date and time in a named zone, as the instant the API takes: what the dashboard's
datetime-local fields ("Schedule at") send, read in the zone shown beside them
(docs/dashboard.md, "Compose")."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from contract.organization import time_zones
from facades.errors import ApiError


def instant(local: str, zone: str) -> str:
    """The datetime-local field's value, read in the named zone, as the ISO 8601 instant the API
    takes. A time the zone skips (clocks moved forward) is refused rather than moved; a time that
    happens twice (clocks moved back) is its first occurrence."""
    if zone not in time_zones():
        problem = f"time zone {zone[:64]!r} is not an IANA time zone" if zone else "Schedule at needs its time zone"
        raise ApiError("VALIDATION_ERROR", problem, {"argument": "time_zone"})
    try:
        naive = datetime.fromisoformat(local)
    except ValueError:
        raise ApiError(
            "VALIDATION_ERROR", "Schedule at must be a date and a time (YYYY-MM-DDTHH:MM)", {"argument": "schedule_at"}
        ) from None
    if naive.tzinfo is not None:
        raise ApiError(
            "VALIDATION_ERROR", "Schedule at takes a local time, without an offset", {"argument": "schedule_at"}
        )
    tz = ZoneInfo(zone)
    moment = naive.replace(tzinfo=tz).astimezone(UTC)
    if moment.astimezone(tz).replace(tzinfo=None) != naive:
        raise ApiError(
            "VALIDATION_ERROR",
            f"{naive:%Y-%m-%d %H:%M} does not exist in {zone}: the clocks skip it that day; choose another time",
            {"argument": "schedule_at"},
        )
    return moment.isoformat().replace("+00:00", "Z")
