"""The settings page in Chromium (docs/dashboard.md, "Settings"): a human names the organization
and picks its time zone from the labelled list; the posts page then shows times in that zone,
named; a refused name is an error in place, the page passing axe-core in both states."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in

# One backend: the form in a browser; the settings' SQL is tested at /v1 on both databases.
pytestmark = pytest.mark.one_backend


async def test_a_human_sets_the_organizations_name_and_time_zone(page, http, orgs, artifacts_dir, backend) -> None:
    org = await orgs()
    await orgs.profile(org, "zone-x", "x")
    at = (datetime.now(UTC) + timedelta(days=2)).replace(hour=7, minute=15, second=0, microsecond=0)
    created = await http.post(
        "/v1/posts",
        json={"content": "On time", "profiles": ["zone-x"], "schedule_at": at.isoformat()},
        headers=org.auth,
    )
    assert created.status_code == 201, created.text
    await sign_in(page, org.email)
    await page.get_by_role("link", name="Settings").click()
    await page.wait_for_url("**/dashboard/settings")
    assert await page.get_by_label("Name").input_value() == org.slug
    assert await page.get_by_label("Time zone").input_value() == "UTC"
    await check_page(page, artifacts_dir, backend, "settings")

    await page.get_by_label("Name").fill("Acme Europe")
    await page.get_by_label("Time zone").select_option("Europe/Lisbon")
    await page.get_by_role("button", name="Save settings").click()
    await page.wait_for_url("**/dashboard/settings?notice=settings-saved")
    assert await page.get_by_label("Time zone").input_value() == "Europe/Lisbon"
    body = (await http.get("/v1/organization", headers=org.auth)).json()
    assert (body["name"], body["time_zone"]) == ("Acme Europe", "Europe/Lisbon")

    await page.get_by_role("link", name="Posts").click()
    await page.wait_for_url("**/dashboard/posts")
    local = at.astimezone(ZoneInfo("Europe/Lisbon"))
    await page.get_by_text(f"{local:%Y-%m-%d %H:%M} (Europe/Lisbon)").first.wait_for()

    # A name of spaces passes the browser's own check, then the core refuses it: shown in place.
    await page.goto("/dashboard/settings")
    await page.get_by_label("Name").fill("   ")
    await page.get_by_label("Time zone").select_option("America/Sao_Paulo")
    await page.get_by_role("button", name="Save settings").click()
    assert "name" in (await page.get_by_role("alert").text_content()).lower()
    assert await page.get_by_label("Time zone").input_value() == "America/Sao_Paulo"
    await check_page(page, artifacts_dir, backend, "settings-refused")
    body = (await http.get("/v1/organization", headers=org.auth)).json()
    assert (body["name"], body["time_zone"]) == ("Acme Europe", "Europe/Lisbon")
