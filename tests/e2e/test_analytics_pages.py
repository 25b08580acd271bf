"""Analytics in Chromium (docs/dashboard.md, "Post detail", "Analytics"): on the shared stack and
its worker, an organization's sandbox posts published, moved back some days and read (their
metrics collected at refreshes; tests/e2e/analytics_seed.py). A post's page shows its metrics as
GET /v1/posts/{id}/metrics has them (only its platform's, its thread item's, its history in a
chart and a table) and "Refresh metrics"; axe-core at 1280 and 390 px."""

from __future__ import annotations

import asyncio
import csv
import io
import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.async_api import expect

from facades.web.metric_words import LABELS
from tests.e2e.accessibility import check_page
from tests.e2e.analytics_seed import age, publish, read
from tests.e2e.test_dashboard import sign_in

# The pages' behaviour; what the database decides is the core's (tests/core, tests/facades).
pytestmark = [pytest.mark.one_backend, pytest.mark.usefixtures("worker")]

ORG_ZONE = "Europe/Paris"
LABEL_NAMES = {words: name for name, words in LABELS.items()}


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


async def table_rows(page, name: str) -> tuple[list[str], list[list[str]]]:
    """A chart's table as the page shows it: its headings and its rows' cells' text."""
    table = page.locator(f"#{name}-table")
    headings = await table.locator("thead th").all_text_contents()
    rows = await table.locator("tbody tr").evaluate_all(
        "(rows) => rows.map((r) => Array.from(r.children, (c) => c.textContent.trim()))"
    )
    return headings, [[cell_value(c) for c in row] for row in rows]


async def drawn(page, name: str) -> dict:
    """What Chart.js draws on a chart's canvas: the metrics shown and the value axis' top."""
    return await page.locator(f"#{name}-canvas").evaluate(
        """(canvas) => {
            const chart = Chart.getChart(canvas);
            const axis = chart.options.indexAxis === "y" ? "x" : "y";
            return {
                shown: chart.data.datasets.filter((d, i) => chart.isDatasetVisible(i)).map((d) => d.label),
                top: chart.scales[axis].max,
                title: chart.options.scales[axis].title.text,
            };
        }"""
    )


async def metric_picker_shows_one_metric_at_a_time(page) -> None:
    """The per-day chart draws one metric at a time, on an axis of its own size: engagement
    first, another chosen in "Metric shown", which offers each column of the table."""
    headings, rows = await table_rows(page, "daily")
    picker = page.get_by_label("Metric shown").first
    assert await page.locator("#daily-metric option").all_text_contents() == headings[2:]
    first = await drawn(page, "daily")
    assert (first["shown"], first["title"]) == (["Engagement"], "Engagement")
    engagement = max(row[2] for row in rows)
    impressions = max(row[headings.index("Impressions")] for row in rows)
    assert impressions > 2 * engagement  # the sandbox's numbers: why one axis for both hid engagement
    assert engagement <= first["top"] < impressions
    await page.locator("#daily-metric").select_option(label="Impressions")
    second = await drawn(page, "daily")
    assert second["shown"] == ["Impressions"] and second["title"] == "Impressions"
    assert second["top"] >= impressions
    assert "Showing: Impressions." in await page.locator("#daily-canvas").get_attribute("aria-label")
    assert await picker.is_visible()
    # A chart of one metric (the top posts' engagement) has nothing to choose.
    await expect(page.locator("#top-posts-metric")).to_have_count(0)
    assert (await drawn(page, "top-posts"))["shown"] == ["Engagement"]


def cell_value(text: str) -> int | str | None:
    """A cell as the CSV and the table both mean it: a number (with or without separators), None
    for a metric not given ("—" on the page, empty in the CSV), else its text."""
    bare = text.strip().replace(",", "")
    return int(bare) if bare.isdigit() else None if bare in ("", "—") else text.strip()


def parsed_csv(text: str) -> list[tuple[list[str], list[list[int | str | None]]]]:
    head, *rows = csv.reader(io.StringIO(text))
    return [(head, [[cell_value(c) for c in row] for row in rows])]


def group_of(headings: list[str], row: list[str]) -> dict:
    """A summary group as its table row says it: posts, engagement and each metric by its name."""
    named = {LABEL_NAMES[h]: cell for h, cell in zip(headings[3:], row[3:], strict=True)}
    return {
        "posts": row[1],
        "engagement": row[2],
        "metrics": {name: value for name, value in named.items() if value is not None},
    }


def api_group(group: dict) -> dict:
    return {"posts": group["posts"], "engagement": group["engagement"], "metrics": group["metrics"]}


