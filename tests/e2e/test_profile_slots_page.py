"""A profile's page in Chromium (docs/dashboard.md, "Profiles"), the two things analytics added:
its queue slots, proposed from its best times and then used, and the metrics Herald cannot read
with its account, why, and "Connect again". The proposal is the one POST
/v1/profiles/{slug}/queue/suggest makes; using it makes GET /v1/profiles/{slug}/slots those
slots; a viewer sees the slots without the forms and is refused in words if it posts anyway.
axe-core at 1280 and 390 px on each new state."""

from __future__ import annotations

import pytest
from playwright.async_api import expect
from sqlalchemy import update

from core.db.models import profiles
from facades.web.best_times_view import LONG_DAYS
from tests.connected_profiles import set_connection
from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in

# What the browser finds depends on the templates; the rules behind them run on both databases elsewhere.
pytestmark = pytest.mark.one_backend

ORG_ZONE = "Europe/Paris"


def in_words(slots: list[dict]) -> list[str]:
    return [f"{LONG_DAYS[s['day']]} {s['time']}" for s in slots]


async def test_suggested_slots_are_the_apis_and_using_them_saves_them(
    page, browser, stack, http, orgs, artifacts_dir, backend
) -> None:
    org = await orgs.with_profiles("x")
    assert (await http.patch("/v1/organization", json={"time_zone": ORG_ZONE}, headers=org.auth)).status_code == 200
    await sign_in(page, org.email)
    await page.goto("/dashboard/profiles/acme-x")
    slots = page.get_by_role("region", name="Queue slots")
    await expect(slots.locator("#no-slots")).to_be_visible()

    await slots.get_by_label("Slots a week").fill("5")
    await slots.get_by_role("button", name="Suggest from best times").click()
    proposal = page.get_by_role("region", name="Proposed slots")
    await expect(proposal).to_be_visible()
    api = (await http.post("/v1/profiles/acme-x/queue/suggest", json={"count": 5}, headers=org.auth)).json()
    assert (api["timezone"], api["basis"], api["applied"]) == (ORG_ZONE, "default", False)
    assert await proposal.get_by_role("listitem").all_text_contents() == in_words(api["slots"])
    await expect(proposal.locator("#proposal-basis")).to_contain_text(
        f"5 slots a week in {ORG_ZONE}, the platform's usual best hours"
    )
    assert (await http.get("/v1/profiles/acme-x/slots", headers=org.auth)).json()["slots"] == []  # nothing saved
    await check_page(page, artifacts_dir, backend, "profile-slots-proposed")

    await proposal.get_by_role("button", name="Use these slots").click()
    await page.wait_for_url("**/dashboard/profiles/acme-x?notice=slots-saved")
    saved = (await http.get("/v1/profiles/acme-x/slots", headers=org.auth)).json()
    assert saved == {"timezone": ORG_ZONE, "slots": api["slots"]}
    assert await page.locator("#current-slots li").all_text_contents() == in_words(api["slots"])
    await expect(page.locator("#slots-summary")).to_have_text(f"5 slots a week, in {ORG_ZONE}:")

    # A count out of bounds, sent past the field's own limits, is refused in words; nothing changes.
    token = await page.locator("#suggest-form input[name=csrf_token]").input_value()
    refused = await page.request.post(
        "/dashboard/profiles/acme-x/slots/suggest", form={"csrf_token": token, "count": "22"}
    )
    assert refused.status == 400 and "Slots a week must be a whole number from 1 to 21." in await refused.text()

    # A viewer reads the slots without the forms; posting the form anyway is FORBIDDEN, in words.
    viewer = await orgs.member(org, "viewer")
    context = await browser.new_context(base_url=stack.base_url)
    try:
        tab = await context.new_page()
        await sign_in(tab, viewer.email)
        await tab.goto("/dashboard/profiles/acme-x")
        region = tab.get_by_role("region", name="Queue slots")
        assert await region.get_by_role("listitem").all_text_contents() == in_words(api["slots"])
        await expect(region.get_by_role("button")).to_have_count(0)
        await expect(region.locator("#slots-why")).to_contain_text("Your role (viewer) cannot change")
        # The page itself is theirs to read: deleting is disabled with the core's reason.
        await expect(tab.get_by_role("button", name="Delete profile")).to_have_accessible_description(
            "Your role (viewer) does not allow this: it needs the 'manage_integrations' permission."
        )
        await check_page(tab, artifacts_dir, backend, "profile-slots-viewer")
        token = await tab.locator("input[name=csrf_token]").first.input_value()
        sent = {"csrf_token": token, "timezone": "UTC", "slot": "mon 09:00"}
        forbidden = await tab.request.post("/dashboard/profiles/acme-x/slots", form=sent)
        assert forbidden.status == 403
        assert 'data-code="FORBIDDEN"' in await forbidden.text()
    finally:
        await context.close()
    assert (await http.get("/v1/profiles/acme-x/slots", headers=org.auth)).json() == saved


