"""Editing a post from the dashboard in Chromium (docs/dashboard.md, "Compose", Edit; "Post detail";
"Posts"): a post page's "Edit" opens compose filled in from the post (text, thread, first comment,
media, its time in the organization's zone, the profile fixed and shown), the live preview keeps
counting, "Save changes" saves it with UpdatePost and goes back to its page, whose history then
has an `edited` step; a draft opened from the posts page is saved and scheduled; a refusal the
core makes is shown on the form with what was typed; a session that ends keeps the typed text
for the post; "Edit" is disabled with its reason for a post that can no longer change. The post
page shows each media's thumbnail with its description as the alt text. Over plain HTTP: the form
without its script, the endpoint's CSRF check, and another organization's post (404)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright.async_api import expect

from tests.dashboard_forms import signed_in
from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in
from tests.e2e.test_media_page import png
from tests.posts_api import create, later

pytestmark = pytest.mark.one_backend

BROWSER_ZONE = "America/New_York"  # the `tab` fixture's clocks (tests/e2e/conftest.py)
ORG_ZONE = "Asia/Tokyo"
REQUEST_KEY = re.compile(r'name="request_key" value="([^"]+)"')


def _button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


async def _org(orgs, http: httpx.AsyncClient):
    """An organization working in Asia/Tokyo with an X and a Bluesky sandbox profile."""
    org = await orgs(credits=100)
    await orgs.profile(org, "edit-x", "x")
    await orgs.profile(org, "edit-bsky", "bluesky")
    zone = await http.patch("/v1/organization", json={"time_zone": ORG_ZONE}, headers=org.auth)
    assert zone.status_code == 200, zone.text
    return org


async def _image(http: httpx.AsyncClient, org, name: str, description: str, color: tuple[int, int, int]) -> str:
    """A PNG uploaded through /v1 (its thumbnail made) with its description (the alt text); its
    colour makes it a file of its own (the library finds the same bytes by their hash)."""
    files = {"file": (name, png(800, 600, color), "image/png")}
    uploaded = await http.post("/v1/media", files=files, headers=org.auth)
    assert uploaded.status_code == 201, uploaded.text
    media_id = uploaded.json()["media_id"]
    described = await http.patch(f"/v1/media/{media_id}", json={"description": description}, headers=org.auth)
    assert described.status_code == 200, described.text
    return media_id


def _tokyo(days: int, hour: int, minute: int) -> datetime:
    return (datetime.now(ZoneInfo(ORG_ZONE)) + timedelta(days=days)).replace(
        hour=hour, minute=minute, second=0, microsecond=0
    )


async def _post(http: httpx.AsyncClient, org, post_id: str) -> dict:
    answer = await http.get(f"/v1/posts/{post_id}", headers=org.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_edit_a_scheduled_post_from_its_page(tab, http, orgs, artifacts_dir, backend) -> None:
    page = tab
    org = await _org(orgs, http)
    photo = await _image(http, org, "harbour.png", "The harbour at dawn, boats moored.", (40, 120, 200))
    item_photo = await _image(http, org, "menu.png", "The autumn menu on a blackboard.", (200, 90, 30))
    when = _tokyo(3, 9, 30)
    post_id = await create(
        http,
        org,
        {
            "content": "Autumn menu from Monday.",
            "profiles": ["edit-x"],
            "media_ids": [photo],
            "thread": [{"content": "Booking opens at noon.", "media_ids": [item_photo]}],
            "first_comment": "Menu below.",
            "schedule_at": when.isoformat(),
        },
    )
    await sign_in(page, org.email)
    await page.goto(f"/dashboard/posts/{post_id}")

    # The post's page: each media's thumbnail, its description the alt text (the post's and the
    # thread item's), loaded from the media page's route.
    for list_id, media_id, alt in (
        ("post-media", photo, "The harbour at dawn, boats moored."),
        ("thread-0-media", item_photo, "The autumn menu on a blackboard."),
    ):
        picture = page.locator(f'#{list_id} li[data-media="{media_id}"] img')
        await expect(picture).to_have_attribute("alt", alt)
        await expect(picture).to_have_attribute("src", f"/dashboard/media/{media_id}/thumbnail")
        await picture.evaluate("img => img.decode()")
        assert await picture.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [320, 240]
    await expect(page.get_by_role("img", name="The harbour at dawn, boats moored.")).to_be_visible()

    edit = page.get_by_role("link", name="Edit", exact=True)
    await expect(edit).to_have_accessible_description(re.compile("^Edit opens this post in the compose form"))
    await edit.click()
    await page.wait_for_url(f"**/dashboard/compose?edit={post_id}")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Edit the post to edit-x")

    # Filled in from the post; the profile fixed and shown, no other to choose.
    content = page.get_by_role("textbox", name="Content", exact=True)
    await expect(content).to_have_value("Autumn menu from Monday.")
    await expect(page.get_by_label("Thread item 1")).to_have_value("Booking opens at noon.")
    await expect(page.get_by_label("First comment", exact=True)).to_have_value("Menu below.")
    await expect(page.get_by_role("checkbox", name="harbour.png", exact=True)).to_be_checked()
    await expect(page.get_by_role("checkbox", name="menu.png", exact=True)).not_to_be_checked()
    await expect(page.get_by_label("Schedule at")).to_have_value(when.strftime("%Y-%m-%dT%H:%M"))
    await expect(page.get_by_label("Time zone")).to_have_value(ORG_ZONE)
    await expect(page.locator("#edit-destination")).to_contain_text("edit-x (X)")
    await expect(page.get_by_role("checkbox", name="edit-bsky", exact=True)).to_have_count(0)
    await expect(page.get_by_role("tab")).to_have_count(0)
    for absent in ("Save draft", "Schedule", "Publish now"):
        await expect(_button(page, absent)).to_have_count(0)
    save = _button(page, "Save changes")

    # The live counter and its verdict, while editing.
    card = page.locator('article.card[data-profile="edit-x"]')
    await expect(card).to_have_count(1)
    await content.fill("z" * 290)
    await expect(card.locator(".role-content .count")).to_have_text("290 / 280")
    await expect(save).to_be_disabled()
    await expect(save).to_have_accessible_description("Fix the problems of edit-x first (shown on its card).")
    await content.fill("Autumn menu from Tuesday: five new dishes.")
    await expect(card.locator(".role-content .count")).to_have_text("42 / 280")
    await expect(save).to_be_enabled()
    await expect(save).to_have_accessible_description("")
    await _button(page, "Add a thread item").click()
    await page.get_by_label("Thread item 2").fill("Walk-ins welcome.")
    await page.get_by_label("First comment", exact=True).fill("")
    moved = _tokyo(4, 10, 45)
    await page.get_by_label("Schedule at").fill(moved.strftime("%Y-%m-%dT%H:%M"))
    await check_page(page, artifacts_dir, backend, "compose-edit")

    await page.set_viewport_size({"width": 1280, "height": 800})
    await save.click()
    await page.wait_for_url(f"**/dashboard/posts/{post_id}?notice=post-edited")
    await expect(page.locator(".flash")).to_have_text("The changes are saved.")
    post = await _post(http, org, post_id)
    assert (post["status"], post["content"]) == ("scheduled", "Autumn menu from Tuesday: five new dishes.")
    assert datetime.fromisoformat(post["schedule_at"].replace("Z", "+00:00")) == moved
    # The thread is replaced: the item whose text is kept keeps its image.
    assert [(t["content"], t["media_ids"]) for t in post["thread"]] == [
        ("Booking opens at noon.", [item_photo]),
        ("Walk-ins welcome.", []),
    ]
    assert post["first_comment"] is None and post["media_ids"] == [photo]
    history = page.locator('#history li[data-kind="edited"]')
    await expect(history).to_have_count(1)
    await expect(history).to_contain_text("Edited")


async def test_a_draft_from_the_posts_page_is_saved_then_scheduled(tab, http, orgs) -> None:
    page = tab
    org = await _org(orgs, http)
    draft_id = await create(
        http, org, {"content": "A draft for Bluesky.", "profiles": ["edit-x", "edit-bsky"], "draft": True}
    )
    bsky_id = next(
        p["id"]
        for p in (await http.get("/v1/posts", params={"status": "draft"}, headers=org.auth)).json()["posts"]
        if p["profile"] == "edit-bsky"
    )
    await sign_in(page, org.email)
    await page.goto("/dashboard/posts")
    # One Edit link per destination of the group, named by its profile.
    group = page.locator(f'li[data-post="{draft_id}"]').locator("xpath=ancestor::li[@data-group]")
    await expect(group.get_by_role("link", name=re.compile("^Edit"))).to_have_count(2)
    await group.get_by_role("link", name="Edit the post to edit-bsky").click()
    await page.wait_for_url(f"**/dashboard/compose?edit={bsky_id}")

    # A draft: Save changes, and Schedule and Publish now as compose has; no time yet.
    await expect(page.get_by_label("Schedule at")).to_have_value("")
    schedule = _button(page, "Schedule")
    await expect(schedule).to_have_accessible_description(
        "Choose a date and time in Schedule at, or Next free slot, first."
    )
    await expect(_button(page, "Publish now")).to_be_enabled()
    await expect(_button(page, "Save changes")).to_be_enabled()
    await page.get_by_role("textbox", name="Content", exact=True).fill("A draft for Bluesky, scheduled.")
    when = _tokyo(2, 18, 0)
    await page.get_by_label("Schedule at").fill(when.strftime("%Y-%m-%dT%H:%M"))
    await expect(schedule).to_be_enabled()
    await schedule.click()
    await page.wait_for_url(f"**/dashboard/posts/{bsky_id}?notice=post-scheduled")
    post = await _post(http, org, bsky_id)
    assert (post["status"], post["content"]) == ("scheduled", "A draft for Bluesky, scheduled.")
    assert datetime.fromisoformat(post["schedule_at"].replace("Z", "+00:00")) == when
    kinds = await page.locator("#history li").evaluate_all("items => items.map(i => i.dataset.kind)")
    assert kinds[-2:] == ["edited", "scheduled"]
    # The other destination is untouched.
    assert (await _post(http, org, draft_id))["content"] == "A draft for Bluesky."


async def test_a_refusal_is_shown_with_what_was_typed(tab, http, orgs) -> None:
    page = tab
    org = await _org(orgs, http)
    post_id = await create(http, org, {"content": "Soon.", "profiles": ["edit-x"], "schedule_at": later(2)})
    await sign_in(page, org.email)
    await page.goto(f"/dashboard/compose?edit={post_id}")
    content = page.get_by_role("textbox", name="Content", exact=True)
    await content.fill("Typed while it was canceled elsewhere.")
    await expect(_button(page, "Save changes")).to_be_enabled()
    canceled = await http.delete(f"/v1/posts/{post_id}", headers=org.auth)
    assert canceled.status_code == 200, canceled.text
    await _button(page, "Save changes").click()
    failure = page.locator("#compose-failure")
    await expect(failure).to_be_visible()
    await expect(failure).to_have_attribute("data-code", "INVALID_POST_STATE")
    # It stays once the preview asked after it has answered, until the form changes.
    await page.wait_for_load_state("networkidle")
    await expect(failure).to_be_visible()
    await expect(content).to_have_value("Typed while it was canceled elsewhere.")
    assert page.url.endswith(f"/dashboard/compose?edit={post_id}")
    assert (await _post(http, org, post_id))["content"] == "Soon."

    # Its page now: Edit disabled, described by why.
    await page.goto(f"/dashboard/posts/{post_id}")
    edit = page.get_by_role("link", name="Edit", exact=True)
    await expect(edit).to_be_disabled()
    await expect(edit).to_have_accessible_description(
        "Only drafts, scheduled and queued posts can be edited: this post is canceled."
    )
    await expect(page.get_by_role("link", name="Duplicate", exact=True)).to_be_visible()


async def test_a_session_that_ends_keeps_the_edit(tab, http, orgs) -> None:
    page = tab
    org = await _org(orgs, http)
    post_id = await create(http, org, {"content": "As scheduled.", "profiles": ["edit-x"], "schedule_at": later(2)})
    await sign_in(page, org.email)
    await page.goto(f"/dashboard/compose?edit={post_id}")
    await page.context.clear_cookies(name="herald_session")
    content = page.get_by_role("textbox", name="Content", exact=True)
    await content.fill("Written while the session ended.")
    await _button(page, "Add a thread item").click()
    await page.get_by_label("Thread item 1").fill("And a thread item.")
    sign_in_again = page.get_by_role("link", name="Sign in again")
    await expect(sign_in_again).to_be_visible()
    await sign_in_again.click()
    await page.get_by_label("Email").fill(org.email)
    await page.get_by_label("Password").fill("correct horse battery")
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url(f"**/dashboard/compose?edit={post_id}")
    await expect(content).to_have_value("Written while the session ended.")
    await expect(page.get_by_label("Thread item 1")).to_have_value("And a thread item.")
    await expect(page.get_by_label("Thread item 2")).to_have_count(0)
    await _button(page, "Save changes").click()
    await page.wait_for_url(f"**/dashboard/posts/{post_id}?notice=post-edited")
    post = await _post(http, org, post_id)
    assert post["content"] == "Written while the session ended."
    assert [t["content"] for t in post["thread"]] == ["And a thread item."]
    # Saved: the kept text is forgotten, the form shows the post.
    await page.goto(f"/dashboard/compose?edit={post_id}")
    await expect(content).to_have_value("Written while the session ended.")
    await expect(page.get_by_label("Thread item 2")).to_have_count(0)


# --- plain HTTP -----------------------------------------------------------------------------------


async def test_the_form_without_its_script_and_the_endpoint_s_checks(stack, http, orgs) -> None:
    org = await _org(orgs, http)
    other = await _org(orgs, http)
    post_id = await create(http, org, {"content": "Before.", "profiles": ["edit-x"], "schedule_at": later(2)})
    foreign_id = await create(http, other, {"content": "Theirs.", "profiles": ["edit-x"], "schedule_at": later(2)})
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as client:
        token = await signed_in(client, org.email, "/dashboard/compose")
        form = {"csrf_token": token, "edit": post_id, "profiles": "edit-x", "time_zone": ORG_ZONE}

        # Another organization's post, an unknown and a malformed id: 404, for the page and both saves.
        for missing in (foreign_id, "pst_" + "0" * 26, "not-a-post"):
            assert (await client.get("/dashboard/compose", params={"edit": missing})).status_code == 404
            sent = form | {"edit": missing, "content": "Mine now.", "action": "save"}
            assert (await client.post("/dashboard/compose", data=sent)).status_code == 404
            refused = await client.post("/dashboard/compose/save", data=sent)
            assert (refused.status_code, refused.json()["code"]) == (404, "NOT_FOUND")
        assert (await _post(http, other, foreign_id))["content"] == "Theirs."

        # The endpoint checks the form's CSRF token first: nothing changes without it.
        for wrong in ({}, {"csrf_token": token + "x"}):
            sent = {k: v for k, v in form.items() if k != "csrf_token"} | wrong | {"content": "No.", "action": "save"}
            answer = await client.post("/dashboard/compose/save", data=sent)
            assert (answer.status_code, answer.json()["code"]) == (403, "FORBIDDEN")
        answer = await client.post(
            "/dashboard/compose/save", data=form | {"content": "With the script.", "action": "save"}
        )
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"location": f"/dashboard/posts/{post_id}?notice=post-edited"}

        # Without the script: Add a thread item shows the form again, still editing; Save changes
        # saves and goes to the post's page; a refusal is the form again with what was typed.
        page = await client.post("/dashboard/compose", data=form | {"content": "Plain.", "thread_add": "1"})
        assert page.status_code == 200 and 'name="edit" value="' + post_id in page.text
        assert 'id="thread-1"' in page.text and "Plain." in page.text
        saved = await client.post("/dashboard/compose", data=form | {"content": "Plain form.", "action": "save"})
        assert (saved.status_code, saved.headers["location"]) == (303, f"/dashboard/posts/{post_id}?notice=post-edited")
        assert (await _post(http, org, post_id))["content"] == "Plain form."
        past = await client.post(
            "/dashboard/compose",
            data=form | {"content": "Typed and kept.", "schedule_at": "2020-01-06T09:00", "action": "save"},
        )  # a time that has passed: the core's refusal
        assert past.status_code == 400, past.text
        assert 'data-error-code="VALIDATION_ERROR"' in past.text and "Typed and kept." in past.text
        assert (await _post(http, org, post_id))["content"] == "Plain form."

        # A post that can no longer change: its edit page is refused with the reason.
        assert (await http.delete(f"/v1/posts/{post_id}", headers=org.auth)).status_code == 200
        gone = await client.get("/dashboard/compose", params={"edit": post_id})
        assert gone.status_code == 409 and "only drafts, scheduled or queued posts can be edited" in gone.text
