"""The inbox and a post's comments in Chromium (docs/dashboard.md, "Notifications" and "Comments";
docs/teams.md, "Comments and notifications"), the notifications made by the session's shared worker
from the events changes emit: a contributor's post puts "Notifications (1)" in the approver's
navigation, the inbox lists "Waiting for your approval…" at the organization's time, its link opens
the post, "Mark read" and "Mark all read" bring the count to 0, "Unread only" and the keyset pages
walk it; a member turns the inbox off for a kind and the next such event is not listed, email
disabled with its reason while this Herald sends no mail, the saved email choices kept. On a post's
page: a comment mentioning another member (escaped, the mention marked) lands in their inbox as
"mentioned" and its link opens the post; an empty one is refused in the core's words with what was
typed; a viewer sees the form disabled with the reason, and is refused FORBIDDEN when forcing it.
Over plain HTTP: the forms' CSRF check, and a refused page token."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from playwright.async_api import expect

from tests.dashboard_forms import form_token, signed_in
from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in

# What the pages show depends on the templates and the core's answers, not on SQL (the core's
# notifications are tested on both databases in tests/facades/test_notes.py).
pytestmark = [pytest.mark.one_backend, pytest.mark.usefixtures("worker")]

ORG_ZONE = "Asia/Tokyo"
LATER = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0).isoformat()
PER_PAGE = 25  # facades/web/notifications_pages.py PER_PAGE


def _button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


def _nav(page):
    return page.get_by_role("navigation", name="Dashboard").get_by_role("link", name="Notifications")


async def _team(http, orgs, *roles: str):
    org = await orgs()
    await orgs.profile(org, "inbox-x", "x")
    zoned = await http.patch("/v1/organization", json={"time_zone": ORG_ZONE}, headers=org.auth)
    assert zoned.status_code == 200, zoned.text
    return org, *[await orgs.member(org, role) for role in roles]


async def _post(http, who, content: str) -> str:
    made = await http.post(
        "/v1/posts", json={"content": content, "profiles": ["inbox-x"], "schedule_at": LATER}, headers=who.auth
    )
    assert made.status_code == 201, made.text
    return made.json()["posts"][0]["id"]


async def _told(http, who, kind: str, count: int = 1) -> list[dict]:
    """`who`'s notifications of `kind` once there are `count` (the worker makes them)."""
    for _ in range(300):
        listed = await http.get("/v1/notifications", params={"page_size": 100}, headers=who.auth)
        found = [n for n in listed.json()["notifications"] if n["kind"] == kind]
        if len(found) >= count:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"{who.email} was not told {count} {kind}")


