"""The calendar in Chromium (docs/dashboard.md, "Calendar"): a post scheduled through /v1 in an
organization working in Asia/Tokyo shows on its Tokyo day and time, in a browser whose own zone
is New York; dragging it to the next day moves it a day (GET /v1/posts says so); "Move to…" does
the same from the keyboard; a refused move puts the post back and says why; the switch shows the
browser's zone; each post is a link named by its profile and its text; axe-core at 1280 and
390 px, no sideways scrolling, and no Content-Security-Policy violation."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.async_api import expect

from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in

# The page's behaviour; what the database decides is checked over HTTP on both (test_calendar_page.py).
pytestmark = pytest.mark.one_backend

ORG_ZONE = "Asia/Tokyo"
BROWSER_ZONE = "America/New_York"  # the `tab` fixture's clocks (tests/e2e/conftest.py)


@pytest.fixture
async def org(orgs, http):
    org = await orgs(credits=100)
    await orgs.profile(org, "cal-x", "x")
    await orgs.profile(org, "cal-bsky", "bluesky")
    zone = await http.patch("/v1/organization", json={"time_zone": ORG_ZONE}, headers=org.auth)
    assert zone.status_code == 200, zone.text
    return org


def upcoming(days: int, hour: int, minute: int) -> datetime:
    """An instant at hour:minute UTC on the first day at least `days` ahead whose Tokyo date is
    before the 27th: the next Tokyo day is in the same month's grid."""
    at = datetime.now(UTC).replace(hour=hour, minute=minute, second=0, microsecond=0) + timedelta(days=days)
    while at.astimezone(ZoneInfo(ORG_ZONE)).day > 26:
        at += timedelta(days=1)
    return at


async def create(http, org, content: str, profile: str, at: datetime) -> str:
    created = await http.post(
        "/v1/posts", json={"content": content, "profiles": [profile], "schedule_at": at.isoformat()}, headers=org.auth
    )
    assert created.status_code == 201, created.text
    return created.json()["posts"][0]["id"]


