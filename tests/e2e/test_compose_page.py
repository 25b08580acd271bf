"""The compose page in Chromium (docs/dashboard.md, "Compose"): a human writes one post for
several profiles, with a thread, a version per destination and a time in a named zone; the
preview follows the typing with the core's counts and problems, and the buttons say why they
cannot act; drafts, publishing now, a session that ends while typing, a link (the calendar's)
whose time, zone and profile win over the draft the page restores; an image uploaded from the
computer, attached at once, shown on its card and scheduled (the same file again: found in the
library, not uploaded twice); and a post page's "Duplicate"."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.async_api import expect

from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in
from tests.e2e.test_media_page import png, settled_row, upload_row

# The page's behaviour; what the database decides is checked over HTTP on both (test_compose_form.py).
pytestmark = pytest.mark.one_backend

ZONE = "America/New_York"


async def _launch_org(orgs):
    """An organization with three sandbox profiles tagged `launch`, and one other."""
    org = await orgs(credits=100)
    for slug, platform in (("acme-x", "x"), ("acme-bsky", "bluesky"), ("acme-li", "linkedin")):
        await orgs.profile(org, slug, platform, ("launch",))
    await orgs.profile(org, "acme-mastodon", "mastodon")
    return org


async def _open(page, org) -> None:
    await sign_in(page, org.email)
    await page.get_by_role("link", name="New post").click()
    await page.wait_for_url("**/dashboard/compose")


def _button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


async def test_compose_to_three_profiles_at_a_time_in_another_zone(page, http, orgs, artifacts_dir, backend) -> None:
    org = await _launch_org(orgs)
    await _open(page, org)
    # Nothing typed yet: every button is there, disabled, saying why.
    await expect(_button(page, "Schedule")).to_be_disabled()
    await expect(_button(page, "Schedule")).to_have_accessible_description("Write the post's text in Content first.")

    await page.get_by_role("textbox", name="Content", exact=True).fill("Spring launch: the new collection is here.")
    await _button(page, "Select all of launch").click()
    for slug in ("acme-x", "acme-bsky", "acme-li"):
        await expect(page.get_by_role("checkbox", name=slug, exact=True)).to_be_checked()
    await expect(page.get_by_role("checkbox", name="acme-mastodon", exact=True)).not_to_be_checked()
    await _button(page, "Add a thread item").click()
    await page.get_by_label("Thread item 1").fill("Every piece is made from recycled fibre.")
    await _button(page, "Add a thread item").click()
    await page.get_by_label("Thread item 2").fill("To be removed.")
    await _button(page, "Remove thread item 2").click()
    await expect(page.get_by_label("Thread item 2")).to_have_count(0)

    # LinkedIn takes no thread: its card says so, until its version sends none.
    linkedin = page.locator('article.card[data-profile="acme-li"]')
    await expect(linkedin.locator("li.problem code")).to_have_text(["UNSUPPORTED_FEATURE"])
    await page.get_by_role("tab", name="acme-li").click()
    await page.get_by_label("No thread for acme-li").check()
    await page.get_by_label("Text for acme-li").fill("Spring launch, for LinkedIn: the new collection is here.")

    local = (datetime.now(ZoneInfo(ZONE)) + timedelta(days=3)).replace(hour=9, minute=30, second=0, microsecond=0)
    await page.get_by_label("Schedule at").fill(local.strftime("%Y-%m-%dT%H:%M"))
    await page.get_by_label("Time zone").select_option(ZONE)
    await expect(page.locator("#compose-summary .verdict")).to_have_text("Ready for all 3 destinations")
    await expect(page.locator("#compose-summary .cost")).to_have_text("Costs 5 credits · balance 100")
    await expect(linkedin.locator(".role-content .text")).to_have_text(
        "Spring launch, for LinkedIn: the new collection is here."
    )
    await expect(_button(page, "Schedule")).to_be_enabled()
    await expect(_button(page, "Schedule")).to_have_accessible_description("")
    await check_page(page, artifacts_dir, backend, "compose-ready")

    await page.set_viewport_size({"width": 1280, "height": 800})
    await _button(page, "Schedule").click()
    await page.wait_for_url("**/dashboard/posts?notice=posts-scheduled")
    posts = {p["profile"]: p for p in (await http.get("/v1/posts", headers=org.auth)).json()["posts"]}
    assert set(posts) == {"acme-x", "acme-bsky", "acme-li"}
    expected = local.astimezone(UTC)
    for post in posts.values():
        assert post["status"] == "scheduled"
        assert datetime.fromisoformat(post["schedule_at"]) == expected
    assert [t["content"] for t in posts["acme-x"]["thread"]] == ["Every piece is made from recycled fibre."]
    assert [t["content"] for t in posts["acme-bsky"]["thread"]] == ["Every piece is made from recycled fibre."]
    assert posts["acme-li"]["thread"] == []
    assert posts["acme-li"]["content"].startswith("Spring launch, for LinkedIn")


async def test_problems_disable_the_buttons_with_their_reasons(page, http, orgs, artifacts_dir, backend) -> None:
    org = await _launch_org(orgs)
    voice = await http.put("/v1/brand-voice", json={"never_publish": ["cheap"]}, headers=org.auth)
    assert voice.status_code == 200, voice.text
    await _open(page, org)
    await page.get_by_role("checkbox", name="acme-x", exact=True).check()
    await page.get_by_role("checkbox", name="acme-bsky", exact=True).check()
    content = page.get_by_role("textbox", name="Content", exact=True)
    await content.fill("y" * 290)
    # No time chosen: Schedule says so, Publish now says what is wrong with the post.
    schedule = _button(page, "Schedule")
    await expect(schedule).to_have_accessible_description(
        "Choose a date and time in Schedule at, or Next free slot, first."
    )
    x = page.locator('article.card[data-profile="acme-x"]')
    await expect(x.locator(".role-content .count")).to_have_text("290 / 280")
    await expect(x.locator(".role-content .counter.over")).to_have_count(1)
    await expect(x.locator("li.problem code")).to_have_text(["VALIDATION_ERROR"])
    await expect(page.locator('article.card[data-profile="acme-bsky"] li.problem')).to_have_count(0)
    await expect(_button(page, "Publish now")).to_be_disabled()
    await expect(_button(page, "Publish now")).to_have_accessible_description(
        "Fix the problems of acme-x first (shown on its card)."
    )
    await page.get_by_label("Next free slot").check()
    await expect(schedule).to_be_disabled()
    await expect(schedule).to_have_accessible_description("Fix the problems of acme-x first (shown on its card).")
    await expect(_button(page, "Save draft")).to_be_enabled()  # a draft is checked when it is scheduled
    await check_page(page, artifacts_dir, backend, "compose-too-long")

    # Fixing the text enables Schedule.
    await content.fill("y" * 280)
    await expect(x.locator(".role-content .count")).to_have_text("280 / 280")
    await expect(schedule).to_be_enabled()
    await expect(schedule).to_have_accessible_description("")

    # A never-publish phrase of the brand voice is a problem of every destination.
    await content.fill("So cheap, so good.")
    for slug in ("acme-x", "acme-bsky"):
        card = page.locator(f'article.card[data-profile="{slug}"]')
        await expect(card.locator("li.problem code")).to_have_text(["NEVER_PUBLISH_PHRASE"])
    await expect(schedule).to_be_disabled()
    await expect(schedule).to_have_accessible_description(
        "Fix the problems of acme-bsky, acme-x first (shown on their cards)."
    )


async def test_save_draft_and_publish_now(page, http, orgs, worker) -> None:
    org = await _launch_org(orgs)
    await _open(page, org)
    await page.get_by_role("textbox", name="Content", exact=True).fill("Kept aside for now.")
    await page.get_by_role("checkbox", name="acme-x", exact=True).check()
    await page.get_by_role("checkbox", name="acme-mastodon", exact=True).check()
    await expect(_button(page, "Save draft")).to_be_enabled()
    await _button(page, "Save draft").click()
    await page.wait_for_url("**/dashboard/posts?notice=drafts-saved")
    drafts = (await http.get("/v1/posts", params={"status": "draft"}, headers=org.auth)).json()["posts"]
    assert sorted(p["profile"] for p in drafts) == ["acme-mastodon", "acme-x"]

    await page.get_by_role("link", name="New post").click()
    await page.get_by_role("textbox", name="Content", exact=True).fill("Out right now.")
    await page.get_by_role("checkbox", name="acme-bsky", exact=True).check()
    await expect(_button(page, "Publish now")).to_be_enabled()
    await _button(page, "Publish now").click()
    await page.wait_for_url("**/dashboard/posts?notice=posts-queued")
    (post,) = [
        p for p in (await http.get("/v1/posts", headers=org.auth)).json()["posts"] if p["profile"] == "acme-bsky"
    ]
    for _ in range(100):
        if post["status"] == "published":
            break
        await page.wait_for_timeout(100)
        post = (await http.get(f"/v1/posts/{post['id']}", headers=org.auth)).json()
    assert post["status"] == "published" and post["content"] == "Out right now."


async def test_a_session_that_ends_keeps_the_text(page, http, orgs) -> None:
    org = await _launch_org(orgs)
    await _open(page, org)
    await page.get_by_role("checkbox", name="acme-x", exact=True).check()
    await page.context.clear_cookies(name="herald_session")
    content = page.get_by_role("textbox", name="Content", exact=True)
    await content.fill("Written while the session ended.")
    await expect(page.get_by_role("link", name="Sign in again")).to_be_visible()
    await expect(_button(page, "Schedule")).to_have_accessible_description(
        "Sign in again first: your session has ended."
    )
    await page.get_by_role("link", name="Sign in again").click()
    await page.wait_for_url("**/login?next=%2Fdashboard%2Fcompose")
    await page.get_by_label("Email").fill(org.email)
    await page.get_by_label("Password").fill("correct horse battery")
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url("**/dashboard/compose")
    await expect(content).to_have_value("Written while the session ended.")
    await expect(page.get_by_role("checkbox", name="acme-x", exact=True)).to_be_checked()
    await expect(page.locator('article.card[data-profile="acme-x"]')).to_have_count(1)
    # Reloading keeps it too (this tab's storage), until the posts are created.
    await page.reload()
    await expect(content).to_have_value("Written while the session ended.")
    await _button(page, "Publish now").click()
    await page.wait_for_url("**/dashboard/posts?notice=posts-queued")
    await page.goto("/dashboard/compose")
    await expect(content).to_have_value("")


async def test_a_link_keeps_its_values_over_a_restored_draft(page, orgs) -> None:
    org = await _launch_org(orgs)
    await _open(page, org)
    # A draft kept in this tab: text, a profile and a time.
    content = page.get_by_role("textbox", name="Content", exact=True)
    await content.fill("Written before the calendar.")
    await page.get_by_role("checkbox", name="acme-x", exact=True).check()
    await page.get_by_label("Schedule at").fill("2031-01-02T10:00")
    # The calendar's free slot of acme-bsky: its time, zone and profile win; the draft gives the text.
    local = (datetime.now(ZoneInfo(ZONE)) + timedelta(days=4)).replace(hour=15, minute=0, second=0, microsecond=0)
    at = local.strftime("%Y-%m-%dT%H:%M")
    await page.goto(f"/dashboard/compose?schedule_at={at}&time_zone={ZONE}&profiles=acme-bsky")
    await expect(content).to_have_value("Written before the calendar.")
    await expect(page.get_by_label("Schedule at")).to_have_value(at)
    await expect(page.get_by_label("Time zone")).to_have_value(ZONE)
    await expect(page.get_by_role("checkbox", name="acme-bsky", exact=True)).to_be_checked()
    await expect(page.get_by_role("checkbox", name="acme-x", exact=True)).not_to_be_checked()
    await expect(page.locator("article.card")).to_have_count(1)
    await expect(page.locator('article.card[data-profile="acme-bsky"]')).to_have_count(1)
    await expect(_button(page, "Schedule")).to_be_enabled()
    # A link with its own text is a new post: nothing of the draft comes back.
    await page.goto("/dashboard/compose?content=Fresh%20words&profiles=acme-li")
    await expect(content).to_have_value("Fresh words")
    await expect(page.get_by_label("Schedule at")).to_have_value("")
    await expect(page.get_by_role("checkbox", name="acme-x", exact=True)).not_to_be_checked()
    await expect(page.get_by_role("checkbox", name="acme-li", exact=True)).to_be_checked()


async def test_an_image_from_the_computer_is_uploaded_attached_and_scheduled(
    page, http, orgs, stack, tmp_path, artifacts_dir, backend
) -> None:
    org = await _launch_org(orgs)
    await _open(page, org)
    # The page may reach the storage's origin (the uploads' PUT), as the media page may.
    policy = (await page.request.get("/dashboard/compose")).headers["content-security-policy"]
    assert f"connect-src 'self' {stack.storage_url};" in policy
    await page.get_by_role("textbox", name="Content", exact=True).fill("The new collection, in one picture.")
    await page.get_by_role("checkbox", name="acme-x", exact=True).check()
    await expect(page.locator("#no-media")).to_be_visible()

    sunset = tmp_path / "sunset.png"
    sunset.write_bytes(png(800, 600, (230, 120, 40)))
    storage: list[str] = []
    page.on("request", lambda r: storage.append(r.method) if r.url.startswith(stack.storage_url) else None)
    await page.get_by_label("Upload", exact=True).set_input_files(str(sunset))
    # Its progress, named by the file; then it is in the library, attached to this post.
    await expect(upload_row(page, "sunset.png").get_by_role("progressbar")).to_have_count(1)
    assert await settled_row(page, "sunset.png") == ("uploaded", "", "Uploaded.")
    assert await upload_row(page, "sunset.png").get_by_role("progressbar").evaluate("bar => bar.value") == 100
    assert "PUT" in storage
    attached = page.get_by_role("checkbox", name="sunset.png", exact=True)
    await expect(attached).to_be_checked()
    await expect(attached).to_have_accessible_description(re.compile(r"^image, 800 × 600 · med_"))
    await expect(page.locator("#no-media")).to_be_hidden()
    media_id = await attached.get_attribute("value")
    # The preview follows: the card shows the image, its thumbnail under the page's policy.
    tile = page.locator(f'article.card[data-profile="acme-x"] .tile[data-media-id="{media_id}"]')
    await expect(tile).to_contain_text("IMAGE 800×600")
    picture = tile.locator("img")
    await picture.evaluate("img => img.decode()")
    assert await picture.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [320, 240]
    await check_page(page, artifacts_dir, backend, "compose-upload")

    await page.set_viewport_size({"width": 1280, "height": 800})
    local = (datetime.now(ZoneInfo(ZONE)) + timedelta(days=2)).replace(hour=11, minute=0, second=0, microsecond=0)
    await page.get_by_label("Schedule at").fill(local.strftime("%Y-%m-%dT%H:%M"))
    await page.get_by_label("Time zone").select_option(ZONE)
    await expect(_button(page, "Schedule")).to_be_enabled()
    await _button(page, "Schedule").click()
    await page.wait_for_url("**/dashboard/posts?notice=posts-scheduled")
    (post,) = (await http.get("/v1/posts", headers=org.auth)).json()["posts"]
    assert (post["profile"], post["status"], post["media_ids"]) == ("acme-x", "scheduled", [media_id])

    # The same file again, in a new post: found by its SHA-256, nothing uploaded, the library's
    # media attached.
    storage.clear()
    await page.get_by_role("link", name="New post").click()
    await page.wait_for_url("**/dashboard/compose")
    await expect(page.get_by_role("checkbox", name="sunset.png", exact=True)).not_to_be_checked()
    await page.get_by_label("Upload", exact=True).set_input_files(str(sunset))
    state, _, text = await settled_row(page, "sunset.png")
    assert (state, text) == ("duplicate", "Already in the library as sunset.png: not uploaded again.")
    await expect(page.get_by_role("checkbox", name="sunset.png", exact=True)).to_be_checked()
    await expect(page.locator('input[name="media_ids"]')).to_have_count(1)
    assert "PUT" not in storage
    library = (await http.get("/v1/media", headers=org.auth)).json()
    assert [m["media_id"] for m in library["media"]] == [media_id]


async def test_a_refused_file_is_shown_and_attaches_nothing(page, orgs, tmp_path) -> None:
    org = await _launch_org(orgs)
    await _open(page, org)
    notes = tmp_path / "notes.txt"
    notes.write_text("not a picture")
    await page.get_by_label("Upload", exact=True).set_input_files(str(notes))
    state, code, _ = await settled_row(page, "notes.txt")
    assert (state, code) == ("failed", "UNSUPPORTED_MEDIA_TYPE")
    await expect(page.locator('input[name="media_ids"]')).to_have_count(0)
    await expect(page.locator("#no-media")).to_be_visible()


async def test_duplicate_opens_compose_with_the_post(page, http, orgs) -> None:
    org = await _launch_org(orgs)
    body = {
        "content": "Once more, with feeling.",
        "profiles": ["acme-bsky"],
        "thread": [{"content": "The second part."}],
        "first_comment": "Links below.",
        "schedule_at": (datetime.now(UTC) + timedelta(days=2)).isoformat(),
    }
    created = await http.post("/v1/posts", json=body, headers=org.auth)
    assert created.status_code == 201, created.text
    post_id = created.json()["posts"][0]["id"]
    await sign_in(page, org.email)
    # A draft kept in this tab does not come back over the copy.
    await page.goto("/dashboard/compose")
    await page.get_by_role("textbox", name="Content", exact=True).fill("An unrelated draft.")
    await page.get_by_role("checkbox", name="acme-x", exact=True).check()
    await page.goto(f"/dashboard/posts/{post_id}")
    await page.get_by_role("link", name="Duplicate", exact=True).click()
    await page.wait_for_url(f"**/dashboard/compose?from={post_id}")
    await expect(page.get_by_role("textbox", name="Content", exact=True)).to_have_value("Once more, with feeling.")
    await expect(page.get_by_label("Thread item 1")).to_have_value("The second part.")
    await expect(page.get_by_label("First comment", exact=True)).to_have_value("Links below.")
    await expect(page.get_by_role("checkbox", name="acme-bsky", exact=True)).to_be_checked()
    await expect(page.get_by_role("checkbox", name="acme-x", exact=True)).not_to_be_checked()
    await expect(page.get_by_label("Schedule at")).to_have_value("")
    await expect(page.locator('article.card[data-profile="acme-bsky"]')).to_have_count(1)
    await expect(_button(page, "Publish now")).to_be_enabled()
    await expect(_button(page, "Schedule")).to_have_accessible_description(
        "Choose a date and time in Schedule at, or Next free slot, first."
    )
