"""The settings page over HTTP, as a browser sends its form (docs/dashboard.md, "Settings"): the
organization's name and time zone shown and changed, a refused form shown again with what was
sent, and every page that shows a time showing it in the organization's zone, named."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.dashboard_forms import signed_in

ALERT = re.compile(r'<p class="error" role="alert">([^<]*)</p>')


@pytest.fixture
async def browser_like(stack):
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as client:
        yield client


def selected_zone(page: httpx.Response) -> str:
    select = re.search(r'<select id="settings-time-zone".*?</select>', page.text, re.S)
    assert select, page.text[:500]
    chosen = re.findall(r'<option value="([^"]+)" selected>', select.group(0))
    assert len(chosen) == 1, chosen
    return chosen[0]


def name_field(page: httpx.Response) -> str:
    found = re.search(r'<input id="settings-name" name="name" type="text" value="([^"]*)"', page.text)
    assert found, page.text[:500]
    return html.unescape(found.group(1))


async def test_the_page_shows_and_saves_the_name_and_time_zone(browser_like, http, orgs) -> None:
    org = await orgs()
    token = await signed_in(browser_like, org.email, page="/dashboard/settings")
    page = await browser_like.get("/dashboard/settings")
    assert page.status_code == 200
    assert (name_field(page), selected_zone(page)) == (org.slug, "UTC")
    assert '<a href="/dashboard/settings" aria-current="page">Settings</a>' in page.text
    assert '<label for="settings-time-zone">Time zone</label>' in page.text
    assert '<optgroup label="Europe">' in page.text and '<option value="Europe/Paris" >' in page.text

    saved = await browser_like.post(
        "/dashboard/settings", data={"csrf_token": token, "name": " Acme & Co ", "time_zone": "Europe/Paris"}
    )
    assert (saved.status_code, saved.headers["location"]) == (303, "/dashboard/settings?notice=settings-saved")
    after = await browser_like.get(saved.headers["location"])
    assert (name_field(after), selected_zone(after)) == ("Acme & Co", "Europe/Paris")
    assert 'role="status">The settings are saved.' in after.text
    assert (await http.get("/v1/organization", headers=org.auth)).json() | {"created_at": None} == {
        "id": org.org_id,
        "slug": org.slug,
        "name": "Acme & Co",
        "time_zone": "Europe/Paris",
        "created_at": None,
        # Saving the name and the zone leaves the approval settings as they were (the defaults).
        "approvals_required_for": [],
        "approval_profile_tags": [],
        "self_approval": False,
    }


@pytest.mark.parametrize(
    ("fields", "kept_zone"),
    [
        ({"name": "   ", "time_zone": "Asia/Tokyo"}, "Asia/Tokyo"),
        ({"name": "n" * 201, "time_zone": "Asia/Tokyo"}, "Asia/Tokyo"),
        ({"name": "Acme", "time_zone": "Mars/Olympus_Mons"}, "Mars/Olympus_Mons"),
        ({"name": "Acme", "time_zone": ""}, "UTC"),
    ],
)
async def test_a_refused_form_is_shown_again_with_what_was_sent(browser_like, http, orgs, fields, kept_zone) -> None:
    org = await orgs()
    token = await signed_in(browser_like, org.email, page="/dashboard/settings")
    refused = await browser_like.post("/dashboard/settings", data={"csrf_token": token, **fields})
    assert refused.status_code == 400
    assert len(ALERT.findall(refused.text)) == 1
    assert (name_field(refused), selected_zone(refused)) == (fields["name"].strip(), kept_zone)
    # Nothing changed.
    body = (await http.get("/v1/organization", headers=org.auth)).json()
    assert (body["name"], body["time_zone"]) == (org.slug, "UTC")


async def test_every_page_shows_times_in_the_organizations_zone(browser_like, http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "acme-x", "x")
    at = (datetime.now(UTC) + timedelta(days=3)).replace(hour=8, minute=30, second=0, microsecond=0)
    created = await http.post(
        "/v1/posts", json={"content": "Zoned", "profiles": ["acme-x"], "schedule_at": at.isoformat()}, headers=org.auth
    )
    assert created.status_code == 201, created.text
    token = await signed_in(browser_like, org.email, page="/dashboard/settings")
    posts = await browser_like.get("/dashboard/posts")
    assert f"{at:%Y-%m-%d %H:%M} (UTC)" in posts.text

    zone = "Asia/Kolkata"  # +05:30 all year: the minutes move too
    saved = await browser_like.post(
        "/dashboard/settings", data={"csrf_token": token, "name": "Acme", "time_zone": zone}
    )
    assert saved.status_code == 303
    local = at.astimezone(ZoneInfo(zone))
    posts = await browser_like.get("/dashboard/posts")
    assert f"{local:%Y-%m-%d %H:%M} (Asia/Kolkata)" in posts.text
    assert "(UTC)" not in posts.text
    # The other pages with times name the zone too: keys (created), a profile's page (created; the
    # list shows only its connections' token ends, none for a sandbox profile), credits (ledger).
    for path in ("/dashboard/keys", "/dashboard/profiles/acme-x", "/dashboard/credits", "/dashboard/settings"):
        page = await browser_like.get(path)
        assert page.status_code == 200, path
        assert "(Asia/Kolkata)" in page.text and "(UTC)" not in page.text, path
    assert "(UTC)" not in (await browser_like.get("/dashboard/profiles")).text
