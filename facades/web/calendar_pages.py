"""The calendar (issue 31, docs/dashboard.md "Calendar"): the organization's posts on their send
time, in the organization's time zone (or, at the page's switch, the browser's), coloured and
labelled by platform, filtered by profile, tag and status; moved to another day or time by
dragging or with "Move to…"; a profile's free time slots shown when the calendar shows one
profile.

The page works without a script: a grid of the range's days, each post a link to its page, each
day from today on a "New post" link. Its script (static/calendar.js) draws the calendar with
EventCalendar (@event-calendar/build, from the npm registry through facades/web/assets, served
here: `library_file`) and calls two endpoints of this module with the session cookie: the posts
of a range (`events`, GET) and the move of one post (`move`, POST, with the form's CSRF token),
which calls the core's UpdatePost as PATCH /v1/posts/{id} does. /v1 stays for API keys.

Times cross the page as wall-clock times in a named zone ("2026-03-10T09:30" in Europe/Paris):
the calendar shows them as they are, whatever the browser's own zone, and a moved post's new
time is read in the zone it was shown in, as every "Schedule at" is (facades/web/local_time.py)."""

from __future__ import annotations

import asyncio
import functools
import gzip
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from google.protobuf.timestamp_pb2 import Timestamp
from herald.posts.v1 import posts_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Request
from sanic.response import HTTPResponse, raw
from sanic.response import json as json_response

from contract.organization import time_zones
from contract.post_links import post_page_path
from facades.errors import ApiError
from facades.web import local_time
from facades.web.pages import Route, dashboard_page, signed_in
from facades.web.scripted import NO_STORE, scripted, sign_in_to
from facades.web.session import Viewer

# ?view= -> the script's EventCalendar view (docs/dashboard.md, "Calendar").
VIEWS = {"month": "dayGridMonth", "week": "timeGridWeek", "list": "listWeek"}
STATUSES = ("draft", "scheduled", "queued", "publishing", "published", "partially_published", "failed", "canceled")
# What UpdatePost moves (core/posts/records.py EDITABLE): the others are not draggable.
MOVABLE = frozenset({"draft", "scheduled", "queued"})
# PostStatus -> its name in the API (`partially_published`…), once.
STATUS_NAMES = {
    number: name.removeprefix("POST_STATUS_").lower() for name, number in posts_pb2.PostStatus.items() if number
}
PROFILES_SHOWN = 500  # ListProfiles' largest page: the filter lists every profile up to it
PER_DAY = 4  # posts a day of the month shows without the script; "N more" opens its week
MAX_DAYS = 62  # the core's largest range (a month's six weeks, and some)
NEW_POST_HOUR = 9  # "New post" on a day: at 09:00 (today: the next full hour)
COMPOSE = "/dashboard/compose"
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
SIGN_IN = sign_in_to("/dashboard/calendar")

# The calendar library, from the npm registry (facades/web/assets/package.json, pinned by its
# package-lock.json, installed by scripts/ensure_web_assets.sh): only these two files are served.
LIBRARY = Path(__file__).resolve().parent / "assets" / "node_modules" / "@event-calendar" / "build"
LIBRARY_FILES = {
    "event-calendar.min.js": "text/javascript; charset=utf-8",
    "event-calendar.min.css": "text/css; charset=utf-8",
}


