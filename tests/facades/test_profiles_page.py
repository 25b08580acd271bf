"""The profiles pages over HTTP, as a browser sends their forms (docs/dashboard.md, "Profiles"): each
account's connection health on the list and on the profile's page, in the organization's zone;
the settings form saved, refused with what was typed kept, and refused without its CSRF token;
"Delete profile" disabled with the core's reason or enabled, deleting refused without the slug
typed or with PROFILE_IN_USE, then done; disconnecting back to the page; another organization's,
an unknown and a malformed slug are 404 on the page and every form, and change nothing."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.conftest import Org
from tests.connected_profiles import set_connection
from tests.dashboard_forms import signed_in

# The page's templates and forms; the rules behind them run on both databases in test_profile_settings.py.
pytestmark = pytest.mark.one_backend

ALERT_CODE = re.compile(r'role="alert" id="profile-error" data-code="([A-Z_]+)"')


@pytest.fixture
async def browser_like(stack):
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as client:
        yield client


def later(days: int = 1) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def field(page: str, field_id: str) -> str:
    found = re.search(rf'id="{field_id}" name="[a-z_]+" value="([^"]*)"', page)
    assert found, field_id
    return html.unescape(found.group(1))


def cell(page: str, slug: str) -> str:
    """The list's connection cell of the profile (its status and whether it needs a human)."""
    row = re.search(rf'<tr data-slug="{slug}">(.*?)</tr>', page, re.S)
    assert row, slug
    found = re.search(r'<td class="connection" data-status="([a-z_]+)"( data-attention="true")?>', row.group(1))
    assert found, row.group(1)
    return found.group(1) + (" attention" if found.group(2) else "")


def disabled_with_reason(page: str, button_id: str) -> str:
    """The reason shown for the disabled button (asserting it is there, disabled and described by it)."""
    found = re.search(rf'<button type="submit"[^>]*id="{button_id}" disabled aria-describedby="([a-z-]+)"', page)
    assert found, button_id
    reason = re.search(rf'id="{found.group(1)}">([^<]+)</p>', page)
    assert reason, found.group(1)
    return reason.group(1)


def enabled(page: str, button_id: str) -> bool:
    found = re.search(rf'<button type="submit"([^>]*)id="{button_id}"([^>]*)>', page)
    return found is not None and "disabled" not in found.group(1) + found.group(2)


async def profile(http: httpx.AsyncClient, org: Org, slug: str) -> dict:
    return (await http.get(f"/v1/profiles/{slug}", headers=org.auth)).json()


async def test_the_list_and_the_profiles_page_show_each_connections_health(browser_like, http, orgs, engine) -> None:
    org = await orgs.with_profiles("x", "mastodon", "tiktok", "linkedin", "bluesky")
    zone = "Asia/Tokyo"
    assert (await http.patch("/v1/organization", json={"time_zone": zone}, headers=org.auth)).status_code == 200
    ending = await set_connection(engine, org, "acme-x", expires_in=timedelta(days=3))
    await set_connection(engine, org, "acme-tiktok", expires_in=timedelta(hours=2), renewable=True)
    await set_connection(engine, org, "acme-mastodon", expires_in=None, instance_url="https://mastodon.example")
    await set_connection(engine, org, "acme-li", status="needs_reauth", error="The platform refused the token.")
    await signed_in(browser_like, org.email, "/dashboard/profiles")

    listed = (await browser_like.get("/dashboard/profiles")).text
    assert {
        slug: cell(listed, slug) for slug in ("acme-x", "acme-tiktok", "acme-mastodon", "acme-li", "acme-bsky")
    } == {
        "acme-x": "connected attention",  # ends in 3 days and Herald cannot renew it
        "acme-tiktok": "connected",  # ends in 2 hours, renewed by Herald
        "acme-mastodon": "connected",  # never ends
        "acme-li": "needs_reauth attention",
        "acme-bsky": "sandbox",
    }
    assert 'href="/dashboard/profiles/acme-x"' in listed
    shown = ending.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")
    assert f"token expires {shown} ({zone})" in listed
    assert "The platform refused the token." in listed

    page = await browser_like.get("/dashboard/profiles/acme-x")
    assert page.status_code == 200
    text = page.text
    assert 'id="connection-status" data-status="connected" data-attention="true"' in text
    assert f"{shown} ({zone})" in re.search(r'id="token-expiry">(.*?)</dd>', text, re.S).group(1)
    assert "Herald cannot renew it" in text
    # X is not set up on this stack: Reconnect is there, disabled, and says why; Disconnect is there.
    assert "not set up" in disabled_with_reason(text, "reconnect")
    assert 'action="/dashboard/profiles/acme-x/disconnect"' in text
    assert 'aria-current="page">Profiles</a>' in text

    renewed = (await browser_like.get("/dashboard/profiles/acme-tiktok")).text
    assert "Herald renews it before then" in renewed and 'data-attention="true"' not in renewed
    # Mastodon reconnects at its instance, named by the form; a sandbox Bluesky profile links to the app-password form.
    mastodon = (await browser_like.get("/dashboard/profiles/acme-mastodon")).text
    assert enabled(mastodon, "reconnect") and 'name="instance_url" value="https://mastodon.example"' in mastodon
    assert 'name="slug" value="acme-mastodon"' in mastodon
    bluesky = (await browser_like.get("/dashboard/profiles/acme-bsky")).text
    assert 'href="/dashboard/profiles#bluesky-title">Connect an account with an app password' in bluesky
    assert 'action="/dashboard/profiles/acme-bsky/disconnect"' not in bluesky  # nothing to disconnect