async def test_the_analytics_page_s_tables_equal_the_api_s_numbers_and_their_csv(
    page, http, org, orgs, artifacts_dir, backend, engine
) -> None:
    org, (x_id, bsky_id) = org
    # A second X post a day old, read once; and another organization's post, the same slug.
    (newer,) = await publish(http, org, {"content": "A day later: the numbers", "profiles": ["acme-x"]})
    await age(engine, newer, 1)
    await read(http, org, [newer])
    other = await orgs.with_profiles("x")
    (foreign,) = await publish(http, other, {"content": "Someone else's launch", "profiles": ["acme-x"]})

    await sign_in(page, org.email)
    await page.get_by_role("link", name="Analytics").click()
    await page.wait_for_url("**/dashboard/analytics")
    await expect(page.locator("#range-shown")).to_contain_text("in the last 30 days")
    today = datetime.now(ZoneInfo(ORG_ZONE)).date()
    start = datetime.combine(today - timedelta(days=29), datetime.min.time(), ZoneInfo(ORG_ZONE))
    end = datetime.combine(today + timedelta(days=1), datetime.min.time(), ZoneInfo(ORG_ZONE))
    window = {"from": start.isoformat(), "to": end.isoformat()}

    async def summary(group_by: str) -> dict:
        answer = await http.get("/v1/analytics/summary", params={**window, "group_by": group_by}, headers=org.auth)
        assert answer.status_code == 200, answer.text
        return answer.json()

    # Per day: one row per day with posts, as the API sums them, oldest first.
    days = await summary("day")
    headings, rows = await table_rows(page, "daily")
    assert [row[0] for row in rows] == [g["key"] for g in days["groups"]] and len(rows) == 2
    assert [group_of(headings, row) for row in rows] == [api_group(g) for g in days["groups"]]
    # Per profile and per platform, then the total.
    for name, group_by in (("profiles", "profile"), ("platforms", "connector")):
        answer = await summary(group_by)
        headings, rows = await table_rows(page, name)
        assert [group_of(headings, row) for row in rows] == [api_group(g) for g in [*answer["groups"], answer["total"]]]
    headings, rows = await table_rows(page, "platforms")
    assert [row[0] for row in rows] == ["Bluesky", "X", "All"]
    # Top posts: the API's order by engagement, each linking to its page.
    top = await http.get(
        "/v1/analytics/posts", params={**window, "sort": "engagement", "page_size": 10}, headers=org.auth
    )
    posts = top.json()["posts"]
    headings, rows = await table_rows(page, "top-posts")
    assert [row[-1] for row in rows] == [p["post_id"] for p in posts]
    assert sorted(row[-1] for row in rows) == sorted([x_id, bsky_id, newer])
    assert [row[5] for row in rows] == [p["engagement"] for p in posts]
    link = page.locator("#top-posts-table").get_by_role("link", name="A day later: the numbers")
    assert await link.get_attribute("href") == f"/dashboard/posts/{newer}"
    # Another organization's post is nowhere.
    html = await page.content()
    assert foreign not in html and "Someone else" not in html
    # Each chart is drawn, named, over its table.
    for name in ("daily", "top-posts", "profiles", "platforms"):
        await expect(page.locator(f"#{name}-chart")).to_have_attribute("data-drawn", "true")
        assert "table below" in await page.locator(f"#{name}-canvas").get_attribute("aria-label")
    await metric_picker_shows_one_metric_at_a_time(page)
    await check_page(page, artifacts_dir, backend, "analytics")
    await page.set_viewport_size({"width": 1280, "height": 800})

    # The CSV: a download named for its chart and range, the table's rows, numbers bare.
    async with page.expect_download() as download:
        await page.get_by_role("link", name="Download per day as CSV").click()
    saved = await download.value
    assert saved.suggested_filename == f"herald-daily-{start.date()}-{today}.csv"
    text = await asyncio.to_thread(Path(await saved.path()).read_text)
    assert parsed_csv(text) == [await table_rows(page, "daily")]
    for name in ("top-posts", "profiles", "platforms"):
        answer = await page.request.get(await page.locator(f"#{name}-csv").get_attribute("href"))
        assert answer.headers["content-type"] == "text/csv; charset=utf-8"
        assert answer.headers["content-disposition"].startswith(f'attachment; filename="herald-{name}-')
        assert parsed_csv(await answer.text()) == [await table_rows(page, name)]

    # Best times: each profile's week as a table of scores (0 to 100), as the API has them.
    best = (await http.get("/v1/profiles/acme-x/best-times", headers=org.auth)).json()
    headings, rows = await table_rows(page, "best-times-acme-x")
    assert headings == ["Hour", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] and len(rows) == 24
    scores = {(c["day"], c["hour"]): round(c["score"] * 100) for c in best["grid"]}
    days = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    assert [row[1:] for row in rows] == [[scores[(d, hour)] for d in days] for hour in range(24)]
    answer = await page.request.get(await page.locator("#best-times-acme-x-csv").get_attribute("href"))
    assert answer.headers["content-disposition"] == 'attachment; filename="herald-best-times-acme-x.csv"'
    assert parsed_csv(await answer.text()) == [await table_rows(page, "best-times-acme-x")]

    # Filtered to the Bluesky profile: its post alone.
    await page.get_by_label("Profile", exact=True).select_option("acme-bsky")
    await page.get_by_role("button", name="Show").click()
    await page.wait_for_url(re.compile(r"/dashboard/analytics\?range=30&.*profile=acme-bsky"))
    headings, rows = await table_rows(page, "top-posts")
    assert [row[-1] for row in rows] == [bsky_id]
    await expect(page.locator("#best-times-acme-x-table")).to_have_count(0)
    await expect(page.locator("#best-times-acme-bsky-table")).to_have_count(1)
    # A range without posts says so, in words.
    await page.get_by_label("From", exact=True).fill(f"{today.year - 2}-01-01")
    await page.get_by_label("To", exact=True).fill(f"{today.year - 2}-01-31")
    await page.get_by_role("button", name="Show").click()
    await expect(page.locator("#daily-empty")).to_have_text("No posts were published in this range.")
    await expect(page.locator("#range-shown")).to_contain_text(f"{today.year - 2}-01-01 to {today.year - 2}-01-31")