async def test_an_approvers_inbox_counts_links_marks_read_and_pages(page, http, orgs, artifacts_dir, backend) -> None:
    org, contributor = await _team(http, orgs, "contributor")
    await sign_in(page, org.email)
    await expect(_nav(page)).to_have_accessible_name("Notifications")
    await expect(page.locator("#nav-notifications")).to_have_attribute("data-unread", "0")

    post_id = await _post(http, contributor, "Our <b>spring</b> menu is out.")
    await _told(http, org, "approval_requested")
    await page.reload()
    await expect(_nav(page)).to_have_accessible_name("Notifications (1 unread)")
    await expect(_nav(page).locator('[aria-hidden="true"]')).to_have_text("(1)")  # what the eye reads
    await _nav(page).click()
    await page.wait_for_url("**/dashboard/notifications")
    await expect(_nav(page)).to_have_attribute("aria-current", "page")
    item = page.locator("#notifications > li")
    await expect(item).to_have_count(1)
    await expect(item).to_have_attribute("data-unread", "true")
    await expect(item).to_contain_text("unread")
    link = item.get_by_role("link", name="Waiting for your approval: inbox-x: “Our <b>spring</b> menu is out.”")
    await expect(link).to_have_attribute("href", f"/dashboard/posts/{post_id}")
    await expect(item.locator("time")).to_contain_text(f"({ORG_ZONE})")
    await expect(page.locator("#unread-count")).to_have_text("1 unread.")
    await check_page(page, artifacts_dir, backend, "notifications-unread")

    # Its link opens the post, waiting for approval; it is still unread until marked.
    await link.click()
    await page.wait_for_url(f"**/dashboard/posts/{post_id}")
    await expect(page.get_by_role("heading", name="Waiting for approval")).to_be_visible()
    await expect(_nav(page)).to_have_accessible_name("Notifications (1 unread)")
    await _nav(page).click()
    await page.get_by_role("link", name="Unread only").click()
    await page.wait_for_url("**/dashboard/notifications?show=unread")
    await expect(page.get_by_role("link", name="Unread only")).to_have_attribute("aria-current", "page")
    await item.get_by_role("button", name="Mark read").click()
    await page.wait_for_url("**/dashboard/notifications?show=unread&notice=notification-read")
    await expect(page.get_by_role("status")).to_have_text("The notification is marked read.")
    await expect(_nav(page)).to_have_accessible_name("Notifications")
    await expect(page.locator("#nav-notifications")).to_have_attribute("data-unread", "0")
    await expect(page.locator("#no-notifications")).to_have_text("No unread notifications.")
    await expect(_button(page, "Mark all read")).to_have_count(0)
    await page.get_by_role("link", name="All", exact=True).click()
    await expect(item).to_have_attribute("data-unread", "false")
    await expect(item.get_by_role("button", name="Mark read")).to_have_count(0)
    inbox = (await http.get("/v1/notifications", headers=org.auth)).json()
    assert inbox["unread_count"] == 0 and inbox["notifications"][0]["read_at"]

    # A page and a half: 25 newest first, then the rest; Mark all read brings the count to 0.
    for n in range(PER_PAGE):
        await _post(http, contributor, f"Post number {n}.")
    await _told(http, org, "approval_requested", PER_PAGE + 1)
    await page.reload()
    await expect(_nav(page)).to_have_accessible_name(f"Notifications ({PER_PAGE} unread)")
    await expect(item).to_have_count(PER_PAGE)
    for shown in await item.all_inner_texts():
        assert "Post number" in shown, shown
    await page.get_by_role("link", name="Next page").click()
    await expect(item).to_have_count(1)
    await expect(item).to_contain_text("spring")
    await expect(page.get_by_role("link", name="Next page")).to_have_count(0)
    await page.get_by_role("link", name="First page").click()
    await expect(item).to_have_count(PER_PAGE)
    await _button(page, "Mark all read").click()
    await page.wait_for_url("**/dashboard/notifications?notice=notifications-read")
    await expect(page.get_by_role("status")).to_have_text("Every notification is marked read.")
    await expect(_nav(page)).to_have_accessible_name("Notifications")
    await expect(page.locator("#unread-count")).to_have_text("Nothing unread.")
    assert (await http.get("/v1/notifications", headers=org.auth)).json()["unread_count"] == 0
    await check_page(page, artifacts_dir, backend, "notifications-read")


