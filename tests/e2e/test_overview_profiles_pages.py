"""The overview and the profiles pages in Chromium (docs/dashboard.md, "Overview" and "Profiles"): a
human sees what goes out tomorrow, a failure, the profiles to connect again and the balance,
follows a profile's link to its page, renames and retags it, meets a refusal in place, finds
"Delete profile" disabled with its reason while a post is pending, and deletes the profile once
it is not; axe-core at 1280 and 390 px on each state."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from tests.connected_profiles import set_connection
from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in

# What the browser finds depends on the templates; the rules behind them run on both databases elsewhere.
pytestmark = pytest.mark.one_backend


async def test_a_human_acts_on_the_overview_and_manages_a_profile(
    page, http, orgs, engine, worker, artifacts_dir, backend
) -> None:
    org = await orgs.with_profiles("x", "bluesky", "linkedin", credits=0)
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    group = await http.post(
        "/v1/posts",
        json={
            "content": "Launch tomorrow, " + "long-unbroken-words" * 6,
            "profiles": ["acme-x", "acme-bsky"],
            "schedule_at": tomorrow,
        },
        headers=org.auth,
    )
    assert group.status_code == 201, group.text
    failed = (
        await http.post("/v1/posts", json={"content": "No credits", "profiles": ["acme-li"]}, headers=org.auth)
    ).json()
    failed_id = failed["posts"][0]["id"]
    for _ in range(300):
        if (await http.get(f"/v1/posts/{failed_id}", headers=org.auth)).json()["status"] == "failed":
            break
        await asyncio.sleep(0.1)
    await set_connection(engine, org, "acme-x", expires_in=timedelta(days=3))
    await set_connection(engine, org, "acme-li", status="needs_reauth", error="The platform refused the token.")

    await page.set_viewport_size({"width": 1280, "height": 800})
    await sign_in(page, org.email)
    upcoming = page.get_by_role("region", name="Going out in the next 7 days")
    assert "to 2 profiles" in await upcoming.text_content()
    assert await upcoming.get_by_role("link").count() == 2
    failures = page.get_by_role("region", name="Failures that need you")
    assert "insufficient_credits" in await failures.text_content()
    reconnect = page.get_by_role("region", name="Profiles to connect again")
    assert await reconnect.get_by_role("link").all_text_contents() == ["acme-li", "acme-x"]
    assert await page.locator("#balance").text_content() == "0"
    await check_page(page, artifacts_dir, backend, "overview-filled")

    # A failure links to its post's page, where Retry is.
    await failures.get_by_role("link").first.click()
    await page.wait_for_url(f"**/dashboard/posts/{failed_id}")
    assert await page.get_by_role("button", name="Retry").is_enabled()

    # A profile to connect again links to its page.
    await page.goto("/dashboard")
    await reconnect.get_by_role("link", name="acme-x").click()
    await page.wait_for_url("**/dashboard/profiles/acme-x")
    assert "Herald cannot renew it" in await page.locator("#token-expiry").text_content()
    assert await page.get_by_role("button", name="Reconnect").is_disabled()  # X is not set up on this stack
    assert await page.get_by_role("button", name="Delete profile").is_disabled()
    await check_page(page, artifacts_dir, backend, "profile")

    await page.get_by_label("Display name").fill("Acme on X")
    await page.get_by_label("Tags").fill("Launch, us")
    await page.get_by_role("button", name="Save changes").click()
    await page.wait_for_url("**/dashboard/profiles/acme-x?notice=profile-saved")
    assert await page.get_by_label("Tags").input_value() == "launch, us"
    shown = (await http.get("/v1/profiles/acme-x", headers=org.auth)).json()
    assert (shown["display_name"], shown["tags"]) == ("Acme on X", ["launch", "us"])

    await page.get_by_label("Tags").fill("launch, not a tag")
    await page.get_by_role("button", name="Save changes").click()
    assert await page.get_by_role("alert").get_attribute("data-code") == "VALIDATION_ERROR"
    assert await page.get_by_label("Tags").input_value() == "launch, not a tag"
    await check_page(page, artifacts_dir, backend, "profile-refused")

    # A sandbox profile with a pending post: its delete button says why it cannot act.
    await page.goto("/dashboard/profiles/acme-bsky")
    delete = page.get_by_role("button", name="Delete profile")
    assert await delete.is_disabled()
    described = await delete.get_attribute("aria-describedby")
    assert "cancel them first" in await page.locator(f"#{described}").text_content()
    for post in group.json()["posts"]:
        assert (await http.delete(f"/v1/posts/{post['id']}", headers=org.auth)).status_code == 200
    await page.reload()
    await page.get_by_label("Type the slug").fill("acme-bsky")
    await check_page(page, artifacts_dir, backend, "profile-deletable")
    await page.get_by_role("button", name="Delete profile").click()
    await page.wait_for_url("**/dashboard/profiles?notice=profile-deleted")
    assert await page.locator('tr[data-slug="acme-bsky"]').count() == 0
    assert await page.locator('tr[data-slug="acme-li"] td.connection').get_attribute("data-status") == "needs_reauth"
    await check_page(page, artifacts_dir, backend, "profiles-health")
    assert (await http.get("/v1/profiles/acme-bsky", headers=org.auth)).status_code == 404
