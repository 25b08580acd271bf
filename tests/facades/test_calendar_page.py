"""The calendar over plain HTTP (docs/dashboard.md, "Calendar"): the page without its script (a
grid of the range's days in the organization's time zone, each post a link to its page, "New
post" and a profile's free slots); the endpoints its script calls — the posts of a range as the
clocks of a zone show them, and the move of one post (the session, the form's CSRF token, the
core's UpdatePost) — and each of their refusals by code; the calendar library's files, served
from its npm install, compressed."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from facades.web.calendar_assets import library_version
from tests.dashboard_forms import signed_in

ZONE = "Asia/Tokyo"
CONFIG = re.compile(r'<script type="application/json" id="calendar-config">(.*?)</script>', re.S)


@pytest.fixture
async def client(stack):
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        yield http


@pytest.fixture
async def org(orgs, http):
    org = await orgs(credits=100)
    await orgs.profile(org, "cal-x", "x", ("launch",))
    await orgs.profile(org, "cal-bsky", "bluesky")
    zone = await http.patch("/v1/organization", json={"time_zone": ZONE}, headers=org.auth)
    assert zone.status_code == 200, zone.text
    return org


def at_utc(days: int, hour: int, minute: int = 0) -> datetime:
    """An instant `days` from today (UTC) at hour:minute UTC."""
    return datetime.now(UTC).replace(hour=hour, minute=minute, second=0, microsecond=0) + timedelta(days=days)


def in_tokyo(instant: datetime) -> datetime:
    return instant.astimezone(ZoneInfo(ZONE)).replace(tzinfo=None)


async def create(http: httpx.AsyncClient, org, content: str, profiles: list[str], at: datetime | None, **body) -> str:
    fields: dict[str, Any] = {"content": content, "profiles": profiles, **body}
    if at is not None:
        fields["schedule_at"] = at.isoformat()
    created = await http.post("/v1/posts", json=fields, headers=org.auth)
    assert created.status_code == 201, created.text
    return created.json()["posts"][0]["id"]


async def schedule_of(http: httpx.AsyncClient, org, post_id: str) -> datetime:
    post = (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()
    return datetime.fromisoformat(post["schedule_at"].replace("Z", "+00:00"))


def day_item(page: str, day: date) -> str:
    """The page's item of one day (the grid without the script)."""
    found = re.search(rf'<li class="cal-day[^"]*" data-day="{day.isoformat()}">(.*?)\n      </li>', page, re.S)
    assert found, day
    return found.group(1)


async def test_the_page_shows_the_posts_on_their_local_day_without_a_script(client, http, org) -> None:
    # 20:30 UTC is 05:30 the next day in Tokyo: the post is on the Tokyo day.
    instant = at_utc(10, 20, 30)
    local = in_tokyo(instant)
    post_id = await create(http, org, "Launch   day\nin Tokyo", ["cal-x"], instant)
    await signed_in(client, org.email, "/dashboard/calendar")
    page = await client.get("/dashboard/calendar", params={"view": "week", "date": local.date().isoformat()})
    assert page.status_code == 200, page.text
    html = page.text
    assert f'<strong id="calendar-zone-name">{ZONE}</strong>' in html
    item = day_item(html, local.date())
    assert f'href="/dashboard/posts/{post_id}" data-post="{post_id}"' in item
    assert (
        f'<span class="cal-time">{local:%H:%M}</span> <span class="cal-platform">X</span> <span class="cal-profile">cal-x</span>: Launch day in Tokyo'
        in item
    )
    assert 'class="cal-new"' in item and "schedule_at=" in item  # a day to come offers "New post"
    assert html.count(f'data-post="{post_id}"') == 1  # on that day only
    # The script's configuration: the zone, its offset now, the endpoints.
    config = json.loads(CONFIG.search(html).group(1))
    assert (config["zone"], config["offset"], config["view"]) == (ZONE, "+09:00", "timeGridWeek")
    assert config["move"] == "/dashboard/calendar/posts/{id}/move"
    # The page's policy: the script reaches this origin's endpoints, and nothing else is opened.
    policy = page.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "style-src 'self';" in policy and "connect-src 'self';" in policy
    assert "unsafe-inline" not in policy and "http" not in policy
    if library_version():
        assert f"/assets/event-calendar/{library_version()}/event-calendar.min.js" in html

    # The month: filtered by status, the post is there or not.
    month = await client.get("/dashboard/calendar", params={"date": local.date().isoformat(), "status": "draft"})
    assert month.status_code == 200 and post_id not in month.text
    month = await client.get("/dashboard/calendar", params={"date": local.date().isoformat(), "tag": "launch"})
    assert post_id in month.text
    # A date that is not one: today, said once, with 400.
    for bad in ("2026-02-30", "9999-12-31", "0001-01-01", "tomorrow"):
        refused = await client.get("/dashboard/calendar", params={"date": bad})
        assert refused.status_code == 400 and refused.text.count('role="alert">date') == 1, bad