async def test_a_kind_turned_off_for_the_inbox_is_no_longer_listed(page, http, orgs, artifacts_dir, backend) -> None:
    org, contributor = await _team(http, orgs, "contributor")
    first, second, third = [await _post(http, contributor, f"Post {name}.") for name in ("one", "two", "three")]
    approved = await http.post(f"/v1/posts/{first}/approve", json={}, headers=org.auth)
    assert approved.status_code == 200, approved.text
    await _told(http, contributor, "post_approved")

    await sign_in(page, contributor.email)
    await page.goto("/dashboard/notifications")
    approvals = page.get_by_role("group", name="A post you wrote was approved")
    rejections = page.get_by_role("group", name="A post you wrote was rejected")
    await expect(approvals.get_by_label("Inbox")).to_be_checked()
    await expect(rejections.get_by_label("Email")).to_be_checked()  # the kind's default
    # No mail server in this stack: the email boxes are disabled, with the reason.
    email = approvals.get_by_label("Email")
    await expect(email).to_be_disabled()
    await expect(email).to_have_accessible_description(
        "Email is not available: this Herald has no mail server configured, so nothing is emailed. "
        "Your email choices are kept as they are for when it has one."
    )
    await approvals.get_by_label("Inbox").uncheck()
    await _button(page, "Save notification settings").click()
    await page.wait_for_url("**/dashboard/notifications?notice=notification-settings-saved")
    await expect(page.get_by_role("status")).to_contain_text("The notification settings are saved")
    await expect(approvals.get_by_label("Inbox")).not_to_be_checked()
    await expect(rejections.get_by_label("Inbox")).to_be_checked()
    saved = (await http.get("/v1/notification-settings", headers=contributor.auth)).json()
    chosen = {c["kind"]: (c["inbox"], c["email"]) for c in saved["channels"]}
    # Only the inbox box changed; the email choices (disabled) are kept as they were.
    assert chosen["post_approved"] == (False, False) and chosen["post_rejected"] == (True, True)
    assert all(chosen[kind] == (True, True) for kind in chosen if kind not in ("post_approved", "post_rejected"))
    await check_page(page, artifacts_dir, backend, "notifications-settings-saved")

    # The next approval is not listed; the rejection after it is.
    for post_id, verdict in ((second, "approve"), (third, "reject")):
        reviewed = await http.post(f"/v1/posts/{post_id}/{verdict}", json={"comment": "Seen."}, headers=org.auth)
        assert reviewed.status_code == 200, reviewed.text
    await _told(http, contributor, "post_rejected")
    await page.reload()
    items = page.locator("#notifications > li")
    await expect(items).to_have_count(2)
    await expect(items.nth(0)).to_contain_text(f"{org.email} rejected your post (Seen.): inbox-x: “Post three.”")
    await expect(items.nth(1)).to_contain_text("approved your post: inbox-x: “Post one.”")
    await expect(page.get_by_text("Post two.")).to_have_count(0)
    await expect(_nav(page)).to_have_accessible_name("Notifications (2 unread)")


async def test_a_comment_mentions_a_member_who_finds_it_in_their_inbox(
    browser, stack, page, http, orgs, artifacts_dir, backend
) -> None:
    org, editor = await _team(http, orgs, "editor")
    post_id = await _post(http, org, "A post to talk about.")
    await sign_in(page, org.email)
    await page.goto(f"/dashboard/posts/{post_id}")
    await expect(page.locator("#no-comments")).to_have_text("No comments yet.")

    # Refused in the core's words, what was typed kept.
    box = page.get_by_label("Add a comment")
    await box.fill("   ")
    await _button(page, "Post comment").click()
    alert = page.locator("#comment-error")
    await expect(alert).to_have_attribute("data-code", "VALIDATION_ERROR")
    await expect(alert).to_have_text("Not added (VALIDATION_ERROR). Body must not be empty.")
    await expect(box).to_have_value("   ")
    await check_page(page, artifacts_dir, backend, "post-comment-refused")

    said = f"Can you check the tone, @{editor.email.upper()}? <b>Not bold</b>"
    await box.fill(said)
    await _button(page, "Post comment").click()
    await page.wait_for_url(f"**/dashboard/posts/{post_id}?notice=comment-added#comments")
    comment = page.locator("#comment-list > li")
    await expect(comment).to_have_count(1)
    await expect(comment.locator("[data-comment-body]")).to_have_text(said)  # escaped: the tags as text
    await expect(comment.locator("b")).to_have_count(0)
    await expect(comment.locator("[data-mention]")).to_have_text(f"@{editor.email.upper()}")
    await expect(comment).to_contain_text(org.email)
    await expect(comment.locator("time")).to_contain_text(f"({ORG_ZONE})")
    await expect(comment).to_contain_text(f"Mentions {editor.email}")
    await expect(box).to_have_value("")
    await check_page(page, artifacts_dir, backend, "post-commented")

    # The mentioned member's inbox says so; its link opens the post with the comment.
    context = await browser.new_context(base_url=stack.base_url)
    try:
        theirs = await context.new_page()
        await sign_in(theirs, editor.email)
        await expect(_nav(theirs)).to_have_accessible_name("Notifications (1 unread)")
        await _nav(theirs).click()
        told = theirs.locator('#notifications > li[data-kind="mentioned"]')
        await expect(told).to_contain_text(f"{org.email} mentioned you: “Can you check the tone")
        await told.get_by_role("link").click()
        await theirs.wait_for_url(f"**/dashboard/posts/{post_id}")
        await expect(theirs.locator("#comment-list > li")).to_contain_text("Can you check the tone")
    finally:
        await context.close()


