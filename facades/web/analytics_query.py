"""What the analytics page and its CSV exports read from their query (docs/dashboard.md,
"Analytics"): the range (the last 7, 30 or 90 days, or from and to dates), in the organization's
time zone, and the filters (profile, platform); and the links that keep them.

A range is whole local days, `to` included: [from 00:00, the day after `to` 00:00) in the zone,
sent to the core as instants with their offsets. Anything the page cannot read is a problem
shown once on the page (400), which then shows the default range."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from sanic import Request

from facades.web.calendar_range import day_start, parse_day

RANGES = {"7": "Last 7 days", "30": "Last 30 days", "90": "Last 90 days"}
DEFAULT_RANGE = "30"
# The widest range from and to may name: a year and a leap day.
MAX_DAYS = 366
FILTER_LENGTH = 64  # a slug or a platform key is shorter; anything longer is no profile's


@dataclass(frozen=True, slots=True)
class Shown:
    """The range and filters a page shows: its first and last local days, the preset it came
    from ("" for from and to dates), the filters, and what could not be read."""

    first: date
    last: date
    preset: str
    profile: str
    platform: str
    problem: str = ""

    def instants(self, zone: ZoneInfo) -> tuple[str, str]:
        """[start, end) as the ISO 8601 instants the core takes."""
        start = day_start(self.first, zone)
        end = day_start(self.last + timedelta(days=1), zone)
        return _iso(start), _iso(end)

    def query(self) -> dict[str, str]:
        """The query that shows this again (the preset, or from and to; the filters set)."""
        shown = {"range": self.preset} if self.preset else {"from": self.first.isoformat(), "to": self.last.isoformat()}
        return {**shown, **{k: v for k, v in (("profile", self.profile), ("platform", self.platform)) if v}}

    def link(self, path: str = "/dashboard/analytics") -> str:
        return f"{path}?{urlencode(self.query())}"

    def file_name(self, chart: str) -> str:
        return f"herald-{chart}-{self.first.isoformat()}-{self.last.isoformat()}.csv"

    def described(self) -> str:
        """The range in words: "in the last 30 days (2026-10-30 to 2026-11-28)"."""
        dates = f"{self.first.isoformat()} to {self.last.isoformat()}"
        return f"in the {RANGES[self.preset].lower()} ({dates})" if self.preset else f"from {dates}"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def read(request: Request, zone: ZoneInfo, now: datetime | None = None) -> Shown:
    """The query's range and filters; a range it cannot read gives the default one, with the
    problem in words."""
    today = (now or datetime.now(UTC)).astimezone(zone).date()
    args = request.args
    profile = args.get("profile", "")[:FILTER_LENGTH]
    platform = args.get("platform", "")[:FILTER_LENGTH]
    default = Shown(today - timedelta(days=int(DEFAULT_RANGE) - 1), today, DEFAULT_RANGE, profile, platform)
    start, end = args.get("from", ""), args.get("to", "")
    if start or end:
        first, last = parse_day(start) if start else None, parse_day(end) if end else today
        if (start and first is None) or last is None:
            return replace(default, problem="From and To must be dates (YYYY-MM-DD).")
        first = first or last - timedelta(days=int(DEFAULT_RANGE) - 1)
        if first > last:
            return replace(default, problem="From must be on or before To.")
        if (last - first).days + 1 > MAX_DAYS:
            return replace(default, problem=f"A range is at most {MAX_DAYS} days.")
        return Shown(first, last, "", profile, platform)
    preset = args.get("range", DEFAULT_RANGE)
    if preset not in RANGES:
        return replace(default, problem=f"Range must be one of {', '.join(RANGES)} days, or From and To dates.")
    return replace(default, first=today - timedelta(days=int(preset) - 1), preset=preset)