async def test_a_profile_s_free_slots_are_links_to_a_new_post(client, http, org) -> None:
    slots = [{"day": d, "time": "09:00"} for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]
    put = await http.put("/v1/profiles/cal-x/slots", json={"timezone": ZONE, "slots": slots}, headers=org.auth)
    assert put.status_code == 200, put.text
    soon = in_tokyo(at_utc(2, 12)).date()
    day = soon + timedelta(days=(7 - soon.weekday()) % 7)  # a Monday in Tokyo: its Tuesday is in its week
    held = datetime(day.year, day.month, day.day, 9, tzinfo=ZoneInfo(ZONE))
    await create(http, org, "Takes the 09:00 slot", ["cal-x"], held)
    await signed_in(client, org.email, "/dashboard/calendar")
    page = (
        await client.get("/dashboard/calendar", params={"view": "week", "date": day.isoformat(), "profile": "cal-x"})
    ).text
    following = day + timedelta(days=1)
    assert "Free 09:00" not in day_item(page, day)
    free = day_item(page, following)
    assert "Free 09:00" in free
    assert (
        f"/dashboard/compose?schedule_at={following.isoformat()}T09%3A00&amp;time_zone=Asia%2FTokyo&amp;profiles=cal-x"
        in free
    )
    # The script's endpoint: the same slots, as wall-clock times in the zone asked.
    week = {"start": day.isoformat(), "end": (day + timedelta(days=7)).isoformat(), "zone": ZONE, "profile": "cal-x"}
    free_slots = (await client.get("/dashboard/calendar/events", params=week)).json()["free_slots"]
    assert f"{following.isoformat()}T09:00" in free_slots and f"{day.isoformat()}T09:00" not in free_slots
    assert free_slots == sorted(free_slots) and len(free_slots) == 6  # Tuesday to Sunday
    # Without a profile, no slots.
    assert (
        "Free 09:00"
        not in (await client.get("/dashboard/calendar", params={"view": "week", "date": day.isoformat()})).text
    )


async def test_the_events_endpoint_answers_wall_clock_times_in_the_zone_asked(client, http, org, orgs) -> None:
    instant = at_utc(12, 23, 15)
    post_id = await create(http, org, "Late in UTC", ["cal-x"], instant)
    bsky_id = await create(http, org, "On Bluesky", ["cal-bsky"], at_utc(12, 10))
    other = await orgs()
    await orgs.profile(other, "cal-x", "x")
    foreign = await create(http, other, "Another organization's", ["cal-x"], instant)
    await signed_in(client, org.email, "/dashboard/calendar")
    start = instant.date() - timedelta(days=3)
    params = {"start": start.isoformat(), "end": (start + timedelta(days=7)).isoformat()}

    tokyo = (await client.get("/dashboard/calendar/events", params=params | {"zone": ZONE})).json()
    assert tokyo["zone"] == ZONE and not tokyo["truncated"] and tokyo["free_slots"] == []
    shown = {p["id"]: p for p in tokyo["posts"]}
    assert set(shown) == {post_id, bsky_id}  # never another organization's
    assert foreign not in shown
    local = in_tokyo(instant)
    assert shown[post_id] == {
        "id": post_id,
        "status": "scheduled",
        "start": f"{local:%Y-%m-%dT%H:%M}",
        "movable": True,
        "profile": "cal-x",
        "platform": "x",
        "excerpt": "Late in UTC",
    }
    new_york = (await client.get("/dashboard/calendar/events", params=params | {"zone": "America/New_York"})).json()
    ny = instant.astimezone(ZoneInfo("America/New_York"))
    assert next(p for p in new_york["posts"] if p["id"] == post_id)["start"] == f"{ny:%Y-%m-%dT%H:%M}"
    filtered = await client.get("/dashboard/calendar/events", params=params | {"zone": ZONE, "profile": "cal-bsky"})
    assert [p["id"] for p in filtered.json()["posts"]] == [bsky_id]
    filtered = await client.get("/dashboard/calendar/events", params=params | {"zone": ZONE, "tag": "launch"})
    assert [p["id"] for p in filtered.json()["posts"]] == [post_id]

    # Refusals, by code and argument.
    for bad, argument in (
        ({"zone": "Mars/Olympus"}, "zone"),
        ({"zone": ""}, "zone"),
        ({"zone": ZONE, "start": "tomorrow"}, "start"),
        ({"zone": ZONE, "end": start.isoformat()}, "end"),  # empty
        ({"zone": ZONE, "end": (start + timedelta(days=63)).isoformat()}, "end"),  # longer than 62 days
    ):
        refused = await client.get("/dashboard/calendar/events", params=params | bad)
        assert refused.status_code == 400, bad
        assert (refused.json()["code"], refused.json()["argument"]) == ("VALIDATION_ERROR", argument), bad
    refused = await client.get("/dashboard/calendar/events", params=params | {"zone": ZONE, "status": "sent"})
    assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR")
    # Without a session: 401 with where to sign in again, never a page.
    async with httpx.AsyncClient(base_url=str(client.base_url), timeout=30) as stranger:
        gone = await stranger.get("/dashboard/calendar/events", params=params | {"zone": ZONE})
        assert (gone.status_code, gone.json()["code"]) == (401, "UNAUTHORIZED")
        assert gone.json()["sign_in"].startswith("/login?next=")
        assert gone.headers["cache-control"] == "no-store"