async def test_a_viewer_sees_the_comment_form_disabled_and_is_refused_when_forcing_it(
    page, stack, http, orgs, artifacts_dir, backend
) -> None:
    org, contributor, viewer = await _team(http, orgs, "contributor", "viewer")
    post_id = await _post(http, contributor, "Waiting, with a review form beside the comments.")
    noted = await http.post(f"/v1/posts/{post_id}/comments", json={"body": "Looks fine to me."}, headers=org.auth)
    assert noted.status_code == 201, noted.text
    await sign_in(page, viewer.email)
    await page.goto(f"/dashboard/posts/{post_id}")
    await expect(page.locator("#comment-list > li")).to_contain_text("Looks fine to me.")
    why = "Your role (viewer) cannot comment: owners, admins, editors and contributors can."
    await expect(page.get_by_label("Add a comment")).to_be_disabled()
    await expect(_button(page, "Post comment")).to_be_disabled()
    await expect(_button(page, "Post comment")).to_have_accessible_description(why)
    # The review's "Comment" is another field, disabled for a viewer with its own reason.
    await expect(page.get_by_label("Comment", exact=True)).to_have_attribute("name", "comment")
    await expect(page.get_by_label("Add a comment")).to_have_attribute("name", "body")
    await check_page(page, artifacts_dir, backend, "post-comment-disabled")

    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as forced:
        token = await signed_in(forced, viewer.email, page=f"/dashboard/posts/{post_id}")
        refused = await forced.post(f"/dashboard/posts/{post_id}/comments", data={"csrf_token": token, "body": "Hi"})
    assert refused.status_code == 403
    assert 'data-code="FORBIDDEN"' in refused.text and "compose" in refused.text
    listed = (await http.get(f"/v1/posts/{post_id}/comments", headers=org.auth)).json()["comments"]
    assert [c["body"] for c in listed] == ["Looks fine to me."]


async def test_the_forms_need_their_csrf_token_and_a_bad_page_token_is_refused(stack, http, orgs) -> None:
    org, contributor = await _team(http, orgs, "contributor")
    post_id = await _post(http, contributor, "Post for the forms.")
    await _told(http, org, "approval_requested")
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as browser_like:
        token = await signed_in(browser_like, org.email, page="/dashboard/notifications")
        forms = {
            "/dashboard/notifications/read": {"all": "true"},
            "/dashboard/notifications/settings": {"kind": "approval_requested"},
            f"/dashboard/posts/{post_id}/comments": {"body": "forged"},
        }
        for path, fields in forms.items():
            for wrong in (None, "", token + "x"):
                sent = fields | ({} if wrong is None else {"csrf_token": wrong})
                refused = await browser_like.post(path, data=sent)
                assert refused.status_code == 403 and "Form expired" in refused.text, path
        bad = await browser_like.get("/dashboard/notifications", params={"page": "not-a-page-token"})
        assert bad.status_code == 400 and bad.text.count('role="alert"') == 1
        assert 'data-code="VALIDATION_ERROR"' in bad.text
        # A kind the core does not know: refused in its words, nothing changed.
        unknown = await browser_like.post(
            "/dashboard/notifications/settings", data={"csrf_token": form_token(bad), "kind": "gossip"}
        )
        assert unknown.status_code == 400 and 'data-code="VALIDATION_ERROR"' in unknown.text
    inbox = (await http.get("/v1/notifications", headers=org.auth)).json()
    assert inbox["unread_count"] == 1
    settings = (await http.get("/v1/notification-settings", headers=org.auth)).json()["channels"]
    assert all(c["inbox"] for c in settings)
    assert (await http.get(f"/v1/posts/{post_id}/comments", headers=org.auth)).json()["comments"] == []
