"""The approval pages in Chromium (docs/dashboard.md, "Approvals"): the core's refusals in words on
the post's page (FORBIDDEN for one's own post until self-approval is allowed; a time that passed
while the post waited, then approved with a new "Schedule at" or "Publish now"); a viewer's
buttons disabled with the reason; the calendar's "Review" dialog (approve, reject, someone else
first); the posts page's status filter and a group's Approve; the overview's "Waiting for approval"
for members who may approve; the settings page's approval settings, saved and refused in words.
Over plain HTTP: every review form and endpoint checks its CSRF token. What the pages show depends
on the templates and the core's answers, not on SQL (test_approval_flow.py runs on both databases)."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright.async_api import expect

from tests.dashboard_forms import form_token, signed_in
from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in

pytestmark = pytest.mark.one_backend

ORG_ZONE = "Asia/Tokyo"
LATER = (datetime.now(UTC) + timedelta(days=20)).replace(minute=0, second=0, microsecond=0)


def _button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


@pytest.fixture
async def org(http, orgs):
    org = await orgs(credits=100)
    await orgs.profile(org, "rev-x", "x", tags=("client-a",))
    await orgs.profile(org, "rev-bsky", "bluesky")
    zone = await http.patch("/v1/organization", json={"time_zone": ORG_ZONE}, headers=org.auth)
    assert zone.status_code == 200, zone.text
    return org


async def _create(http, who, profiles=("rev-x",), at: datetime = LATER, content: str = "Fresh bread at 7.") -> dict:
    answer = await http.post(
        "/v1/posts",
        json={"content": content, "profiles": list(profiles), "schedule_at": at.isoformat()},
        headers=who.auth,
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


async def _waiting(http, who, **kwargs) -> str:
    (post,) = (await _create(http, who, **kwargs))["posts"]
    assert post["status"] == "pending_approval", post
    return post["id"]


async def _post(http, org, post_id: str) -> dict:
    return (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()


async def test_ones_own_post_is_refused_in_words_until_self_approval_is_allowed(
    page, http, org, artifacts_dir, backend
) -> None:
    changed = await http.patch("/v1/organization", json={"approvals_required_for": ["api_keys"]}, headers=org.auth)
    assert changed.status_code == 200, changed.text
    post_id = await _waiting(http, org)  # the owner's own API key
    await sign_in(page, org.email)
    await page.goto(f"/dashboard/posts/{post_id}")
    await expect(page.locator("#approval-own")).to_contain_text("You wrote this post yourself")
    await _button(page, "Approve").click()
    alert = page.get_by_role("alert")
    await expect(alert).to_have_attribute("data-code", "FORBIDDEN")
    await expect(alert).to_contain_text(
        "You wrote this post yourself: another member who may approve must review it "
        "(or the organization allows self-approval)."
    )
    assert (await _post(http, org, post_id))["status"] == "pending_approval"

    # Self-approval allowed on the settings page: the same button now approves it.
    await page.goto("/dashboard/settings")
    await page.get_by_label("Allow self-approval").check()
    await _button(page, "Save approval settings").click()
    await page.wait_for_url("**/dashboard/settings?notice=approvals-saved")
    await page.goto(f"/dashboard/posts/{post_id}")
    await _button(page, "Approve").click()
    await page.wait_for_url("**?notice=post-approved")
    await expect(page.locator("#post-status")).to_have_text("scheduled")
    local = LATER.astimezone(ZoneInfo(ORG_ZONE))
    await expect(page.locator("#post-facts")).to_contain_text(f"{local:%Y-%m-%d %H:%M} ({ORG_ZONE})")


async def test_a_time_that_passed_while_waiting_asks_for_a_new_time_or_publish_now(
    page, http, orgs, org, artifacts_dir, backend
) -> None:
    contributor = await orgs.member(org, "contributor")
    soon = datetime.now(UTC) + timedelta(seconds=3)
    first = await _waiting(http, contributor, at=soon, content="First, soon.")
    second = await _waiting(http, contributor, at=soon, content="Second, soon.")
    await asyncio.sleep(max(0.0, (soon - datetime.now(UTC)).total_seconds()) + 1)
    await sign_in(page, org.email)

    await page.goto(f"/dashboard/posts/{first}")
    await expect(page.get_by_role("button", name="Publish now")).to_have_count(0)
    await page.get_by_label("Comment", exact=True).fill("A day later, then.")
    await _button(page, "Approve").click()
    alert = page.get_by_role("alert")
    await expect(alert).to_have_attribute("data-code", "VALIDATION_ERROR")
    await expect(alert).to_contain_text("The post's schedule_at has passed while it waited for approval")
    await expect(page.get_by_label("Comment", exact=True)).to_have_value("A day later, then.")
    await expect(_button(page, "Publish now")).to_be_visible()
    await check_page(page, artifacts_dir, backend, "approval-late")
    await page.set_viewport_size({"width": 1280, "height": 800})
    new_time = (datetime.now(ZoneInfo(ORG_ZONE)) + timedelta(days=1)).replace(hour=10, minute=30)
    await page.get_by_label("Schedule at").fill(f"{new_time:%Y-%m-%dT%H:%M}")
    await _button(page, "Approve").click()
    await page.wait_for_url("**?notice=post-approved")
    approved = await _post(http, org, first)
    assert approved["status"] == "scheduled"
    assert datetime.fromisoformat(approved["schedule_at"].replace("Z", "+00:00")) == new_time.replace(
        second=0, microsecond=0
    )
    assert approved["review"]["comment"] == "A day later, then."

    await page.goto(f"/dashboard/posts/{second}")
    await _button(page, "Approve").click()
    await expect(page.get_by_role("alert")).to_have_attribute("data-code", "VALIDATION_ERROR")
    await _button(page, "Publish now").click()
    await page.wait_for_url("**?notice=post-approved-queued")
    assert (await _post(http, org, second))["status"] in ("queued", "publishing", "published")


async def test_a_viewer_sees_the_review_buttons_disabled_with_the_reason(page, http, orgs, org) -> None:
    contributor, viewer = await orgs.member(org, "contributor"), await orgs.member(org, "viewer")
    post_id = await _waiting(http, contributor)
    await sign_in(page, viewer.email)
    await page.goto(f"/dashboard/posts/{post_id}")
    why = "Your role (viewer) cannot approve or reject posts: owners, admins and editors can."
    for name in ("Approve", "Reject"):
        await expect(_button(page, name)).to_be_disabled()
        await expect(_button(page, name)).to_have_accessible_description(why)
    await expect(page.get_by_label("Comment", exact=True)).to_be_disabled()
    # The overview lists no posts to approve for a member who may not approve them.
    await page.goto("/dashboard")
    await expect(page.get_by_role("heading", name="Waiting for approval")).to_have_count(0)


async def test_the_calendar_reviews_a_waiting_post_in_its_dialog(page, http, orgs, org, artifacts_dir, backend) -> None:
    contributor, editor = await orgs.member(org, "contributor"), await orgs.member(org, "editor")
    approving = await _waiting(http, contributor, content="Approve me from the calendar")
    rejecting = await _waiting(http, contributor, at=LATER + timedelta(hours=1), content="Reject me from the calendar")
    raced = await _waiting(http, contributor, at=LATER + timedelta(hours=2), content="Someone else approves me")
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    await sign_in(page, org.email)
    day = LATER.astimezone(ZoneInfo(ORG_ZONE)).date()
    await page.goto(f"/dashboard/calendar?view=list&date={day.isoformat()}")
    await expect(page.get_by_label("Status").locator("option", has_text="pending approval")).to_have_count(1)
    link = page.get_by_role("link", name=re.compile(r"rev-x: Approve me from the calendar \(pending approval\)$"))
    await expect(link).to_be_visible()

    await page.get_by_role("button", name=re.compile(r"^Review rev-x: Approve me")).click()
    dialog = page.get_by_role("dialog", name="Review")
    await expect(dialog).to_be_visible()
    await check_page(page, artifacts_dir, backend, "approval-calendar-dialog")
    await page.set_viewport_size({"width": 1280, "height": 800})
    await dialog.get_by_label("Comment", exact=True).fill("Lovely.")
    await _button(dialog, "Approve").click()
    await expect(page.get_by_role("status")).to_contain_text("rev-x's post is approved: scheduled at")
    await expect(dialog).to_be_hidden()
    await expect(page.get_by_role("link", name=re.compile(r"rev-x: Approve me from the calendar$"))).to_be_visible()
    body = await _post(http, org, approving)
    assert (body["status"], body["review"]["comment"]) == ("scheduled", "Lovely.")

    await page.get_by_role("button", name=re.compile(r"^Review rev-x: Reject me")).click()
    await dialog.get_by_label("Comment", exact=True).fill("Not this week.")
    await _button(dialog, "Reject").click()
    await expect(page.get_by_role("status")).to_contain_text("rev-x's post is rejected: it is a draft again")
    await expect(
        page.get_by_role("link", name=re.compile(r"rev-x: Reject me from the calendar \(draft\)$"))
    ).to_be_visible()
    body = await _post(http, org, rejecting)
    assert (body["status"], body["review"]["comment"]) == ("draft", "Not this week.")

    # Someone else approves it first: the dialog says so in the core's words, the calendar catches up.
    await page.get_by_role("button", name=re.compile(r"^Review rev-x: Someone else")).click()
    assert (await http.post(f"/v1/posts/{raced}/approve", headers=editor.auth)).status_code == 200
    await _button(dialog, "Approve").click()
    refused = dialog.get_by_role("alert")
    await expect(refused).to_have_attribute("data-code", "INVALID_POST_STATE")
    await expect(refused).to_contain_text("post is scheduled; only posts pending approval are approved or rejected")
    await _button(dialog, "Cancel").click()
    await expect(page.get_by_role("link", name=re.compile(r"rev-x: Someone else approves me$"))).to_be_visible()
    assert not [url for url in seen if "/v1/" in url], seen


async def test_the_posts_page_filters_waiting_posts_and_approves_a_group(
    page, http, orgs, org, artifacts_dir, backend
) -> None:
    contributor = await orgs.member(org, "contributor")
    group = (await _create(http, contributor, profiles=("rev-x", "rev-bsky"), content="Both, please."))["posts"]
    assert {p["status"] for p in group} == {"pending_approval"}
    await _create(http, org, content="Already scheduled.")
    await sign_in(page, org.email)
    await page.goto("/dashboard/posts")
    await page.get_by_label("Status").select_option(label="pending approval")
    await _button(page, "Filter").click()
    await page.wait_for_url(re.compile(r"/dashboard/posts\?status=pending_approval&"))
    row = page.locator(f'li[data-group="{group[0]["group_id"]}"]')
    await expect(page.locator("li[data-group]")).to_have_count(1)
    await expect(row).to_contain_text("2 destinations wait for approval.")
    await check_page(page, artifacts_dir, backend, "approval-posts")
    await page.set_viewport_size({"width": 1280, "height": 800})
    await row.get_by_label("Comment", exact=True).fill("Both fine.")
    await _button(row, "Approve").click()
    await page.wait_for_url("**/dashboard/posts?status=pending_approval&notice=group-approved")
    await expect(page.get_by_role("status")).to_contain_text("The post is approved for every destination")
    for post in group:
        body = await _post(http, org, post["id"])
        assert (body["status"], body["review"]["comment"]) == ("scheduled", "Both fine."), body


async def test_the_overview_lists_the_waiting_posts_for_members_who_may_approve(page, http, orgs, org) -> None:
    contributor, editor = await orgs.member(org, "contributor"), await orgs.member(org, "editor")
    ids = [await _waiting(http, contributor, at=LATER + timedelta(hours=h), content=f"Waiting {h}") for h in (1, 2)]
    await sign_in(page, editor.email)
    section = page.get_by_role("region", name="Waiting for approval")
    await expect(section.locator("#waiting-count")).to_contain_text("2 posts wait")
    links = section.get_by_role("link", name=re.compile(r"^rev-x on x, post "))
    await expect(links).to_have_count(2)
    assert [await link.get_attribute("href") for link in await links.all()] == [f"/dashboard/posts/{i}" for i in ids]
    await section.get_by_role("link", name="Every post waiting for approval").click()
    await page.wait_for_url("**/dashboard/posts?status=pending_approval")


async def test_the_settings_page_saves_and_shows_the_approval_settings(page, http, org, artifacts_dir, backend) -> None:
    await sign_in(page, org.email)
    await page.goto("/dashboard/settings")
    for name in ("Agents", "API keys", "Allow self-approval"):
        await expect(page.get_by_label(name, exact=True)).not_to_be_checked()
    await page.get_by_label("Agents", exact=True).check()
    await page.get_by_label("API keys", exact=True).check()
    await page.get_by_label("Profile tags").fill("client-a, Launch")
    await page.get_by_label("Allow self-approval").check()
    await _button(page, "Save approval settings").click()
    await page.wait_for_url("**/dashboard/settings?notice=approvals-saved")
    await expect(page.get_by_role("status")).to_contain_text("The approval settings are saved")
    for name in ("Agents", "API keys", "Allow self-approval"):
        await expect(page.get_by_label(name, exact=True)).to_be_checked()
    await expect(page.get_by_label("Profile tags")).to_have_value("client-a, launch")
    saved = (await http.get("/v1/organization", headers=org.auth)).json()
    assert (saved["approvals_required_for"], saved["approval_profile_tags"], saved["self_approval"]) == (
        ["agents", "api_keys"],
        ["client-a", "launch"],
        True,
    )
    assert saved["time_zone"] == ORG_ZONE  # the other form's settings are left as they were

    # A tag the core refuses: the form again as sent, the refusal in words; nothing saved.
    await page.get_by_label("API keys", exact=True).uncheck()
    await page.get_by_label("Profile tags").fill("no spaces allowed")
    await _button(page, "Save approval settings").click()
    alert = page.get_by_role("alert")
    await expect(alert).to_have_attribute("data-code", "VALIDATION_ERROR")
    await expect(alert).to_contain_text("no spaces allowed")
    await expect(page.get_by_label("Profile tags")).to_have_value("no spaces allowed")
    await expect(page.get_by_label("API keys", exact=True)).not_to_be_checked()
    await check_page(page, artifacts_dir, backend, "approval-settings-refused")
    assert (await http.get("/v1/organization", headers=org.auth)).json() == saved

    # Everything off again: empty lists are sent, not left out.
    await page.set_viewport_size({"width": 1280, "height": 800})
    for name in ("Agents", "Allow self-approval"):
        await page.get_by_label(name, exact=True).uncheck()
    await page.get_by_label("Profile tags").fill("")
    await _button(page, "Save approval settings").click()
    await page.wait_for_url("**/dashboard/settings?notice=approvals-saved")
    cleared = (await http.get("/v1/organization", headers=org.auth)).json()
    assert (cleared["approvals_required_for"], cleared["approval_profile_tags"], cleared["self_approval"]) == (
        [],
        [],
        False,
    )


async def test_every_review_form_and_endpoint_checks_its_csrf_token(stack, http, orgs, org) -> None:
    contributor = await orgs.member(org, "contributor")
    post_id = await _waiting(http, contributor)
    group_id = (await _post(http, org, post_id))["group_id"]
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as browser_like:
        token = await signed_in(browser_like, org.email, page=f"/dashboard/posts/{post_id}")
        forms = (
            f"/dashboard/posts/{post_id}/approve",
            f"/dashboard/posts/{post_id}/reject",
            f"/dashboard/post-groups/{group_id}/approve",
            f"/dashboard/post-groups/{group_id}/reject",
            "/dashboard/settings/approvals",
        )
        for path in forms:
            for sent in ({}, {"csrf_token": "forged"}):
                refused = await browser_like.post(path, data=sent | {"comment": "no token"})
                assert refused.status_code == 403, (path, refused.text[:300])
                assert "Form expired" in refused.text
        for path in (f"/dashboard/calendar/posts/{post_id}/approve", f"/dashboard/calendar/posts/{post_id}/reject"):
            refused = await browser_like.post(path, data={"time_zone": ORG_ZONE, "csrf_token": "forged"})
            assert (refused.status_code, refused.json()["code"]) == (403, "FORBIDDEN"), path
        assert (await _post(http, org, post_id))["status"] == "pending_approval"
        assert (await http.get("/v1/organization", headers=org.auth)).json()["approvals_required_for"] == []

        # With its token, the calendar's endpoint answers the post's new place, in the zone sent.
        token = form_token(await browser_like.get("/dashboard/calendar"))
        done = await browser_like.post(
            f"/dashboard/calendar/posts/{post_id}/approve",
            data={"csrf_token": token, "time_zone": ORG_ZONE, "comment": "Fine."},
        )
        assert done.status_code == 200, done.text
        local = LATER.astimezone(ZoneInfo(ORG_ZONE))
        assert done.json() | {"review": None} == {
            "id": post_id,
            "status": "scheduled",
            "start": f"{local:%Y-%m-%dT%H:%M}",
            "movable": True,
            "schedule_at": LATER.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "review": None,
        }
        assert (done.json()["review"]["outcome"], done.json()["review"]["comment"]) == ("approved", "Fine.")
