"""The calendar (issue 31, docs/dashboard.md "Calendar"): the organization's posts on their send
time, in the organization's time zone (or, at the page's switch, the browser's), coloured and
labelled by platform, filtered by profile, tag and status; moved to another day or time by
dragging or with "Move to…"; a post waiting for approval approved or rejected with "Review…";
a profile's free time slots shown when the calendar shows one profile.

The page works without a script: a grid of the range's days, each post a link to its page, each
day from today on a "New post" link. Its script (static/calendar.js) draws the calendar with
EventCalendar (@event-calendar/build, from the npm registry through facades/web/assets, served by
calendar_assets.py) and calls endpoints with the session cookie (calendar_events.py): the posts
of a range, the move of one post and a waiting post's review (its dialog: static/calendar_review.js).
What the page and the endpoints share, times as the clocks of a zone show them and the posts of a
range, is calendar_range.py. Without the script, a waiting post links to its page, where "Approve"
and "Reject" are."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from herald.posts.v1 import posts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.organization import time_zones
from contract.post_links import post_page_path
from facades.web import post_review
from facades.web.calendar_assets import library_url, library_version
from facades.web.calendar_range import SIGN_IN, STATUS_NAMES, calendar_posts, day_start, local, parse_day, wall_clock
from facades.web.pages import Route, dashboard_page, listed_profiles, signed_in
from facades.web.session import Viewer
from facades.web.statuses import POST_STATUSES

# ?view= -> the script's EventCalendar view (docs/dashboard.md, "Calendar").
VIEWS = {"month": "dayGridMonth", "week": "timeGridWeek", "list": "listWeek"}
STATUSES = POST_STATUSES
PER_DAY = 4  # posts a day of the month shows without the script; "N more" opens its week
NEW_POST_HOUR = 9  # "New post" on a day: at 09:00 (today: the next full hour)
COMPOSE = "/dashboard/compose"

# -- times ----------------------------------------------------------------------------------


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
    listed, profiles, platforms, reviewer = await asyncio.gather(
        calendar_posts(
            request,
            viewer.authorization,
            day_start(first, zone),
            day_start(end, zone),
            profile=query.profile,
            tag=query.tag,
            status=query.status,
        ),
        listed_profiles(request, viewer.authorization),
        _platforms(request),
        post_review.reviewer(request, viewer),
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
        "approve": "/dashboard/calendar/posts/{id}/approve",
        "reject": "/dashboard/calendar/posts/{id}/reject",
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
        # The script reads the range's posts and moves them through calendar_events.py's endpoints.
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
        reviewer=reviewer,
        max_comment=post_review.MAX_COMMENT,
        library_js=library_url("event-calendar.min.js") if library_version() else "",
        library_css=library_url("event-calendar.min.css") if library_version() else "",
    )


def _title(query: Shown) -> str:
    if query.view == "month":
        return f"{query.day:%B %Y}"
    monday = query.day - timedelta(days=query.day.weekday())
    return f"Week of {monday:%-d %B %Y}"


ROUTES = (Route("GET", "/dashboard/calendar", calendar),)
