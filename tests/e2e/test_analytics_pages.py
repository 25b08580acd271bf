"""Analytics in Chromium (docs/dashboard.md, "Post detail", "Analytics"): on the shared stack and
its worker, an organization's sandbox posts published, moved back some days and read (their
metrics collected at refreshes; tests/e2e/analytics_seed.py). A post's page shows its metrics as
GET /v1/posts/{id}/metrics has them (only its platform's, its thread item's, its history in a
chart and a table) and "Refresh metrics"; axe-core at 1280 and 390 px."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.accessibility import check_page
from tests.e2e.analytics_seed import age, publish, read
from tests.e2e.test_dashboard import sign_in

# The pages' behaviour; what the database decides is the core's (tests/core, tests/facades).
pytestmark = [pytest.mark.one_backend, pytest.mark.usefixtures("worker")]

ORG_ZONE = "Europe/Paris"


def cells(values: dict) -> dict[str, int]:
    return {name: int(value) for name, value in values.items()}


@pytest.fixture
async def org(orgs, http, engine):
    """An organization in Paris with X and Bluesky profiles, one post to both (the X one with a
    thread item) three days old, read twice."""
    org = await orgs.with_profiles("x", "bluesky")
    zone = await http.patch("/v1/organization", json={"time_zone": ORG_ZONE}, headers=org.auth)
    assert zone.status_code == 200, zone.text
    body = {
        "content": "Launch day: the new dashboard is out",
        "profiles": ["acme-x", "acme-bsky"],
        "customizations": {"acme-x": {"thread": [{"content": "What it shows, one chart at a time"}]}},
    }
    ids = await publish(http, org, body)
    for post_id in ids:
        await age(engine, post_id, 3)
    await read(http, org, ids)
    await read(http, org, ids)
    return org, ids


async def test_a_post_s_page_shows_its_metrics_as_the_api_has_them(page, http, org, artifacts_dir, backend) -> None:
    org, (x_id, bsky_id) = org
    api = (await http.get(f"/v1/posts/{x_id}/metrics", headers=org.auth)).json()
    await sign_in(page, org.email)
    await page.goto(f"/dashboard/posts/{x_id}")
    section = page.get_by_role("region", name="Metrics", exact=True)
    await expect(section).to_be_visible()
    latest = section.locator("#metrics-latest dd")
    shown = {await dd.get_attribute("data-metric"): await dd.get_attribute("data-value") for dd in await latest.all()}
    assert cells(shown) == api["metrics"] and "impressions" in shown
    await expect(section.locator("#metrics-read")).to_contain_text(f"({ORG_ZONE}), from the sandbox")
    # The thread item's latest, and the history: one row per reading, oldest first.
    item = section.locator("#metrics-thread tbody tr")
    await expect(item).to_have_count(1)
    spans = await item.locator("[data-metric]").all()
    assert (
        cells({await s.get_attribute("data-metric"): await s.get_attribute("data-value") for s in spans})
        == (api["thread"][0]["metrics"])
    )
    rows = section.locator("#metrics-history tbody tr")
    await expect(rows).to_have_count(1 + len(api["history"]))
    last = rows.last.locator("td")
    names = [
        await th.get_attribute("data-metric") for th in await section.locator("#metrics-history th[data-metric]").all()
    ]
    assert {n: int((await last.nth(i).text_content()).replace(",", "")) for i, n in enumerate(names)} == api["metrics"]
    await expect(page.locator("#metrics-history-chart")).to_have_attribute("data-drawn", "true")
    await check_page(page, artifacts_dir, backend, "post-metrics")
    await page.set_viewport_size({"width": 1280, "height": 800})

    # Bluesky gives no views: its post's metrics have no impressions, in words nowhere.
    await page.goto(f"/dashboard/posts/{bsky_id}")
    names = await page.locator("#metrics-latest dd").evaluate_all("(dds) => dds.map((d) => d.dataset.metric)")
    assert "likes" in names and "impressions" not in names
    await expect(page.locator("#metrics-latest")).not_to_contain_text("Impressions")

    # Refresh metrics: queued, then nothing changed while it is pending.
    await page.get_by_role("button", name="Refresh metrics").click()
    await expect(page.get_by_role("status")).to_contain_text("queued")
