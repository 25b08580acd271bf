"""`schedule_at`: ISO 8601 date-times with an explicit offset, not in the past, not too far ahead."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.errors import ValidationError

# A schedule_at up to this far in the past is taken as "now" (clock skew between the caller
# and us); further in the past is refused rather than silently published late.
PAST_TOLERANCE = timedelta(seconds=60)
MAX_AHEAD = timedelta(days=366)


def parse_datetime(value: str, field: str) -> datetime:
    """A timezone-aware datetime from ISO 8601 text; the offset (or Z) is required."""
    text = value.strip()
    if not text or len(text) > 64:
        raise ValidationError(f"{field} must be an ISO 8601 date-time with an offset, e.g. 2026-12-01T09:00:00Z")
    try:
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        raise ValidationError(f"{field} is not an ISO 8601 date-time: {value[:64]!r}") from None
    if "T" not in text.upper() and " " not in text:
        raise ValidationError(f"{field} needs a time of day, not only a date")
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise ValidationError(f"{field} needs a UTC offset (e.g. Z or +02:00): {value[:64]!r}")
    return parsed.astimezone(UTC)


def parse_schedule(value: str | None, now: datetime) -> datetime | None:
    """None for "publish now"; otherwise the UTC time, refusing the past and the far future."""
    if value is None:
        return None
    when = parse_datetime(value, "schedule_at")
    if when < now - PAST_TOLERANCE:
        raise ValidationError(f"schedule_at {when.isoformat()} is in the past; omit it to publish now")
    if when > now + MAX_AHEAD:
        raise ValidationError(f"schedule_at is more than {MAX_AHEAD.days} days ahead")
    return max(when, now)
