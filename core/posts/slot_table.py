"""Publishing time slots: a profile's weekly table of local times, from which "add to queue"
picks the next free one. Pure logic: no database, no I/O beyond zoneinfo's time zone files.

A table is an IANA time zone and a set of (weekday, HH:MM) wall-clock times. `next_free_slot`
walks the table's instants after a given moment, computed in the profile's zone, and returns the
first one that no instant in `taken` falls in (to the minute), in UTC.

Daylight saving time: a slot names a wall-clock time, so on the days the clocks change
- spring forward: a slot in the skipped hour (02:30 in Europe/Paris on the last Sunday of March)
  moves to the first minute that exists after it (03:00 local, 01:00 UTC);
- fall back: a slot in the repeated hour is its first occurrence (fold=0); the second occurrence
  is never produced;
- slots that land on the same instant (that moved 02:30 and a 03:00) count once.
Resolved this way, later wall-clock times never give earlier instants, so walking the table day
by day, each day's times in order, yields the instants in increasing order.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from core.errors import ValidationError

DAYS: tuple[str, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
# A week of hourly slots: more than any posting schedule needs, and a bound on one search's work.
MAX_SLOTS = 168
# How far ahead "add to queue" looks (the same bound as schedule_at: core/posts/schedule.py).
HORIZON = timedelta(days=366)

_TIME = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")
# IANA names are letters, digits, _ + - in /-separated parts: no "..", no absolute path, no spaces.
_ZONE_NAME = re.compile(r"[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+)*")
# Files in the zoneinfo directory that load but are not zones a profile may name: the host's own
# zone, the POSIX default rules, and Debian's duplicate trees (right/ counts leap seconds).
_NOT_ZONES = ("localtime", "posixrules")
_NOT_ZONE_DIRS = ("posix/", "right/")
_MINUTE = timedelta(minutes=1)
_MAX_GAP = 2 * 24 * 60  # minutes; no zone has ever skipped more than a day


@dataclass(frozen=True, slots=True)
class Slot:
    day: str  # one of DAYS
    time: str  # "HH:MM", 24-hour


@dataclass(frozen=True, slots=True)
class SlotTable:
    timezone: str
    slots: tuple[Slot, ...]  # canonical order: by weekday index, then time
    # Each weekday's times (Monday first), sorted: what a search walks, grouped once per table
    # (tables are cached: SlotTable.from_json).
    by_weekday: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        grouped = tuple(tuple(sorted(s.time for s in self.slots if s.day == day)) for day in DAYS)
        object.__setattr__(self, "by_weekday", grouped)

    def as_dict(self) -> dict:
        return {"timezone": self.timezone, "slots": [{"day": s.day, "time": s.time} for s in self.slots]}

    def to_json(self) -> str:
        """Compact JSON for storage; `from_json` reads it back."""
        return json.dumps(self.as_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> SlotTable | None:
        """The stored table, validated again; None for "" (the profile has no table). Tables
        are immutable: a stored text read before is answered from a cache (validating 168 slots
        cost more than a whole next_slot search)."""
        return _from_json(text) if text else None


@functools.lru_cache(maxsize=4096)
def _from_json(text: str) -> SlotTable:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValidationError(f"stored time slots must be a JSON object, not {_kind(data)}")
    return parse_table(data.get("timezone"), data.get("slots"))


def parse_table(timezone: object, slots: object) -> SlotTable:
    """A table from untrusted values (any JSON type); an empty list of slots clears the table."""
    zone = _parse_zone(timezone)
    if not isinstance(slots, list):
        raise ValidationError(f"slots must be a list of {{day, time}} objects, not {_kind(slots)}")
    if len(slots) > MAX_SLOTS:
        raise ValidationError(f"slots has {len(slots)} entries; at most {MAX_SLOTS} are allowed")
    seen: set[Slot] = set()
    for i, item in enumerate(slots):
        where = f"slots[{i}]"
        if not isinstance(item, dict):
            raise ValidationError(f"{where} must be an object with day and time, not {_kind(item)}")
        unknown = sorted(str(key) for key in item if key not in ("day", "time"))
        if unknown:
            raise ValidationError(f"{where} has an unknown key {unknown[0][:32]!r}; only day and time are allowed")
        for key in ("day", "time"):
            if key not in item:
                raise ValidationError(f"{where} is missing its {key}")
        day, at = item["day"], item["time"]
        if not isinstance(day, str) or day not in DAYS:
            raise ValidationError(f"{where}.day must be one of {', '.join(DAYS)} (lowercase), not {_show(day)}")
        if not isinstance(at, str) or not _TIME.fullmatch(at):
            raise ValidationError(f"{where}.time must be HH:MM on a 24-hour clock (00:00 to 23:59), not {_show(at)}")
        slot = Slot(day, at)
        if slot in seen:
            raise ValidationError(f"{where} is a duplicate of {day} {at}; each time slot may appear once")
        seen.add(slot)
    return SlotTable(zone, tuple(sorted(seen, key=lambda s: (DAYS.index(s.day), s.time))))


def candidates(table: SlotTable, after: datetime) -> Iterator[datetime]:
    """The table's instants (UTC) strictly after `after`, increasing, each once, up to HORIZON later."""
    start = _utc(after, "after")
    end = start + HORIZON
    times = table.by_weekday
    if not any(times):
        return
    # From the day before: a gap at midnight can move that day's last slots into `after`'s day.
    day = start.astimezone(ZoneInfo(table.timezone)).date() - timedelta(days=1)
    last = None
    while True:
        for instant in _day_instants(table.timezone, day, times[day.weekday()]):
            if instant > end:
                return
            if instant > start and instant != last:
                last = instant
                yield instant
        day += timedelta(days=1)


