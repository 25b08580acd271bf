"""The analytics pages over plain HTTP (docs/dashboard.md, "Post detail" Metrics, "Analytics"):
what the browser tests (tests/e2e/test_analytics_pages.py) leave out. "Refresh metrics" refuses a
form without its CSRF token (403, nothing queued), shows INVALID_POST_STATE on the page of a post
that is not out, and is 404 for another organization's post; the analytics page and its CSV
exports go to sign-in without a session, refuse a range they cannot read once (400) and an
unknown chart (404), best times without a profile (400) or of one it does not have (404), and
an empty range's CSV is its headings alone; the chart library's one file is served compressed
from its install, nothing else under its path."""

from __future__ import annotations

import re

import httpx
import pytest

from facades.web.chart_assets import library_version
from tests.dashboard_forms import form_token, signed_in
from tests.posts_api import create, later

pytestmark = pytest.mark.one_backend

ALERT_CODE = re.compile(r'role="alert" id="post-error" data-code="([A-Z_]+)"')


@pytest.fixture
async def client(stack):
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        yield http


async def test_refresh_metrics_refuses_what_it_cannot_do(client, orgs) -> None:
    org = await orgs.with_profiles("x")
    other = await orgs.with_profiles("x")
    scheduled = await create(client, org, {"content": "Later", "profiles": ["acme-x"], "schedule_at": later()})
    foreign = await create(client, other, {"content": "Theirs", "profiles": ["acme-x"], "schedule_at": later()})
    await signed_in(client, org.email)
    page = await client.get(f"/dashboard/posts/{scheduled}")
    # A post that is not out has no metrics section (and no call for one).
    assert page.status_code == 200 and 'id="metrics"' not in page.text
    token = form_token(page)
    path = f"/dashboard/posts/{scheduled}/metrics/refresh"
    for wrong in ({}, {"csrf_token": "forged"}):
        assert (await client.post(path, data=wrong)).status_code == 403
    refused = await client.post(path, data={"csrf_token": token})
    assert refused.status_code == 409 and ALERT_CODE.findall(refused.text) == ["INVALID_POST_STATE"]
    for post_id in (foreign, "pst_unknown", "not-a-post"):
        answer = await client.post(f"/dashboard/posts/{post_id}/metrics/refresh", data={"csrf_token": token})
        assert answer.status_code == 404, post_id


async def test_the_analytics_page_and_its_exports_refuse_what_they_cannot_read(client, orgs) -> None:
    async with httpx.AsyncClient(base_url=str(client.base_url), timeout=30) as stranger:
        for path in ("/dashboard/analytics", "/dashboard/analytics/csv/daily"):
            answer = await stranger.get(path)
            assert answer.status_code == 303 and answer.headers["location"].startswith("/login?next="), path
    org = await orgs.with_profiles("x")
    await signed_in(client, org.email)
    for query in (
        "from=yesterday",
        "from=2026-02-30",
        "from=2026-03-02&to=2026-03-01",
        "from=2020-01-01&to=2026-01-01",
        "range=12",
    ):
        page = await client.get(f"/dashboard/analytics?{query}")
        assert page.status_code == 400 and page.text.count('role="alert"') == 1, query
        assert (await client.get(f"/dashboard/analytics/csv/daily?{query}")).status_code == 400, query
    assert (await client.get("/dashboard/analytics/csv/everything")).status_code == 404
    # Best times are a profile's: without one 400, another organization's or an unknown one 404.
    assert (await client.get("/dashboard/analytics/csv/best-times")).status_code == 400
    assert (await client.get("/dashboard/analytics/csv/best-times?profile=nobody")).status_code == 404
    grid = await client.get("/dashboard/analytics/csv/best-times?profile=acme-x")
    assert grid.status_code == 200 and grid.text.startswith("Hour,Mon,Tue,Wed,Thu,Fri,Sat,Sun\r\n00:00,")
    # Nothing published: each section says so, and a CSV is its headings alone.
    page = await client.get("/dashboard/analytics?range=7")
    assert page.status_code == 200 and page.text.count("No posts were published in this range.") == 4
    exported = await client.get("/dashboard/analytics/csv/profiles?from=2026-01-01&to=2026-01-31")
    assert exported.status_code == 200 and exported.text == "Profile,Posts,Engagement\r\n"
    assert exported.headers["content-disposition"] == (
        'attachment; filename="herald-profiles-2026-01-01-2026-01-31.csv"'
    )


async def test_the_chart_library_is_served_compressed_from_its_install(client) -> None:
    version = library_version()
    assert version, "facades/web/assets is not installed: make install (scripts/ensure_web_assets.sh)"
    base = f"/assets/chart.js/{version}"
    packed = await client.get(f"{base}/chart.umd.min.js", headers={"Accept-Encoding": "gzip"})
    assert packed.status_code == 200 and packed.headers["content-encoding"] == "gzip"
    assert packed.headers["content-type"].startswith("text/javascript")
    assert packed.headers["cache-control"] == "public, max-age=31536000, immutable"
    plain = await client.get(f"{base}/chart.umd.min.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == packed.content
    assert plain.content.startswith(b"/*!\n * Chart.js v" + version.encode())
    for path in (
        f"{base}/chart.umd.min.js.map",
        f"{base}/chart.js",
        f"{base}/package.json",
        "/assets/chart.js/0.0.1/chart.umd.min.js",
    ):
        assert (await client.get(path)).status_code == 404, path
