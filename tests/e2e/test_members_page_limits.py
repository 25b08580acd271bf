"""Profile limits on the members page in Chromium (docs/dashboard.md, "Members"; docs/teams.md,
"Profile limits"), beside tests/e2e/test_members_page.py and with its helpers: an owner invites an
email limited to a tag (a malformed tag refused first, what was typed kept), the invitee joins
through the link and sees only the profiles carrying it; the owner widens and lifts a member's
limits from their row, and a member with an API key reaches through /v1 exactly what the page set;
limits on an owner are refused in the core's words with the typed text kept, and no row offers the
viewer their own limits."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in
from tests.e2e.test_members_page import NEW_PASSWORD, _button, _context_page, _named_org

pytestmark = pytest.mark.one_backend


async def _limits(http, org) -> dict[str, list[str]]:
    listed = (await http.get("/v1/members", headers=org.auth)).json()["members"]
    return {m["email"]: m["profile_tags"] for m in listed}


async def _profile_slugs(page) -> list[str]:
    await page.goto("/dashboard/profiles")
    return await page.locator("#profiles tbody tr").evaluate_all("rows => rows.map(r => r.dataset.slug)")


async def _set_limits(page, email: str, text: str) -> None:
    await page.get_by_label(f"Limit {email} to profiles tagged", exact=True).fill(text)
    await _button(page, f"Change limits of {email}").click()


async def test_an_invitee_limited_to_a_tag_sees_only_its_profiles_and_the_owner_changes_the_limits(
    browser, stack, http, orgs, artifacts_dir, backend
) -> None:
    org = await _named_org(http, orgs)
    await orgs.profile(org, "client-a-x", "x", tags=("client-a",))
    await orgs.profile(org, "client-b-x", "x", tags=("client-b",))
    await orgs.profile(org, "house-x", "x")
    invitee = f"limited-{org.slug}@example.com"
    owner_context, owner = await _context_page(browser, stack)
    guest_context, guest = await _context_page(browser, stack)
    try:
        await sign_in(owner, org.email)
        await owner.goto("/dashboard/members")
        mine = owner.locator("#members > li", has_text=org.email)
        await expect(mine.locator("dd[data-limits]")).to_have_text("Every profile")
        await expect(owner.get_by_label(f"Limit {org.email} to profiles tagged")).to_have_count(0)
        limit_field = owner.get_by_label("Limit to profiles tagged (optional)", exact=True)
        await expect(limit_field).to_have_accessible_description(
            "Tags separated by commas: they join reaching only the profiles carrying one of them. Empty: every profile."
        )

        # A tag the core refuses: the page again in its words, everything typed kept.
        await owner.get_by_label("Email", exact=True).fill(invitee)
        await owner.get_by_label("Role", exact=True).select_option("editor")
        await limit_field.fill("client a")
        await _button(owner, "Invite").click()
        alert = owner.locator("#members-error")
        await expect(alert).to_have_attribute("data-code", "VALIDATION_ERROR")
        await expect(alert).to_contain_text("Tag 'client a' must be 1-64 characters")
        await expect(owner.get_by_label("Email", exact=True)).to_have_value(invitee)
        await expect(owner.get_by_label("Role", exact=True)).to_have_value("editor")
        await expect(limit_field).to_have_value("client a")
        await check_page(owner, artifacts_dir, backend, "a11y-members-limits-refused")

        # Invited limited to client-a (any case: kept lowercase), said on the link's card and listed.
        await limit_field.fill("Client-A")
        await _button(owner, "Invite").click()
        await owner.wait_for_url("**/dashboard/members/invitations")
        await expect(owner.locator("#invitation-created")).to_contain_text("reaching only the profiles tagged client-a")
        link = (await owner.locator("#invitation-link").text_content()).strip()
        opened = owner.locator("#invitations > li", has_text=invitee)
        await expect(opened.locator("dd[data-limits]")).to_have_text("Only those tagged client-a")

        # The invitee joins and reaches client-a's profile only.
        await guest.goto(link)
        await guest.get_by_label("Password").fill(NEW_PASSWORD)
        await _button(guest, "Create account and join").click()
        await guest.wait_for_url("**/dashboard")
        assert await _profile_slugs(guest) == ["client-a-x"]
        assert (await _limits(http, org))[invitee] == ["client-a"]

        # The owner widens them from the member's row: the next page shows both tags' profiles.
        await owner.goto("/dashboard/members")
        row = owner.locator("#members > li", has_text=invitee)
        await expect(row.locator("dd[data-limits]")).to_have_text("Only those tagged client-a")
        await expect(owner.get_by_label(f"Limit {invitee} to profiles tagged")).to_have_value("client-a")
        await check_page(owner, artifacts_dir, backend, "a11y-members-limits")
        await _set_limits(owner, invitee, "client-a, client-b")
        await owner.wait_for_url("**/dashboard/members?notice=limits-changed")
        await expect(owner.get_by_role("status")).to_contain_text("The profile limits are changed")
        await expect(row.locator("dd[data-limits]")).to_have_text("Only those tagged client-a client-b")
        assert await _profile_slugs(guest) == ["client-a-x", "client-b-x"]

        # Lifted (the field emptied): every profile again.
        await _set_limits(owner, invitee, "")
        await owner.wait_for_url("**/dashboard/members?notice=limits-changed")
        await expect(row.locator("dd[data-limits]")).to_have_text("Every profile")
        assert await _profile_slugs(guest) == ["client-a-x", "client-b-x", "house-x"]
        assert (await _limits(http, org))[invitee] == []
    finally:
        await owner_context.close()
        await guest_context.close()


async def test_limits_set_on_the_page_hold_for_the_members_api_key_and_an_owner_takes_none(page, http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "shop-x", "x", tags=("shop",))
    await orgs.profile(org, "blog-x", "x", tags=("blog",))
    writer = await orgs.member(org, "editor")
    co_owner = await orgs.member(org, "owner")
    await sign_in(page, org.email)
    await page.goto("/dashboard/members")

    await _set_limits(page, writer.email, "shop")
    await page.wait_for_url("**/dashboard/members?notice=limits-changed")
    listed = (await http.get("/v1/profiles", headers=writer.auth)).json()["profiles"]
    assert [p["slug"] for p in listed] == ["shop-x"]
    assert (await http.get("/v1/profiles/blog-x", headers=writer.auth)).status_code == 404

    # An owner takes no limits: refused in the core's words, the typed text kept in that row.
    await _set_limits(page, co_owner.email, "blog")
    alert = page.locator("#members-error")
    await expect(alert).to_have_attribute("data-code", "VALIDATION_ERROR")
    await expect(alert).to_contain_text("owners take no profile limits")
    await expect(page.get_by_label(f"Limit {co_owner.email} to profiles tagged")).to_have_value("blog")
    await expect(page.get_by_label(f"Limit {writer.email} to profiles tagged")).to_have_value("shop")
    assert (await _limits(http, org))[co_owner.email] == []