async def schedule_of(http, org, post_id: str) -> datetime:
    post = (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()
    return datetime.fromisoformat(post["schedule_at"].replace("Z", "+00:00"))


def named(day: date, rest: str) -> re.Pattern:
    """A post's link as the calendar names it: its day (the calendar draws a day's posts beside
    its cell, not in it), then its time, platform, profile and text."""
    return re.compile(rf"^{day:%A} {day.day} {day:%B %Y}, {re.escape(rest)}")


def long_day(day: date) -> str:
    return f"{day:%A} {day.day} {day:%B %Y}"


def day_cell(page, day: date):
    """Where the month grid shows a day's date (its <time>): a place to drop a post on that day."""
    return page.locator(f'#calendar time[datetime="{day.isoformat()}"]')


async def drag(page, source, target) -> None:
    """Drags with the mouse, in steps, as a human does (the calendar starts a drag after a few pixels)."""
    await source.scroll_into_view_if_needed()
    start, end = await source.bounding_box(), await target.bounding_box()
    x0, y0 = start["x"] + 8, start["y"] + start["height"] / 2
    x1, y1 = end["x"] + end["width"] / 2, end["y"] + end["height"] / 2
    await page.mouse.move(x0, y0)
    await page.mouse.down()
    for step in range(1, 13):
        await page.mouse.move(x0 + (x1 - x0) * step / 12, y0 + (y1 - y0) * step / 12)
        await page.wait_for_timeout(20)
    await page.mouse.up()


async def test_a_post_shows_on_its_local_day_drags_to_the_next_and_moves_from_the_keyboard(
    tab, http, org, artifacts_dir, backend
) -> None:
    page = tab
    instant = upcoming(4, 20, 30)  # 20:30 UTC: 05:30 the next day in Tokyo, 15:30 or 16:30 in New York
    local = instant.astimezone(ZoneInfo(ORG_ZONE))
    post_id = await create(http, org, "Launch day in Tokyo, with a long text that the calendar cuts", "cal-x", instant)
    await create(http, org, "Another post the same day", "cal-bsky", instant + timedelta(hours=2))
    await sign_in(page, org.email)
    await page.get_by_role("link", name="Calendar").click()
    await page.wait_for_url("**/dashboard/calendar")
    await page.goto(f"/dashboard/calendar?view=month&date={local.date().isoformat()}")
    await expect(page.locator("#calendar-zone-name")).to_have_text(ORG_ZONE)

    # The post is a link named by its Tokyo day and time, its platform, profile and text.
    link = page.get_by_role("link", name=named(local.date(), "05:30 X cal-x: Launch day in Tokyo"))
    await expect(link).to_be_visible()
    assert await link.get_attribute("href") == f"/dashboard/posts/{post_id}"
    await expect(page.get_by_role("link", name=re.compile("cal-x: Launch day"))).to_have_count(1)
    await expect(page.get_by_role("status")).to_contain_text(f"times in {ORG_ZONE}")
    await check_page(page, artifacts_dir, backend, "calendar-month")
    await page.set_viewport_size({"width": 1280, "height": 800})

    # Dragged to the next day: the same Tokyo time a day later, as /v1 sees it.
    following = local.date() + timedelta(days=1)
    await drag(page, link, day_cell(page, following))
    await expect(page.get_by_role("status")).to_contain_text("cal-x's post moved to")
    await expect(page.get_by_role("link", name=named(following, "05:30 X cal-x: Launch day"))).to_be_visible()
    assert await schedule_of(http, org, post_id) == instant + timedelta(days=1)

    # "Move to…" from the keyboard: the button, a dialog with Schedule at, Enter.
    move = page.get_by_role("button", name=re.compile(r"^Move to… cal-x: Launch day"))
    await move.focus()
    await page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Move to…")
    await expect(dialog).to_be_visible()
    field = dialog.get_by_label(f"Schedule at ({ORG_ZONE})")
    assert await field.input_value() == f"{following.isoformat()}T05:30"
    await check_page(page, artifacts_dir, backend, "calendar-move-dialog")
    await page.set_viewport_size({"width": 1280, "height": 800})
    # A time in the past is refused in the dialog, by its code, and nothing moves.
    yesterday = datetime.now(ZoneInfo(ORG_ZONE)) - timedelta(days=1)
    await field.fill(f"{yesterday:%Y-%m-%dT%H:%M}")
    await field.press("Enter")
    await expect(dialog.get_by_role("alert")).to_have_attribute("data-code", "VALIDATION_ERROR")
    assert await schedule_of(http, org, post_id) == instant + timedelta(days=1)
    target = datetime.combine(following + timedelta(days=1), datetime.min.time()).replace(hour=18, minute=15)
    await field.fill(f"{target:%Y-%m-%dT%H:%M}")
    await field.press("Enter")
    await expect(dialog).to_be_hidden()
    await expect(page.get_by_role("status")).to_contain_text(f"moved to {target:%Y-%m-%d %H:%M} ({ORG_ZONE})")
    assert await schedule_of(http, org, post_id) == target.replace(tzinfo=ZoneInfo(ORG_ZONE)).astimezone(UTC)
    await expect(page.get_by_role("link", name=named(target.date(), "18:15 X cal-x: Launch day"))).to_be_visible()
    await expect(page.get_by_role("button", name=re.compile(r"^Move to… cal-x"))).to_be_focused()

    # The browser's zone: the same post at New York's day and time.
    await page.get_by_role("button", name=f"Show times in this browser's time zone ({BROWSER_ZONE})").click()
    await expect(page.locator("#calendar-zone-name")).to_have_text(BROWSER_ZONE)
    ny = target.replace(tzinfo=ZoneInfo(ORG_ZONE)).astimezone(ZoneInfo(BROWSER_ZONE))
    await expect(page.get_by_role("link", name=named(ny.date(), f"{ny:%H:%M} X cal-x: Launch day"))).to_be_visible()
    await page.get_by_role("button", name=f"Show times in the organization's time zone ({ORG_ZONE})").click()
    await expect(page.locator("#calendar-zone-name")).to_have_text(ORG_ZONE)
    assert page.violations == []


async def test_a_refused_drag_puts_the_post_back_and_says_why(tab, http, org, artifacts_dir, backend) -> None:
    page = tab
    instant = upcoming(6, 1, 0)  # 10:00 in Tokyo
    local = instant.astimezone(ZoneInfo(ORG_ZONE))
    post_id = await create(http, org, "Canceled meanwhile", "cal-bsky", instant)
    await sign_in(page, org.email)
    await page.goto(f"/dashboard/calendar?view=month&date={local.date().isoformat()}")
    name = named(local.date(), "10:00 Bluesky cal-bsky: Canceled meanwhile")
    link = page.get_by_role("link", name=name)
    await expect(link).to_be_visible()
    # Canceled through /v1 while the page shows it scheduled: the move is refused.
    assert (await http.delete(f"/v1/posts/{post_id}", headers=org.auth)).status_code == 200
    await drag(page, link, day_cell(page, local.date() + timedelta(days=1)))
    alert = page.locator("#calendar-error")
    await expect(alert).to_have_attribute("data-code", "INVALID_POST_STATE")
    await expect(alert).to_contain_text("put back at")
    await expect(page.get_by_role("link", name=name)).to_be_visible()  # on its day, as before
    assert await schedule_of(http, org, post_id) == instant
    await check_page(page, artifacts_dir, backend, "calendar-refused")

    # "New post" on a day to come opens the compose page at that day.
    await page.set_viewport_size({"width": 1280, "height": 800})
    day = local.date() + timedelta(days=2)
    await page.get_by_role("link", name=f"New post on {long_day(day)}", exact=True).click()
    await page.wait_for_url(
        re.compile(rf"/dashboard/compose\?schedule_at={day.isoformat()}T09%3A00&time_zone=Asia%2FTokyo$")
    )
    assert page.violations == []


async def test_the_week_and_the_list_and_a_phone(tab, http, org, artifacts_dir, backend) -> None:
    page = tab
    instant = upcoming(3, 3, 0)  # 12:00 in Tokyo
    local = instant.astimezone(ZoneInfo(ORG_ZONE))
    await create(http, org, "In the week", "cal-x", instant)
    slots = [{"day": d, "time": "15:00"} for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]
    put = await http.put("/v1/profiles/cal-x/slots", json={"timezone": ORG_ZONE, "slots": slots}, headers=org.auth)
    assert put.status_code == 200, put.text
    await sign_in(page, org.email)
    await page.goto(f"/dashboard/calendar?view=week&date={local.date().isoformat()}&profile=cal-x")
    in_the_week = named(local.date(), "12:00 X cal-x: In the week")
    await expect(page.get_by_role("link", name=in_the_week)).to_be_visible()
    # One profile: its free slots, each a link to a new post at that time.
    free = page.get_by_role("link", name=f"Free 15:00: new post for cal-x on {long_day(local.date())}", exact=True)
    await expect(free).to_be_visible()
    await check_page(page, artifacts_dir, backend, "calendar-week")
    await page.set_viewport_size({"width": 1280, "height": 800})
    await page.get_by_role("button", name="List").click()
    await expect(page).to_have_url(re.compile(r"view=list"))
    await expect(page.get_by_role("link", name=in_the_week)).to_be_visible()
    await check_page(page, artifacts_dir, backend, "calendar-list")
    # A phone opens on the list, unless the link names a view.
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(f"/dashboard/calendar?date={local.date().isoformat()}")
    await expect(page.get_by_role("button", name="List")).to_have_attribute("aria-pressed", "true")
    assert page.violations == []