async def test_the_settings_form_saves_and_shows_a_refusal_with_what_was_typed(browser_like, http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "acme-x", "x", ("eu",))
    token = await signed_in(browser_like, org.email, "/dashboard/profiles/acme-x")
    page = (await browser_like.get("/dashboard/profiles/acme-x")).text
    assert (field(page, "profile-display-name"), field(page, "profile-tags"), field(page, "profile-language")) == (
        "acme-x",
        "eu",
        "",
    )

    form = {"display_name": " Acme <X> ", "tags": "Launch, us, eu", "default_language": "en-gb"}
    saved = await browser_like.post("/dashboard/profiles/acme-x", data=form | {"csrf_token": token})
    assert (saved.status_code, saved.headers["location"]) == (303, "/dashboard/profiles/acme-x?notice=profile-saved")
    after = (await browser_like.get(saved.headers["location"])).text
    assert 'role="status">The profile&#39;s settings are saved.' in after
    assert (field(after, "profile-display-name"), field(after, "profile-tags")) == ("Acme <X>", "eu, launch, us")
    changed = await profile(http, org, "acme-x")
    assert (changed["display_name"], changed["tags"], changed["default_language"]) == (
        "Acme <X>",
        ["eu", "launch", "us"],
        "en-GB",
    )

    # A refusal: the page again, one alert with its code, everything typed kept, nothing saved.
    typed = {"display_name": "Renamed", "tags": "fine, not fine", "default_language": "de"}
    refused = await browser_like.post("/dashboard/profiles/acme-x", data=typed | {"csrf_token": token})
    assert refused.status_code == 400
    assert ALERT_CODE.findall(refused.text) == ["VALIDATION_ERROR"]
    assert refused.text.count('role="alert"') == 1
    assert (field(refused.text, "profile-display-name"), field(refused.text, "profile-tags")) == (
        "Renamed",
        "fine, not fine",
    )
    empty = await browser_like.post(
        "/dashboard/profiles/acme-x", data={"display_name": "  ", "tags": "", "csrf_token": token}
    )
    assert (empty.status_code, ALERT_CODE.findall(empty.text)) == (400, ["VALIDATION_ERROR"])
    assert await profile(http, org, "acme-x") == changed

    # Every form of the page checks its CSRF token before anything else.
    for wrong in (None, "", "x" * 43, token + "x"):
        data = {} if wrong is None else {"csrf_token": wrong}
        for path, fields in (
            ("/dashboard/profiles/acme-x", {"display_name": "Forged", "tags": ""}),
            ("/dashboard/profiles/acme-x/delete", {"confirm": "acme-x"}),
            ("/dashboard/profiles/acme-x/disconnect", {"back": "profile"}),
        ):
            response = await browser_like.post(path, data=fields | data)
            assert response.status_code == 403, (path, wrong)
    assert await profile(http, org, "acme-x") == changed