@functools.lru_cache(maxsize=8192)
def _day_instants(timezone: str, day: date, times: tuple[str, ...]) -> tuple[datetime, ...]:
    """The instants of one day's slot times: the same few days are asked for by every request
    (the day before and the days after the last slot given), so they are computed once."""
    zone = ZoneInfo(timezone)
    return tuple(_resolve(datetime.combine(day, time.fromisoformat(at)), zone) for at in times)


def next_free_slot(table: SlotTable, after: datetime, taken: Collection[datetime]) -> datetime:
    """The earliest slot instant (UTC) strictly after `after` whose minute holds no `taken` instant."""
    if not table.slots:
        raise ValidationError("no time slots: add some before adding posts to the queue")
    held = {_utc(t, "taken").replace(second=0, microsecond=0) for t in taken}
    for instant in candidates(table, after):
        if instant not in held:
            return instant
    raise ValidationError(f"no free time slot in the next {HORIZON.days} days: every slot is taken")


def _resolve(wall: datetime, zone: ZoneInfo) -> datetime:
    """The UTC instant of a naive wall-clock time in `zone`: its first occurrence (fold=0) if the
    clocks showed it twice; the first minute that exists after it if the clocks skipped it."""
    for _ in range(_MAX_GAP):
        instant = wall.replace(tzinfo=zone).astimezone(UTC)
        # A skipped time does not survive the round trip (local -> UTC -> local).
        if instant.astimezone(zone).replace(tzinfo=None) == wall:
            return instant
        wall += _MINUTE
    raise AssertionError(f"{zone.key} skips more than {_MAX_GAP} minutes at {wall.isoformat()}")


def _parse_zone(value: object) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"timezone must be a string (an IANA name such as Europe/Paris), not {_kind(value)}")
    if not value:
        raise ValidationError("timezone is required (an IANA name such as Europe/Paris)")
    unknown = ValidationError(f"timezone {value[:64]!r} is not a known IANA time zone (e.g. Europe/Paris, UTC)")
    if len(value) > 64 or not _ZONE_NAME.fullmatch(value) or value in _NOT_ZONES or value.startswith(_NOT_ZONE_DIRS):
        raise unknown
    try:
        ZoneInfo(value)
    except (KeyError, ValueError, OSError):  # not found (a KeyError), not a TZif file, a directory
        raise unknown from None
    return value


def _utc(value: datetime, name: str) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be a timezone-aware datetime, got {value.isoformat()}")
    return value.astimezone(UTC)


def _kind(value: object) -> str:
    """The JSON type of `value`, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    kinds = {str: "a string", list: "a list", dict: "an object"}
    return next((name for kind, name in kinds.items() if isinstance(value, kind)), type(value).__name__)


def _show(value: object) -> str:
    return repr(value[:16]) if isinstance(value, str) else _kind(value)