async def test_more_than_5000_posts_in_a_range_are_the_earliest_5000_and_the_page_says_so(
    client, http, org, engine
) -> None:
    from core.db.models import posts, profiles
    from core.ids import new_id

    async with engine.begin() as conn:
        profile_id = await conn.scalar(
            profiles.select()
            .with_only_columns(profiles.c.id)
            .where(profiles.c.org_id == org.org_id, profiles.c.slug == "cal-x")
        )
        day = in_tokyo(at_utc(20, 0)).date()
        first = datetime(day.year, day.month, day.day, tzinfo=ZoneInfo(ZONE)).astimezone(UTC)
        rows = []
        for n in range(5001):
            at = first + timedelta(seconds=17 * n)  # all on one Tokyo day
            rows.append(
                {
                    "id": new_id("pst"), "org_id": org.org_id, "profile_id": profile_id, "group_id": new_id("grp"),
                    "profile_slug": "cal-x", "connector": "x", "content": f"Post {n}", "post_type": "feed",
                    "status": "scheduled", "schedule_at": at, "due_at": at, "created_at": at, "updated_at": at,
                    "delivery_key": new_id("dk"),
                }
            )  # fmt: skip
        await conn.execute(posts.insert(), rows)
    await signed_in(client, org.email, "/dashboard/calendar")
    start = day - timedelta(days=1)
    params = {"start": start.isoformat(), "end": (start + timedelta(days=7)).isoformat(), "zone": ZONE}
    listed = (await client.get("/dashboard/calendar/events", params=params)).json()
    assert listed["truncated"] and len(listed["posts"]) == 5000
    assert listed["posts"][-1]["excerpt"] == "Post 4999"  # the earliest 5,000
    page = await client.get("/dashboard/calendar", params={"view": "week", "date": day.isoformat()})
    assert '<p class="warning" id="calendar-truncated">' in page.text  # shown, not hidden


