"""What the calendar page (calendar_pages.py) and its script's endpoints (calendar_events.py)
share (docs/dashboard.md, "Calendar"): a day read from a query, times as the clocks of a zone
show them, the posts of a range of days from the core, and their statuses' names.

Times cross the page as wall-clock times in a named zone ("2026-03-10T09:30" in Europe/Paris):
the calendar shows them as they are, whatever the browser's own zone, and a moved post's new
time is read in the zone it was shown in, as every "Schedule at" is (facades/web/local_time.py)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from google.protobuf.timestamp_pb2 import Timestamp
from herald.posts.v1 import posts_pb2
from sanic import Request

from contract.organization import time_zones
from facades.errors import ApiError
from facades.web.scripted import sign_in_to

# PostStatus -> its name in the API (`partially_published`…), once.
STATUS_NAMES = {
    number: name.removeprefix("POST_STATUS_").lower() for name, number in posts_pb2.PostStatus.items() if number
}
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# Where the page and its script send a visitor whose session has ended, back to the calendar.
SIGN_IN = sign_in_to("/dashboard/calendar")


def parse_day(text: str) -> date | None:
    """A YYYY-MM-DD date from 1971 to 9998, or None (a month's grid and the links to the months
    around it stay dates)."""
    if not _DAY.fullmatch(text) or not "1971" <= text[:4] <= "9998":
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:  # 2026-02-30
        return None


def zone_named(name: str, argument: str = "zone") -> ZoneInfo:
    """The IANA zone `name` (one an organization may choose: contract.organization.time_zones),
    else VALIDATION_ERROR naming `argument`."""
    if name not in time_zones():
        problem = f"{argument} {name[:64]!r} is not an IANA time zone" if name else f"{argument} is required"
        raise ApiError("VALIDATION_ERROR", problem, {"argument": argument})
    return ZoneInfo(name)


def wall_clock(stamp: Timestamp, zone: ZoneInfo) -> datetime:
    """An instant as the clocks of `zone` show it (naive)."""
    return datetime.fromtimestamp(stamp.seconds, zone).replace(tzinfo=None)


def local(moment: datetime) -> str:
    """A wall-clock time as the page carries it: "2026-03-10T09:30" (the script's boxes last 30
    minutes from it)."""
    return moment.isoformat(timespec="minutes")


def day_start(day: date, zone: ZoneInfo) -> datetime:
    """The first instant of a day in `zone` (a midnight the clocks skip: the moment they jump)."""
    return datetime(day.year, day.month, day.day, tzinfo=zone).astimezone(UTC)


async def calendar_posts(
    request: Request, authorization: str, start: datetime, end: datetime, *, profile: str, tag: str, status: str
) -> posts_pb2.ListCalendarPostsResponse:
    """The posts scheduled in [`start`, `end`) (at most 62 days), filtered, each lean, with a
    profile's free time slots (ListCalendarPosts: dashboard sessions only)."""
    core = request.app.ctx.core
    message = posts_pb2.ListCalendarPostsRequest(profile=profile, tag=tag, status=status)
    message.start_time.FromDatetime(start)
    message.end_time.FromDatetime(end)
    result = await core.call(core.posts.ListCalendarPosts, message, authorization=authorization)
    return result.response
