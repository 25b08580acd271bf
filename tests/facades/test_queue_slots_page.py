"""The profile page's queue-slot forms over HTTP, as a browser sends them (docs/dashboard.md,
"Profiles", Queue slots): each refuses a POST without its CSRF token; another organization's, an
unknown and a malformed slug are 404; whatever else is sent (a count out of bounds or not a
number, slots that are no slots, a zone that is none, too many slots) is the page again with a
400 and the refusal in words in the section, never a 500, and saves nothing. A viewer reads the
page, and a form its role may not send is refused on it."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.dashboard_forms import signed_in

# The forms' protocol and words; the slots' rules run on both databases at /v1.
pytestmark = pytest.mark.one_backend

SLOTS_ERROR = re.compile(r'role="alert" id="slots-error" data-code="([A-Z_]+)"')


@pytest.fixture
async def browser_like(stack):
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as client:
        yield client


async def test_the_forms_check_csrf_and_isolation(browser_like, http, orgs) -> None:
    owner = await orgs.with_profiles("x")
    stranger = await orgs()
    token = await signed_in(browser_like, stranger.email, "/dashboard/profiles")
    for slug in ("acme-x", "nope", "Not%20A%20Slug", "a" * 80):
        for path, fields in (
            (f"/dashboard/profiles/{slug}/slots/suggest", {"count": "7"}),
            (f"/dashboard/profiles/{slug}/slots", {"timezone": "UTC", "slot": "mon 09:00"}),
        ):
            for sent in ({}, {"csrf_token": "forged"}):
                refused = await browser_like.post(path, data=fields | sent)
                assert refused.status_code == 403, (path, sent)
            response = await browser_like.post(path, data=fields | {"csrf_token": token})
            assert response.status_code == 404, (path, fields)
            assert response.headers["content-type"].startswith("text/html")
    assert (await http.get("/v1/profiles/acme-x/slots", headers=owner.auth)).json()["slots"] == []


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        ("slots/suggest", {}),
        ("slots/suggest", {"count": ""}),
        ("slots/suggest", {"count": "abc"}),
        ("slots/suggest", {"count": "0"}),
        ("slots/suggest", {"count": "-3"}),
        ("slots/suggest", {"count": "²"}),
        ("slots/suggest", {"count": "9" * 40}),
        ("slots", {"timezone": "UTC", "slot": "garbage"}),
        ("slots", {"timezone": "UTC", "slot": "xyz 25:99"}),
        ("slots", {"timezone": "UTC", "slot": ["mon 09:00", "mon 09:00"]}),
        ("slots", {"timezone": "Not/AZone", "slot": "mon 09:00"}),
        ("slots", {"timezone": "", "slot": "mon 09:00"}),
        ("slots", {"timezone": "UTC", "slot": [f"mon {h:02d}:{m:02d}" for h in range(24) for m in range(0, 60, 7)]}),
    ],
)
async def test_what_is_not_slots_is_refused_in_words(browser_like, http, orgs, path, fields) -> None:
    org = await orgs.with_profiles("x")
    token = await signed_in(browser_like, org.email, "/dashboard/profiles/acme-x")
    response = await browser_like.post(f"/dashboard/profiles/acme-x/{path}", data=fields | {"csrf_token": token})
    assert response.status_code == 400, response.text[:500]
    assert SLOTS_ERROR.search(response.text).group(1) == "VALIDATION_ERROR"
    assert 'id="proposed-slots"' not in response.text
    assert (await http.get("/v1/profiles/acme-x/slots", headers=org.auth)).json()["slots"] == []


async def test_a_viewer_reads_the_page_and_is_refused_in_place(browser_like, http, orgs) -> None:
    org = await orgs.with_profiles("x")
    viewer = await orgs.member(org, "viewer")
    token = await signed_in(browser_like, viewer.email, "/dashboard/profiles/acme-x")
    page = await browser_like.get("/dashboard/profiles/acme-x")
    assert page.status_code == 200
    assert 'id="suggest-form"' not in page.text and "Your role (viewer) cannot change" in page.text
    form = {"display_name": "Mine", "tags": "", "default_language": "", "csrf_token": token}
    refused = await browser_like.post("/dashboard/profiles/acme-x", data=form)
    assert refused.status_code == 403
    assert 'role="alert" id="profile-error" data-code="FORBIDDEN"' in refused.text
    assert (await http.get("/v1/profiles/acme-x", headers=org.auth)).json()["display_name"] == "acme-x"