async def test_a_profile_whose_metrics_cannot_be_read_says_why_and_offers_to_connect_again(
    page, http, orgs, engine, artifacts_dir, backend
) -> None:
    org = await orgs.with_profiles("mastodon", "youtube")
    why = "Mastodon refused the read (403): connect the account again, granting read:statuses."
    await set_connection(engine, org, "acme-mastodon", instance_url="https://social.example")
    await set_connection(engine, org, "acme-yt", expires_in=None, renewable=True)
    async with engine.begin() as conn:
        for slug, error, names in (
            ("acme-mastodon", why, ""),
            ("acme-yt", "YouTube Analytics refused (403): grant yt-analytics.readonly.", "watch_time_seconds,shares"),
        ):
            await conn.execute(
                update(profiles)
                .where(profiles.c.org_id == org.org_id, profiles.c.slug == slug)
                .values(metrics_error=error, metrics_unavailable=names)
            )
    shown = (await http.get("/v1/profiles/acme-mastodon", headers=org.auth)).json()["connection"]
    assert (shown["metrics_error"], shown["metrics_unavailable"]) == (why, [])

    await sign_in(page, org.email)
    await page.goto("/dashboard/profiles")
    await expect(page.locator('tr[data-slug="acme-mastodon"] .metrics-flag')).to_have_text(
        "Cannot read its metrics: connect it again."
    )
    await expect(page.locator('tr[data-slug="acme-yt"] .metrics-flag')).to_have_text(
        "Cannot read Watch time (seconds), Shares: connect it again."
    )

    await page.goto("/dashboard/profiles/acme-mastodon")
    metrics = page.get_by_role("region", name="Metrics Herald cannot read")
    await expect(metrics.locator("#metrics-unavailable")).to_contain_text("cannot read any metrics")
    await expect(metrics.locator("#metrics-reason")).to_have_text(f"Why: {why}")
    again = metrics.get_by_role("button", name="Connect again")
    await expect(again).to_be_enabled()
    form = metrics.locator("form")
    assert await form.get_attribute("action") == "/dashboard/connect"
    assert await form.locator("input[name=slug]").input_value() == "acme-mastodon"
    assert await form.locator("input[name=instance_url]").input_value() == "https://social.example"
    await check_page(page, artifacts_dir, backend, "profile-metrics-unavailable")

    await page.goto("/dashboard/profiles/acme-yt")
    metrics = page.get_by_role("region", name="Metrics Herald cannot read")
    await expect(metrics.locator("#metrics-unavailable")).to_contain_text(
        "these metrics of this profile's posts: Watch time (seconds), Shares. The others are read as usual."
    )
    # YouTube is not set up on this stack: "Connect again" is there, disabled with the reason.
    again = metrics.get_by_role("button", name="Connect again")
    await expect(again).to_be_disabled()
    await expect(again).to_have_accessible_description(
        "Connecting youtube accounts is not set up by this Herald's operator."
    )

    await page.goto("/dashboard/profiles/acme-mastodon")  # the mark gone: no section
    async with engine.begin() as conn:
        await conn.execute(
            update(profiles)
            .where(profiles.c.org_id == org.org_id, profiles.c.slug == "acme-mastodon")
            .values(metrics_error="", metrics_unavailable="")
        )
    await page.reload()
    await expect(page.get_by_role("region", name="Metrics Herald cannot read")).to_have_count(0)