@functools.cache
def library_version() -> str:
    """The installed library's version (its URLs carry it, so browsers may keep the files for a
    year); "" when it is not installed: the page then works without its script."""
    try:
        return str(json.loads((LIBRARY / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return ""


def library_url(name: str) -> str:
    return f"/assets/event-calendar/{library_version()}/{name}"


@functools.lru_cache(maxsize=len(LIBRARY_FILES))
def _library_bytes(name: str) -> tuple[bytes, bytes]:
    """A file as installed and gzip-compressed, read and compressed once per process."""
    plain = (LIBRARY / "dist" / name).read_bytes()
    return plain, gzip.compress(plain, compresslevel=9, mtime=0)


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (RFC 9110 12.5.3: `gzip`, else `*`, at a
    quality above 0)."""
    qualities = {}
    for item in header.split(","):
        name, _, params = item.strip().partition(";")
        quality = params.strip().lower().removeprefix("q=")
        try:
            qualities[name.strip().lower()] = float(quality) if quality else 1.0
        except ValueError:
            qualities[name.strip().lower()] = 0.0
    return qualities.get("gzip", qualities.get("*", 0.0)) > 0


async def library_file(request: Request, version: str, name: str) -> HTTPResponse:
    """The calendar library's script or stylesheet, gzip-compressed for a browser that accepts
    it; immutable at its versioned URL. Anything else under it is 404."""
    if not version or version != library_version() or name not in LIBRARY_FILES:
        raise ApiError("NOT_FOUND", "not found")
    try:
        plain, packed = _library_bytes(name)
    except OSError:
        raise ApiError("NOT_FOUND", "not found") from None
    headers = {
        "Cache-Control": "public, max-age=31536000, immutable",
        "Vary": "Accept-Encoding",
        "X-Content-Type-Options": "nosniff",
    }
    body = plain
    if accepts_gzip(request.headers.get("accept-encoding", "")):
        body = packed
        headers["Content-Encoding"] = "gzip"
    return raw(body, content_type=LIBRARY_FILES[name], headers=headers)


# -- times ----------------------------------------------------------------------------------


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


def utc_offset(zone: ZoneInfo, now: datetime) -> str:
    """The zone's offset now, "+09:00": the calendar's idea of today and of the current time."""
    offset = now.astimezone(zone).strftime("%z")
    return f"{offset[:3]}:{offset[3:]}"


def compose_link(at: datetime, zone: str, profile: str = "") -> str:
    """The compose page, its "Schedule at" set to `at` (wall clock) in `zone`, and its profile."""
    query = {"schedule_at": local(at), "time_zone": zone}
    if profile:
        query["profiles"] = profile
    return f"{COMPOSE}?{urlencode(query)}"


# -- the range a page shows -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shown:
    """What the page's query asks for: the view, a day in it, the filters."""

    view: str
    day: date
    profile: str = ""
    tag: str = ""
    status: str = ""
    problem: str = ""  # a `date` that is not one: the page shows today and says so

    def link(self, **changes: Any) -> str:
        values = {"view": self.view, "date": self.day.isoformat(), "profile": self.profile, "tag": self.tag}
        values |= {"status": self.status} | changes
        return "/dashboard/calendar?" + urlencode({k: v for k, v in values.items() if v})


def shown(request: Request, today: date) -> Shown:
    """The query read: an unknown view is the month; an unknown status is any."""
    view = request.args.get("view", "month")
    view = view if view in VIEWS else "month"
    status = request.args.get("status", "")
    text = request.args.get("date", "")
    day, problem = parse_day(text) or today, ""
    if text and parse_day(text) is None:
        problem = f"date {text[:32]!r} is not a date (YYYY-MM-DD): showing today"
    return Shown(
        view=view,
        day=day,
        profile=request.args.get("profile", "")[:64],
        tag=request.args.get("tag", "")[:64],
        status=status if status in STATUSES else "",
        problem=problem,
    )


def parse_day(text: str) -> date | None:
    """A YYYY-MM-DD date from 1971 to 9998, or None (a month's grid and the links to the months
    around it stay dates)."""
    if not _DAY.fullmatch(text) or not "1971" <= text[:4] <= "9998":
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:  # 2026-02-30
        return None


def days_of(view: str, day: date) -> tuple[date, date]:
    """The days a view shows around `day`, [first, end): a month's whole weeks (Monday first),
    or the week of the day."""
    if view == "month":
        first = day.replace(day=1)
        following = (first + timedelta(days=32)).replace(day=1)
        return first - timedelta(days=first.weekday()), following + timedelta(days=(7 - following.weekday()) % 7)
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=7)


def stepped(view: str, day: date, step: int) -> date:
    """The day the previous (-1) or next (+1) month or week shows."""
    if view != "month":
        return day + timedelta(days=7 * step)
    month = day.month - 1 + step
    return date(day.year + month // 12, month % 12 + 1, 1)


def new_post_time(day: date, now_local: datetime) -> datetime | None:
    """When "New post" on a day schedules: 09:00, or today the next full hour; None for a day
    that is over."""
    at = datetime(day.year, day.month, day.day, NEW_POST_HOUR)
    if day > now_local.date():
        return at
    if day == now_local.date():
        following = now_local.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
        return following if following.date() == day else None
    return None


# -- the core -------------------------------------------------------------------------------


async def _calendar_posts(
    request: Request, authorization: str, start: datetime, end: datetime, *, profile: str, tag: str, status: str
) -> posts_pb2.ListCalendarPostsResponse:
    core = request.app.ctx.core
    message = posts_pb2.ListCalendarPostsRequest(profile=profile, tag=tag, status=status)
    message.start_time.FromDatetime(start)
    message.end_time.FromDatetime(end)
    result = await core.call(core.posts.ListCalendarPosts, message, authorization=authorization)
    return result.response


async def _profiles(request: Request, authorization: str) -> list[profiles_pb2.Profile]:
    core = request.app.ctx.core
    listed = await core.call(
        core.profiles.ListProfiles,
        profiles_pb2.ListProfilesRequest(page_size=PROFILES_SHOWN),
        authorization=authorization,
    )
    return list(listed.response.profiles)


async def _platforms(request: Request) -> dict[str, str]:
    """Platform key -> its name, from the core's catalog."""
    contract = await request.app.ctx.contract.get()
    return {p.key: p.name for p in contract.catalog.message.platforms}


# -- the page -------------------------------------------------------------------------------


@dataclass(slots=True)
class Day:
    """One day of the page's grid without the script."""

    day: date
    in_range: bool  # the month's own days (the grid's first and last week show its neighbours')
    new_post: str | None
    posts: list[dict[str, Any]] = field(default_factory=list)
    free: list[dict[str, str]] = field(default_factory=list)
    more: int = 0


def _grid(
    shown: Shown,
    first: date,
    end: date,
    listed: posts_pb2.ListCalendarPostsResponse,
    zone: ZoneInfo,
    platforms: dict[str, str],
    now_local: datetime,
) -> list[Day]:
    days: dict[date, Day] = {}
    day = first
    while day < end:
        at = new_post_time(day, now_local)
        in_range = day.month == shown.day.month if shown.view == "month" else True
        days[day] = Day(day, in_range, compose_link(at, zone.key, shown.profile) if at else None)
        day += timedelta(days=1)
    cap = PER_DAY if shown.view == "month" else None
    for post in listed.posts:
        at = wall_clock(post.schedule_time, zone)
        cell = days.get(at.date())
        if cell is None:
            continue
        if cap is not None and len(cell.posts) == cap:
            cell.more += 1
            continue
        cell.posts.append(
            {
                "id": post.id,
                "href": post_page_path(post.id),
                "time": f"{at:%H:%M}",
                "profile": post.profile,
                "platform": post.connector,
                "platform_name": platforms.get(post.connector, post.connector),
                "status": STATUS_NAMES[post.status],
                "excerpt": post.excerpt,
            }
        )
    for stamp in listed.free_slots:
        at = wall_clock(stamp, zone)
        if (cell := days.get(at.date())) is not None:
            cell.free.append({"time": f"{at:%H:%M}", "href": compose_link(at, zone.key, shown.profile)})
    if shown.view == "list":
        return [d for d in days.values() if d.posts or d.free]
    return list(days.values())


@signed_in
async def calendar(request: Request, viewer: Viewer) -> HTTPResponse:
    """The calendar of `?view=month|week|list` around `?date=YYYY-MM-DD` (today by default),
    filtered by `?profile=`, `?tag=` and `?status=`, in the organization's time zone."""
    zone = ZoneInfo(viewer.time_zone) if viewer.time_zone in time_zones() else ZoneInfo("UTC")
    now = datetime.now(UTC)
    now_local = now.astimezone(zone).replace(tzinfo=None)
    query = shown(request, now_local.date())
    first, end = days_of(query.view, query.day)
    listed, profiles, platforms = await asyncio.gather(
        _calendar_posts(
            request,
            viewer.authorization,
            day_start(first, zone),
            day_start(end, zone),
            profile=query.profile,
            tag=query.tag,
            status=query.status,
        ),
        _profiles(request, viewer.authorization),
        _platforms(request),
    )
    tags = sorted({tag for p in profiles for tag in p.tags})
    config = {
        "view": VIEWS[query.view],
        "view_asked": "view" in request.args,  # else a phone opens on the list
        "date": query.day.isoformat(),
        "zone": zone.key,
        "offset": utc_offset(zone, now),
        "filters": {"profile": query.profile, "tag": query.tag, "status": query.status},
        "events": "/dashboard/calendar/events",
        "move": "/dashboard/calendar/posts/{id}/move",
        "compose": COMPOSE,
        "posts": "/dashboard/posts/{id}",
        "platforms": platforms,
        "views": {name: view for name, view in VIEWS.items()},
        "sign_in": SIGN_IN,
    }
    return await dashboard_page(
        request,
        viewer,
        "calendar.html",
        "calendar",
        status=400 if query.problem else 200,
        # The script reads the range's posts and moves them through this module's endpoints.
        connect_self=True,
        error=query.problem or None,
        shown=query,
        zone=zone.key,
        days=_grid(query, first, end, listed, zone, platforms, now_local),
        truncated=listed.truncated,
        weekdays=("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
        title=_title(query),
        previous_link=query.link(date=stepped(query.view, query.day, -1).isoformat()),
        next_link=query.link(date=stepped(query.view, query.day, 1).isoformat()),
        today_link=query.link(date=now_local.date().isoformat()),
        view_links={name: query.link(view=name) for name in VIEWS},
        profiles=[{"slug": p.slug, "platform": platforms.get(p.connector, p.connector)} for p in profiles],
        tags=tags,
        statuses=STATUSES,
        platforms=platforms,
        config=config,
        library_js=library_url("event-calendar.min.js") if library_version() else "",
        library_css=library_url("event-calendar.min.css") if library_version() else "",
    )


def _title(query: Shown) -> str:
    if query.view == "month":
        return f"{query.day:%B %Y}"
    monday = query.day - timedelta(days=query.day.weekday())
    return f"Week of {monday:%-d %B %Y}"


# -- the script's endpoints -------------------------------------------------------------------


def _range_bound(request: Request, name: str) -> date:
    found = parse_day(request.args.get(name, ""))
    if found is None:
        raise ApiError("VALIDATION_ERROR", f"{name} must be a date (YYYY-MM-DD)", {"argument": name})
    return found


@scripted(sign_in=SIGN_IN, checks_csrf=False)
async def events(request: Request, authorization: str) -> HTTPResponse:
    """The posts of the days [`start`, `end`) (YYYY-MM-DD, at most 62 days) as the clocks of
    `zone` show them, filtered by `profile`, `tag` and `status`, and with a profile its free
    time slots: `{zone, posts: [{id, profile, platform, status, start, excerpt, movable}],
    free_slots: [start], truncated}` (a month of 2,000 posts is 2,000 of these: kept lean)."""
    zone = zone_named(request.args.get("zone", ""))
    first, end = _range_bound(request, "start"), _range_bound(request, "end")
    if not first < end <= first + timedelta(days=MAX_DAYS):
        raise ApiError("VALIDATION_ERROR", f"end must be 1 to {MAX_DAYS} days after start", {"argument": "end"})
    listed = await _calendar_posts(
        request,
        authorization,
        day_start(first, zone),
        day_start(end, zone),
        profile=request.args.get("profile", "")[:64],
        tag=request.args.get("tag", "")[:64],
        status=request.args.get("status", ""),
    )
    posts = []
    for post in listed.posts:
        status = STATUS_NAMES[post.status]
        posts.append(
            {
                "id": post.id,
                "profile": post.profile,
                "platform": post.connector,
                "status": status,
                "start": local(wall_clock(post.schedule_time, zone)),
                "excerpt": post.excerpt,
                "movable": status in MOVABLE,
            }
        )
    free = [local(wall_clock(stamp, zone)) for stamp in listed.free_slots]
    body = {"zone": zone.key, "posts": posts, "free_slots": free, "truncated": listed.truncated}
    return json_response(body, headers=NO_STORE)


@scripted(sign_in=SIGN_IN)
async def move(request: Request, authorization: str, post_id: str) -> HTTPResponse:
    """Moves one post to `schedule_at` (a wall-clock time, "YYYY-MM-DDTHH:MM") in `time_zone`
    (the zone the calendar shows): the core's UpdatePost, as PATCH /v1/posts/{id} with
    `schedule_at`. Answers the post's new place in that zone (`{id, status, start, movable,
    schedule_at}`), or the refusal with its code (INVALID_POST_STATE, VALIDATION_ERROR,
    NOT_FOUND)."""
    if len(post_id) > 64:  # no post id is this long
        raise ApiError("NOT_FOUND", "no such post in this organization")
    form = request.form or {}
    name = (form.get("time_zone") or "").strip()[:64]
    instant = local_time.instant((form.get("schedule_at") or "").strip()[:40], name)
    zone = ZoneInfo(name)  # instant() knows it
    core = request.app.ctx.core
    result = await core.call(
        core.posts.UpdatePost,
        posts_pb2.UpdatePostRequest(post_id=post_id, schedule_at=instant),
        authorization=authorization,
    )
    post = result.response
    status = STATUS_NAMES[post.status]
    body = {
        "id": post.id,
        "status": status,
        "start": local(wall_clock(post.schedule_time, zone)),
        "movable": status in MOVABLE,
        "schedule_at": post.schedule_time.ToJsonString(),
    }
    return json_response(body, headers=NO_STORE)


ROUTES = (
    Route("GET", "/dashboard/calendar", calendar),
    Route("GET", "/dashboard/calendar/events", events),
    Route("POST", "/dashboard/calendar/posts/<post_id:str>/move", move),
    Route("GET", "/assets/event-calendar/<version:str>/<name:str>", library_file),
)