async def test_delete_is_offered_only_when_the_core_allows_it(browser_like, http, orgs, engine) -> None:
    org = await orgs.with_profiles("x", "mastodon")
    post = await http.post(
        "/v1/posts", json={"content": "Later", "profiles": ["acme-x"], "schedule_at": later()}, headers=org.auth
    )
    post_id = post.json()["posts"][0]["id"]
    token = await signed_in(browser_like, org.email, "/dashboard/profiles/acme-x")

    page = (await browser_like.get("/dashboard/profiles/acme-x")).text
    assert "1 post to this profile has not gone out" in disabled_with_reason(page, "delete-profile")
    assert 'id="delete-confirm"' not in page
    # The core refuses it all the same when the form is sent anyway.
    refused = await browser_like.post(
        "/dashboard/profiles/acme-x/delete", data={"csrf_token": token, "confirm": "acme-x"}
    )
    assert (refused.status_code, ALERT_CODE.findall(refused.text)) == (409, ["PROFILE_IN_USE"])
    assert (await profile(http, org, "acme-x"))["slug"] == "acme-x"

    assert (await http.delete(f"/v1/posts/{post_id}", headers=org.auth)).status_code == 200
    page = (await browser_like.get("/dashboard/profiles/acme-x")).text
    assert enabled(page, "delete-profile") and 'id="delete-confirm"' in page
    for typed in ("", "acme", "ACME-X"):
        unconfirmed = await browser_like.post(
            "/dashboard/profiles/acme-x/delete", data={"csrf_token": token, "confirm": typed}
        )
        assert (unconfirmed.status_code, ALERT_CODE.findall(unconfirmed.text)) == (400, ["VALIDATION_ERROR"]), typed
    assert (await profile(http, org, "acme-x"))["slug"] == "acme-x"
    done = await browser_like.post("/dashboard/profiles/acme-x/delete", data={"csrf_token": token, "confirm": "acme-x"})
    assert (done.status_code, done.headers["location"]) == (303, "/dashboard/profiles?notice=profile-deleted")
    listed = (await browser_like.get(done.headers["location"])).text
    assert "The profile is deleted" in listed and 'data-slug="acme-x"' not in listed
    assert (await http.get("/v1/profiles/acme-x", headers=org.auth)).status_code == 404
    assert (await browser_like.get("/dashboard/profiles/acme-x")).status_code == 404

    # An account is disconnected first: from the page, which it comes back to; then it may go.
    await set_connection(engine, org, "acme-mastodon", expires_in=None)
    page = (await browser_like.get("/dashboard/profiles/acme-mastodon")).text
    assert "disconnect it first" in disabled_with_reason(page, "delete-profile")
    gone = await browser_like.post(
        "/dashboard/profiles/acme-mastodon/disconnect", data={"csrf_token": token, "back": "profile"}
    )
    assert (gone.status_code, gone.headers["location"]) == (
        303,
        "/dashboard/profiles/acme-mastodon?notice=disconnected",
    )
    page = (await browser_like.get(gone.headers["location"])).text
    assert 'data-status="disconnected"' in page and enabled(page, "delete-profile")
    # Without `back`, the list's Disconnect goes back to the list.
    await set_connection(engine, org, "acme-mastodon", expires_in=None)
    listed = await browser_like.post("/dashboard/profiles/acme-mastodon/disconnect", data={"csrf_token": token})
    assert listed.headers["location"] == "/dashboard/profiles?notice=disconnected"


async def test_another_organizations_slug_is_404_on_the_page_and_every_form(browser_like, http, orgs, engine) -> None:
    owner = await orgs.with_profiles("x")
    await set_connection(engine, owner, "acme-x")
    stranger = await orgs()
    token = await signed_in(browser_like, stranger.email, "/dashboard/profiles")
    before = await profile(http, owner, "acme-x")
    for slug in ("acme-x", "nope", "Not%20A%20Slug", "a" * 80):
        page = await browser_like.get(f"/dashboard/profiles/{slug}")
        assert page.status_code == 404, slug
        for path, fields in (
            (f"/dashboard/profiles/{slug}", {"display_name": "Mine", "tags": "", "default_language": ""}),
            (f"/dashboard/profiles/{slug}/delete", {"confirm": slug}),
            (f"/dashboard/profiles/{slug}/delete", {"confirm": "something else"}),
            (f"/dashboard/profiles/{slug}/disconnect", {"back": "profile"}),
        ):
            response = await browser_like.post(path, data=fields | {"csrf_token": token})
            assert response.status_code == 404, (path, fields)
            assert response.headers["content-type"].startswith("text/html")
    assert await profile(http, owner, "acme-x") == before
