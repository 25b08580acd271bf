"""The workspace's whole flow in Chromium, in one page on one stack (docs/dashboard.md): an
organization working in Asia/Tokyo, a browser whose clocks are New York's; compose one post with
a thread item and an image uploaded from the computer for three profiles at a Tokyo time →
three posts in one group at the right instant (GET /v1/posts) → the calendar shows them at that
Tokyo time → one dragged to the next day moves a day → its page shows it and its history → the
posts page's "Cancel post" cancels the whole group. Each step has its own tests
(test_compose_page.py, test_calendar_page.py, tests/facades/test_posts_page.py,
test_post_detail_page.py); this one checks that they hold together."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.async_api import expect

from tests.e2e.test_calendar_page import ORG_ZONE, day_cell, drag, named, schedule_of, upcoming
from tests.e2e.test_dashboard import sign_in
from tests.e2e.test_media_page import png, settled_row

pytestmark = pytest.mark.one_backend

BROWSER_ZONE = "America/New_York"  # the `tab` fixture's clocks (tests/e2e/conftest.py)

PROFILES = {"flow-x": "x", "flow-bsky": "bluesky", "flow-masto": "mastodon"}
LABELS = {"flow-x": "X", "flow-bsky": "Bluesky", "flow-masto": "Mastodon"}
CONTENT = "Autumn menu: five new dishes from Monday."
THREAD = "Booking opens at noon."


def _button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


async def test_compose_calendar_drag_detail_and_cancel_the_group(tab, http, orgs, tmp_path) -> None:
    page = tab
    org = await orgs(credits=100)
    for slug, platform in PROFILES.items():
        await orgs.profile(org, slug, platform)
    zone = await http.patch("/v1/organization", json={"time_zone": ORG_ZONE}, headers=org.auth)
    assert zone.status_code == 200, zone.text
    instant = upcoming(3, 1, 15)  # 01:15 UTC: 10:15 in Tokyo, the evening before in New York
    local = instant.astimezone(ZoneInfo(ORG_ZONE))

    # Compose: the text, a thread item, three profiles, an uploaded image, a Tokyo time.
    await sign_in(page, org.email)
    await page.get_by_role("link", name="New post").click()
    await page.wait_for_url("**/dashboard/compose")
    await page.get_by_role("textbox", name="Content", exact=True).fill(CONTENT)
    await _button(page, "Add a thread item").click()
    await page.get_by_label("Thread item 1").fill(THREAD)
    for slug in PROFILES:
        await page.get_by_role("checkbox", name=slug, exact=True).check()
    menu = tmp_path / "menu.png"
    menu.write_bytes(png(640, 480, (180, 60, 30)))
    await page.get_by_label("Upload", exact=True).set_input_files(str(menu))
    assert (await settled_row(page, "menu.png"))[0] == "uploaded"
    attached = page.get_by_role("checkbox", name="menu.png", exact=True)
    await expect(attached).to_be_checked()
    media_id = await attached.get_attribute("value")
    await expect(page.get_by_label("Time zone")).to_have_value(ORG_ZONE)  # the organization's, not the browser's
    await page.get_by_label("Schedule at").fill(local.strftime("%Y-%m-%dT%H:%M"))
    await expect(page.locator("#compose-summary .verdict")).to_have_text("Ready for all 3 destinations")
    await _button(page, "Schedule").click()
    await page.wait_for_url("**/dashboard/posts?notice=posts-scheduled")

    # Three posts, one group, the Tokyo time's instant, the image and the thread item on each.
    posts = {p["profile"]: p for p in (await http.get("/v1/posts", headers=org.auth)).json()["posts"]}
    assert set(posts) == set(PROFILES)
    (group_id,) = {p["group_id"] for p in posts.values()}
    for post in posts.values():
        assert (post["status"], post["content"], post["media_ids"]) == ("scheduled", CONTENT, [media_id])
        assert datetime.fromisoformat(post["schedule_at"].replace("Z", "+00:00")) == instant
        assert [t["content"] for t in post["thread"]] == [THREAD]

    # The calendar: each destination a link at its Tokyo day and time.
    await page.get_by_role("link", name="Calendar").click()
    await page.wait_for_url("**/dashboard/calendar")
    await page.goto(f"/dashboard/calendar?view=month&date={local.date().isoformat()}")
    await expect(page.locator("#calendar-zone-name")).to_have_text(ORG_ZONE)
    for slug, label in LABELS.items():
        link = page.get_by_role("link", name=named(local.date(), f"{local:%H:%M} {label} {slug}: Autumn menu"))
        await expect(link).to_be_visible()
        assert await link.get_attribute("href") == f"/dashboard/posts/{posts[slug]['id']}"

    # X's dragged to the next day: a day later over /v1, the other two where they were.
    moved = posts["flow-x"]["id"]
    following = local.date() + timedelta(days=1)

    def on_day(day):  # X's link, as the calendar names it on `day`
        return page.get_by_role("link", name=named(day, f"{local:%H:%M} X flow-x: Autumn menu"))

    await drag(page, on_day(local.date()), day_cell(page, following))
    await expect(page.get_by_role("status")).to_contain_text("flow-x's post moved to")
    await expect(on_day(following)).to_be_visible()
    after = {p["id"]: p for p in (await http.get("/v1/posts", headers=org.auth)).json()["posts"]}
    assert datetime.fromisoformat(after[moved]["schedule_at"].replace("Z", "+00:00")) == instant + timedelta(days=1)
    for slug in ("flow-bsky", "flow-masto"):
        assert await schedule_of(http, org, posts[slug]["id"]) == instant
    assert page.violations == []

    # Its page: the post, and its history with the move.
    await page.goto(f"/dashboard/posts/{moved}")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Post to flow-x on x")
    await expect(page.get_by_text(CONTENT).first).to_be_visible()
    await expect(page.get_by_role("heading", name="History")).to_be_visible()
    kinds = await page.locator("#history li").evaluate_all("items => items.map(i => i.dataset.kind)")
    assert kinds == ["created", "rescheduled"]

    # The posts page: the group's "Cancel post" cancels all three.
    await page.goto("/dashboard/posts")
    row = page.locator(f'li.group[data-group="{group_id}"]')
    await expect(row.locator("li[data-post]")).to_have_count(3)
    await row.get_by_role("button", name="Cancel post", exact=True).click()
    await page.wait_for_url("**/dashboard/posts?notice=group-canceled")
    group = (await http.get(f"/v1/post-groups/{group_id}", headers=org.auth)).json()
    assert {p["id"]: p["status"] for p in group["posts"]} == {p["id"]: "canceled" for p in posts.values()}
    await expect(row.get_by_role("button", name="Cancel post", exact=True)).to_be_disabled()
    assert page.violations == []