async def test_move_reschedules_a_post_to_a_wall_clock_time_in_the_zone_sent(client, http, org) -> None:
    post_id = await create(http, org, "Move me", ["cal-x"], at_utc(5, 3))
    token = await signed_in(client, org.email, "/dashboard/calendar")
    target = in_tokyo(at_utc(6, 3)).replace(hour=14, minute=45)
    moved = await client.post(
        f"/dashboard/calendar/posts/{post_id}/move",
        data={"csrf_token": token, "schedule_at": f"{target:%Y-%m-%dT%H:%M}", "time_zone": ZONE},
    )
    assert moved.status_code == 200, moved.text
    instant = target.replace(tzinfo=ZoneInfo(ZONE)).astimezone(UTC)
    assert moved.json() == {
        "id": post_id,
        "status": "scheduled",
        "start": f"{target:%Y-%m-%dT%H:%M}",
        "movable": True,
        "schedule_at": instant.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    assert await schedule_of(http, org, post_id) == instant  # as /v1 sees it
    # The same wall-clock time read in New York is another instant.
    again = await client.post(
        f"/dashboard/calendar/posts/{post_id}/move",
        data={"csrf_token": token, "schedule_at": f"{target:%Y-%m-%dT%H:%M}", "time_zone": "America/New_York"},
    )
    assert again.status_code == 200, again.text
    assert await schedule_of(http, org, post_id) == target.replace(tzinfo=ZoneInfo("America/New_York")).astimezone(UTC)


def _next_spring_gap() -> datetime:
    """02:30 on the next last Sunday of March in Europe/Paris: a time its clocks skip."""
    now = datetime.now(UTC)
    for year in (now.year, now.year + 1):
        march_31 = date(year, 3, 31)
        sunday = march_31 - timedelta(days=(march_31.weekday() + 1) % 7)
        if sunday > now.date() + timedelta(days=1):
            return datetime(sunday.year, sunday.month, sunday.day, 2, 30)
    raise AssertionError("unreachable")


@pytest.mark.usefixtures("worker")
async def test_move_refusals_by_code(client, http, org, orgs) -> None:
    scheduled = await create(http, org, "Scheduled", ["cal-x"], at_utc(4, 8))
    before = await schedule_of(http, org, scheduled)
    published = await create(http, org, "Out already", ["cal-bsky"], None)
    other = await orgs()
    await orgs.profile(other, "cal-x", "x")
    foreign = await create(http, other, "Another organization's", ["cal-x"], at_utc(4, 8))
    token = await signed_in(client, org.email, "/dashboard/calendar")
    later = f"{in_tokyo(at_utc(7, 1)):%Y-%m-%dT%H:%M}"

    async def move(post_id: str, **form: str) -> httpx.Response:
        fields = {"csrf_token": token, "schedule_at": later, "time_zone": ZONE} | form
        return await client.post(f"/dashboard/calendar/posts/{post_id}/move", data=fields)

    for _ in range(300):
        if (await http.get(f"/v1/posts/{published}", headers=org.auth)).json()["status"] == "published":
            break
        await asyncio.sleep(0.1)
    refused = await move(published)
    assert (refused.status_code, refused.json()["code"]) == (409, "INVALID_POST_STATE")
    refused = await move(scheduled, schedule_at=f"{in_tokyo(at_utc(-1, 8)):%Y-%m-%dT%H:%M}")  # yesterday
    assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR")
    refused = await move(scheduled, schedule_at=f"{_next_spring_gap():%Y-%m-%dT%H:%M}", time_zone="Europe/Paris")
    assert (refused.status_code, refused.json()["code"], refused.json()["argument"]) == (
        400,
        "VALIDATION_ERROR",
        "schedule_at",
    )
    refused = await move(scheduled, schedule_at="next tuesday")
    assert (refused.json()["code"], refused.json()["argument"]) == ("VALIDATION_ERROR", "schedule_at")
    refused = await move(scheduled, time_zone="Mars/Olympus")
    assert (refused.json()["code"], refused.json()["argument"]) == ("VALIDATION_ERROR", "time_zone")
    for missing in (foreign, "pst_unknown", "x" * 80):
        refused = await move(missing)
        assert (refused.status_code, refused.json()["code"]) == (404, "NOT_FOUND"), missing
    # Without the form's CSRF token, or with another's: 403, nothing changed.
    for wrong in ("", "not-the-token"):
        refused = await move(scheduled, csrf_token=wrong)
        assert (refused.status_code, refused.json()["code"]) == (403, "FORBIDDEN")
    assert await schedule_of(http, org, scheduled) == before
    assert (await http.get(f"/v1/posts/{foreign}", headers=other.auth)).json()["status"] == "scheduled"
    # Without a session: 401, and GET is not a way to move.
    async with httpx.AsyncClient(base_url=str(client.base_url), timeout=30) as stranger:
        gone = await stranger.post(f"/dashboard/calendar/posts/{scheduled}/move", data={"schedule_at": later})
        assert (gone.status_code, gone.json()["code"]) == (401, "UNAUTHORIZED")
    assert (await client.get(f"/dashboard/calendar/posts/{scheduled}/move")).status_code == 405


@pytest.mark.one_backend
async def test_the_library_s_files_are_served_compressed_from_its_install(client) -> None:
    version = library_version()
    assert version, "facades/web/assets is not installed: make install (scripts/ensure_web_assets.sh)"
    base = f"/assets/event-calendar/{version}"
    packed = await client.get(f"{base}/event-calendar.min.js", headers={"Accept-Encoding": "gzip"})
    assert packed.status_code == 200
    assert packed.headers["content-encoding"] == "gzip" and packed.headers["vary"] == "Accept-Encoding"
    assert packed.headers["content-type"].startswith("text/javascript")
    assert packed.headers["cache-control"] == "public, max-age=31536000, immutable"
    plain = await client.get(f"{base}/event-calendar.min.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.content == packed.content  # httpx decodes gzip: the same file
    assert int(packed.headers["content-length"]) < len(plain.content) / 2
    css = await client.get(f"{base}/event-calendar.min.css", headers={"Accept-Encoding": "gzip;q=0"})
    assert css.status_code == 200 and "content-encoding" not in css.headers
    assert css.headers["content-type"].startswith("text/css")
    # Only the two files the page loads, at the installed version.
    for path in (
        f"{base}/event-calendar.min.js.map",
        f"{base}/package.json",
        f"{base}/..%2Fpackage.json",
        "/assets/event-calendar/0.0.1/event-calendar.min.js",
    ):
        assert (await client.get(path)).status_code == 404, path
