"""The members page and the invitation link's page in Chromium (docs/dashboard.md, "Members";
docs/teams.md, "Invitations"), with two browser contexts: an owner invites an email as
contributor on /dashboard/members and reads the link off the page; a visitor opens it in another
context, creates the account and lands on the dashboard, where compose saves a draft while the
settings form, which needs manage_members, is refused in the FORBIDDEN refusal's words; the owner
sees them listed, changes their role, cannot demote the last owner, and removes them, after which
the visitor's next page is the sign-in page. Then: used, expired, revoked and unknown links; an
account's sign-in through the link, a signed-in invitee's "Join", a visitor signed in as another
email refused; a member who may not manage members sees no forms. Over plain HTTP: the forms' CSRF check, a short password, the
account lock of signing in through the link, and a join refused after the sign-in."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.async_api import expect
from sqlalchemy import update

from core.db.models import invitations
from tests.dashboard_forms import form_token
from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import PASSWORD, sign_in

# What the pages show depends on the templates and the core's answers, not on SQL.
pytestmark = pytest.mark.one_backend

NEW_PASSWORD = "a new member's long password"
ABSOLUTE_URL = re.compile(r"https?://\S+")
ORG_NAME = "Acme Bakery"


def _button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


async def _context_page(browser, stack):
    context = await browser.new_context(base_url=stack.base_url)
    return context, await context.new_page()


async def _named_org(http, orgs):
    org = await orgs()
    named = await http.patch("/v1/organization", json={"name": ORG_NAME}, headers=org.auth)
    assert named.status_code == 200, named.text
    return org


async def _invite_in_page(page, email: str, role: str) -> str:
    """Invites `email` from the members page; the link: the first absolute URL the page shows."""
    await page.get_by_label("Email", exact=True).fill(email)
    await page.get_by_label("Role", exact=True).select_option(role)
    await _button(page, "Invite").click()
    await page.wait_for_url("**/dashboard/members/invitations")
    text = await page.locator("body").inner_text()
    link = ABSOLUTE_URL.search(text).group(0)
    assert link == (await page.locator("#invitation-link").text_content()).strip()
    return link


async def _invite_over_api(http, org, email: str, role: str = "viewer") -> str:
    created = await http.post("/v1/invitations", json={"email": email, "role": role}, headers=org.auth)
    assert created.status_code == 201, created.text
    return created.json()["url"]


async def _members(http, org) -> dict[str, str]:
    listed = (await http.get("/v1/members", headers=org.auth)).json()["members"]
    return {m["email"]: m["role"] for m in listed}


async def test_an_invited_contributor_joins_acts_in_the_role_and_is_removed(
    browser, stack, http, orgs, artifacts_dir, backend
) -> None:
    org = await _named_org(http, orgs)
    await orgs.profile(org, "team-x", "x")
    invitee = f"new-{org.slug}@example.com"
    owner_context, owner = await _context_page(browser, stack)
    guest_context, guest = await _context_page(browser, stack)
    try:
        # The owner, alone, marked as the caller, invites an email as contributor.
        await sign_in(owner, org.email)
        await owner.get_by_role("link", name="Members").click()
        await owner.wait_for_url("**/dashboard/members")
        await expect(owner.get_by_role("link", name="Members")).to_have_attribute("aria-current", "page")
        mine = owner.locator("#members > li")
        await expect(mine).to_have_count(1)
        await expect(mine.get_by_role("heading")).to_have_text(f"{org.email} you")
        await expect(owner.locator("#no-invitations")).to_be_visible()
        offered = (
            await owner.get_by_label("Role", exact=True)
            .locator("option")
            .evaluate_all("options => options.map(o => o.value)")
        )
        assert offered == ["owner", "admin", "editor", "contributor", "viewer"]  # the core's catalog, best first
        link = await _invite_in_page(owner, invitee, "contributor")
        assert link.startswith(f"{stack.base_url}/invitations/hinv_")
        await expect(owner.locator("#invitation-emailed")).to_have_attribute("data-emailed", "false")
        await expect(owner.locator("#invitation-emailed")).to_contain_text(f"Send the link to {invitee} yourself")
        await expect(owner.get_by_role("button", name="Copy")).to_be_visible()
        opened = owner.locator("#invitations > li")
        await expect(opened).to_have_count(1)
        await expect(opened).to_contain_text(invitee)
        await expect(opened).to_contain_text("contributor")
        await expect(opened).to_have_attribute("data-state", "pending")
        await expect(opened.get_by_role("button", name=f"Revoke the invitation of {invitee}")).to_be_visible()
        await check_page(owner, artifacts_dir, backend, "a11y-members-invited")

        # The visitor opens the link: who invites, with which role, until when; nothing but
        # the dashboard's own origin is loaded, and no Referer can carry the token away.
        loaded: list[str] = []
        guest.on("request", lambda r: loaded.append(r.url))
        opened_link = await guest.goto(link)
        assert opened_link.status == 200
        assert opened_link.headers["referrer-policy"] == "no-referrer"
        assert {urlsplit(url).netloc for url in loaded} == {urlsplit(stack.base_url).netloc}
        await expect(guest.get_by_role("heading", level=1)).to_have_text(f"Join {ORG_NAME} on Herald")
        summary = guest.locator("#invitation-summary")
        for words in (ORG_NAME, org.slug, invitee, "contributor", "writes drafts"):
            await expect(summary).to_contain_text(words)
        await expect(guest.locator("#invitation-expiry")).to_contain_text("(UTC)")
        await expect(guest.get_by_label("Email")).to_have_value(invitee)
        await expect(guest.get_by_label("Email")).not_to_be_editable()
        await check_page(guest, artifacts_dir, backend, "a11y-invitation-sign-up")
        await guest.get_by_label("Password").fill(NEW_PASSWORD)
        await _button(guest, "Create account and join").click()
        await guest.wait_for_url("**/dashboard")
        await expect(guest.locator("#organization")).to_have_text(org.slug)
        session = {c["name"]: c for c in await guest_context.cookies()}["herald_session"]
        assert session["httpOnly"] and session["sameSite"] == "Lax" and session["value"].startswith("hss_")

        # As a contributor: a draft is saved, a scheduled post refused in the core's words.
        await guest.get_by_role("link", name="New post").click()
        await guest.wait_for_url("**/dashboard/compose")
        await guest.get_by_role("textbox", name="Content", exact=True).fill("A draft by the new contributor.")
        await guest.get_by_role("checkbox", name="team-x", exact=True).check()
        await expect(_button(guest, "Save draft")).to_be_enabled()
        await _button(guest, "Save draft").click()
        await guest.wait_for_url("**/dashboard/posts?notice=drafts-saved")
        drafts = (await http.get("/v1/posts", params={"status": "draft"}, headers=org.auth)).json()["posts"]
        assert [p["content"] for p in drafts] == ["A draft by the new contributor."]
        # What the role lacks is refused in the core's words: the organization's settings need
        # manage_members, and the members page offers a contributor no forms.
        await guest.get_by_role("link", name="Settings").click()
        await guest.get_by_label("Name").fill("Renamed by a contributor")
        await _button(guest, "Save settings").click()
        await expect(guest.get_by_role("alert")).to_have_text(
            "your role (contributor) does not allow this: it needs the 'manage_members' permission"
        )
        await guest.goto("/dashboard/members")
        await expect(guest.locator("#members-read-only")).to_contain_text("Your role (contributor)")
        await expect(_button(guest, "Invite")).to_have_count(0)
        assert (await http.get("/v1/organization", headers=org.auth)).json()["name"] == ORG_NAME

        # The owner's page lists the new member; the invitation is used.
        await owner.goto("/dashboard/members")
        row = owner.locator("#members > li", has_text=invitee)
        await expect(row.locator("dd[data-role]")).to_have_text("contributor")
        await expect(owner.locator("#no-invitations")).to_be_visible()
        await check_page(owner, artifacts_dir, backend, "a11y-members")

        # A role changed; the last owner kept, in the core's words.
        await owner.get_by_label(f"Make {invitee}", exact=True).select_option("editor")
        await _button(owner, f"Change role of {invitee}").click()
        await owner.wait_for_url("**/dashboard/members?notice=role-changed")
        await expect(owner.get_by_role("status")).to_contain_text("The role is changed")
        await expect(owner.locator("#members > li", has_text=invitee).locator("dd[data-role]")).to_have_text("editor")
        await owner.get_by_label(f"Make {org.email}", exact=True).select_option("admin")
        await _button(owner, f"Change role of {org.email}").click()
        alert = owner.locator("#members-error")
        await expect(alert).to_have_attribute("data-code", "LAST_OWNER")
        await expect(alert).to_have_text("This is the organization's last owner: make another member an owner first.")
        await check_page(owner, artifacts_dir, backend, "a11y-members-refused")
        assert await _members(http, org) == {org.email: "owner", invitee: "editor"}

        # Removed: the member's next page load is signed out.
        await _button(owner, f"Remove {invitee}").click()
        await owner.wait_for_url("**/dashboard/members?notice=member-removed")
        await expect(owner.locator("#members > li")).to_have_count(1)
        assert await _members(http, org) == {org.email: "owner"}
        await guest.goto("/dashboard/compose")
        assert urlsplit(guest.url).path == "/login"
    finally:
        await owner_context.close()
        await guest_context.close()


async def test_used_expired_revoked_and_unknown_links_each_say_so(
    browser, stack, http, orgs, engine, artifacts_dir, backend
) -> None:
    org = await _named_org(http, orgs)
    owner_context, owner = await _context_page(browser, stack)
    guest_context, guest = await _context_page(browser, stack)
    try:
        used = await _invite_over_api(http, org, f"used-{org.slug}@example.com")
        await guest.goto(used)
        await guest.get_by_label("Password").fill(NEW_PASSWORD)
        await _button(guest, "Create account and join").click()
        await guest.wait_for_url("**/dashboard")
        await guest_context.clear_cookies()

        expired = await _invite_over_api(http, org, f"late-{org.slug}@example.com")
        async with engine.begin() as conn:
            await conn.execute(
                update(invitations)
                .where(invitations.c.email == f"late-{org.slug}@example.com")
                .values(expires_at=datetime.now(UTC) - timedelta(minutes=1))
            )
        revoked_email = f"gone-{org.slug}@example.com"
        revoked = await _invite_over_api(http, org, revoked_email)
        await sign_in(owner, org.email)
        await owner.goto("/dashboard/members")
        expired_row = owner.locator("#invitations > li", has_text=f"late-{org.slug}@example.com")
        await expect(expired_row).to_have_attribute("data-state", "expired")
        await expect(expired_row).to_contain_text("Expired")
        await _button(owner, f"Revoke the invitation of {revoked_email}").click()
        await owner.wait_for_url("**/dashboard/members?notice=invitation-revoked")
        await expect(owner.locator("#invitations > li", has_text=revoked_email)).to_have_count(0)

        closed = {
            "used": (used, "This invitation was already used"),
            "expired": (expired, "This invitation has expired"),
            "revoked": (revoked, "This invitation was revoked"),
        }
        for name, (link, heading) in closed.items():
            answer = await guest.goto(link)
            assert answer.status == 410, name
            assert answer.headers["referrer-policy"] == "no-referrer"
            await expect(guest.get_by_role("heading", level=1)).to_have_text(heading)
            await expect(guest.get_by_role("alert")).to_contain_text(f"Ask someone at {ORG_NAME} to invite you again.")
            await expect(guest.get_by_label("Password")).to_have_count(0)
        await check_page(guest, artifacts_dir, backend, "a11y-invitation-closed")
        unknown = await guest.goto(f"/invitations/hinv_{uuid.uuid4().hex}")
        assert unknown.status == 404
        await expect(guest.get_by_role("heading", level=1)).to_have_text("No such invitation")
    finally:
        await owner_context.close()
        await guest_context.close()


async def test_an_account_signs_in_or_joins_through_the_link_and_only_with_the_invited_email(
    browser, stack, http, orgs, artifacts_dir, backend
) -> None:
    org = await _named_org(http, orgs)
    elsewhere, signed_in_one, stranger = await orgs(), await orgs(), await orgs()
    context, page = await _context_page(browser, stack)
    try:
        # An email with an account: sign in through the link (a wrong password refused as
        # /login refuses it, the form kept), and it joins with the role.
        link = await _invite_over_api(http, org, elsewhere.email, "viewer")
        await page.goto(link)
        await expect(page.get_by_role("heading", name="Sign in to join")).to_be_visible()
        await expect(page.get_by_label("Email")).to_have_value(elsewhere.email)
        await page.get_by_label("Password").fill("not the password")
        await _button(page, "Sign in and join").click()
        await expect(page.get_by_role("alert")).to_have_text("The email or password is not right.")
        await expect(page.get_by_label("Email")).to_have_value(elsewhere.email)
        await check_page(page, artifacts_dir, backend, "a11y-invitation-sign-in-refused")
        await page.get_by_label("Password").fill(PASSWORD)
        await _button(page, "Sign in and join").click()
        await page.wait_for_url("**/dashboard")
        await expect(page.locator("#organization")).to_have_text(org.slug)  # the session moved there
        assert (await _members(http, org))[elsewhere.email] == "viewer"
        await context.clear_cookies()

        # Already signed in as the invited email: one button.
        link = await _invite_over_api(http, org, signed_in_one.email, "editor")
        await sign_in(page, signed_in_one.email)
        await page.goto(link)
        await _button(page, f"Join {ORG_NAME}").click()
        await page.wait_for_url("**/dashboard")
        await expect(page.locator("#organization")).to_have_text(org.slug)
        assert (await _members(http, org))[signed_in_one.email] == "editor"

        # Signed in as someone else: said so, no way to join; the core refuses a forced join.
        link = await _invite_over_api(http, org, stranger.email)
        await page.goto(link)
        await expect(page.locator("#invitation-other")).to_contain_text(
            f"You are signed in as {signed_in_one.email}, and this invitation is for {stranger.email}"
        )
        await expect(page.get_by_role("button", name=re.compile("^Join"))).to_have_count(0)
        await check_page(page, artifacts_dir, backend, "a11y-invitation-other-account")
        token = await page.locator("input[name=csrf_token]").get_attribute("value")
        forced = await page.request.post(f"{urlsplit(link).path}/join", form={"csrf_token": token})
        assert forced.status == 403
        assert f"This invitation is for {stranger.email}" in await forced.text()
        assert stranger.email not in await _members(http, org)
        await _button(page, "Sign out").click()
        await page.wait_for_url(link)
        await expect(page.get_by_role("heading", name="Sign in to join")).to_be_visible()
        await expect(page.get_by_label("Email")).to_have_value(stranger.email)
    finally:
        await context.close()


async def test_a_member_who_may_not_manage_members_sees_no_forms(page, orgs) -> None:
    org = await orgs()
    viewer = await orgs.member(org, "viewer")
    await sign_in(page, viewer.email)
    await page.goto("/dashboard/members")
    await expect(page.locator("#members > li")).to_have_count(2)
    await expect(page.locator("#members-read-only")).to_have_text(
        "Your role (viewer) lets you see who is here. Members whose role is owner or admin invite, "
        "change and remove members."
    )
    for name in ("Invite", f"Remove {org.email}", f"Change role of {org.email}"):
        await expect(_button(page, name)).to_have_count(0)
    await expect(page.locator("#invitations")).to_have_count(0)


async def test_the_forms_check_their_csrf_token_and_a_short_password_is_refused_in_words(stack, http, orgs) -> None:
    org = await orgs()
    invitee = f"csrf-{org.slug}@example.com"
    link = await _invite_over_api(http, org, invitee)
    path = urlsplit(link).path
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as visitor:
        token = form_token(await visitor.get(path))
        for sent in ({}, {"csrf_token": "forged"}):
            refused = await visitor.post(f"{path}/sign-up", data={**sent, "password": NEW_PASSWORD})
            assert refused.status_code == 403, refused.text
        short = await visitor.post(f"{path}/sign-up", data={"csrf_token": token, "password": "short"})
        assert short.status_code == 400
        assert "Password must be at least 10 characters." in short.text and "Create account and join" in short.text
    assert invitee not in await _members(http, org)
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as owner:
        signed = await owner.post(
            "/login",
            data={"csrf_token": form_token(await owner.get("/login")), "email": org.email, "password": PASSWORD},
        )
        assert signed.status_code == 303, signed.text
        for action in ("/dashboard/members/invitations", f"/dashboard/members/{org.user_id}/remove"):
            refused = await owner.post(action, data={"email": "x@example.com", "role": "viewer"})
            assert refused.status_code == 403, action
    assert await _members(http, org) == {org.email: "owner"}
    listed = (await http.get("/v1/invitations", headers=org.auth)).json()["invitations"]
    assert [i["email"] for i in listed] == [invitee]


async def test_signing_in_through_the_link_locks_the_account_as_the_sign_in_page_does(stack, http, orgs) -> None:
    org, locked = await orgs(), await orgs()
    path = urlsplit(await _invite_over_api(http, org, locked.email)).path
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as visitor:
        token = form_token(await visitor.get(path))
        for _ in range(5):
            wrong = await visitor.post(f"{path}/sign-in", data={"csrf_token": token, "password": "not the password"})
            assert wrong.status_code == 401 and "The email or password is not right." in wrong.text
        # Locked: even the right password is not checked, and the link stays unused.
        for password in ("not the password", PASSWORD):
            held = await visitor.post(f"{path}/sign-in", data={"csrf_token": token, "password": password})
            assert held.status_code == 429, held.text
            assert "Too many failed sign-ins for this account. Try again in 15 minutes." in held.text
            assert "Sign in and join" in held.text
    assert locked.email not in await _members(http, org)


async def test_a_join_refused_after_the_password_is_checked_says_why(stack, http, orgs) -> None:
    """Already a member (joined some other way meanwhile): the password is right, the join is
    refused (CONFLICT), and the link's page says so; no session is opened by the refused join."""
    org, person = await orgs(), await orgs()
    path = urlsplit(await _invite_over_api(http, org, person.email)).path
    await orgs.member(org, "viewer", email=person.email)  # joined some other way meanwhile
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as visitor:
        token = form_token(await visitor.get(path))
        refused = await visitor.post(f"{path}/sign-in", data={"csrf_token": token, "password": PASSWORD})
        assert refused.status_code == 409, refused.text
        assert "already a member" in refused.text
        assert not visitor.cookies.get("herald_session", "")
    assert (await _members(http, org))[person.email] == "viewer"
