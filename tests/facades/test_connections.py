"""Connecting accounts over REST on the embedded defaults (sandbox mode, no platform app
configured): what each platform offers, every refusal of the connect routes, the callback's
refusal of an unknown state, and disconnecting. The flows that reach a platform run against fake
platforms and a real PDS in tests/e2e/test_live_*.py."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from sqlalchemy import select

from core.db.models import connect_attempts, profiles
from core.db.types import utcnow
from core.identity.credentials import hash_secret
from core.ids import new_id
from tests.messages import names

RETURN_TO = "/dashboard/profiles"
# An application's page: refused at the start unless the operator lists its origin
# (HERALD_CONNECT_RETURN_ORIGINS; harness/live.py lists one), which this stack does not.
APP_PAGE = "https://app.example/connected"


@pytest.fixture
async def org(orgs):
    org = await orgs()
    await orgs.profile(org, "acme-x", "x", ("eu",))
    return org


@pytest.mark.one_backend
async def test_platforms_say_how_each_connects_and_whether_it_can_here(http, org) -> None:
    listed = await http.get("/v1/platforms", headers=org.auth)
    assert listed.status_code == 200
    body = listed.json()
    assert body["publish_mode"] == "sandbox"
    methods = {p["platform"]: (p["method"], p["available"]) for p in body["platforms"]}
    assert methods == {
        "x": ("oauth", False),
        "bluesky": ("app_password", True),
        "mastodon": ("instance_oauth", True),
        "threads": ("oauth", False),
        "instagram": ("oauth", False),
        "tiktok": ("oauth", False),
        "youtube": ("oauth", False),
        "linkedin": ("oauth", False),
    }
    assert (await http.get("/v1/platforms")).status_code == 401


@pytest.mark.one_backend
async def test_a_platform_without_the_operators_app_is_refused(http, org) -> None:
    refused = await http.post("/v1/profiles:connect", headers=org.auth, json={"platform": "x", "return_to": RETURN_TO})
    assert (refused.status_code, refused.json()["code"]) == (400, "PLATFORM_NOT_CONFIGURED")


@pytest.mark.one_backend
@pytest.mark.parametrize(
    ("body", "argument"),
    [
        ({"platform": "myspace", "return_to": RETURN_TO}, "platform"),
        ({"platform": "bluesky", "return_to": RETURN_TO}, None),  # the request as a whole: another route
        ({"platform": "x", "return_to": "javascript:alert(1)"}, "return_to"),
        ({"platform": "x", "return_to": "//evil.example/"}, "return_to"),
        ({"platform": "x", "return_to": "https://user:pw@app.example/"}, "return_to"),
        ({"platform": "x", "return_to": APP_PAGE}, "return_to"),  # an origin nobody listed
        ({"platform": "x", "return_to": RETURN_TO, "instance_url": "mastodon.social"}, "instance_url"),
        ({"platform": "mastodon", "return_to": RETURN_TO}, "instance_url"),
        ({"platform": "mastodon", "return_to": RETURN_TO, "instance_url": "ftp://m.example"}, "instance_url"),
        ({"platform": "mastodon", "return_to": RETURN_TO, "instance_url": "https://m.example/path"}, "instance_url"),
        # Plain http is for tests and private deployments (HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES).
        ({"platform": "x", "return_to": RETURN_TO, "slug": "Bad Slug"}, "slug"),
        ({"platform": "x", "return_to": RETURN_TO, "tags": ["t"] * 3 + [f"t{n}" for n in range(20)]}, "tags"),
        ({"platform": "x"}, "return_to"),
    ],
    ids=lambda v: str(v)[:40],
)
async def test_connect_refuses_what_it_cannot_do(http, org, body, argument: str | None) -> None:
    refused = await http.post("/v1/profiles:connect", headers=org.auth, json=body)
    assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR"), refused.text
    assert argument is None or names(refused.json(), argument)


@pytest.mark.one_backend
@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"identifier": "", "app_password": "abcd-efgh-ijkl-mnop"}, 400, "VALIDATION_ERROR"),
        ({"identifier": "acme.bsky.social", "app_password": ""}, 400, "VALIDATION_ERROR"),
        (
            {"identifier": "acme.bsky.social", "app_password": "abcd-efgh-ijkl-mnop", "pds_url": "ftp://pds"},
            400,
            "VALIDATION_ERROR",
        ),
        (
            {"identifier": "acme.bsky.social", "app_password": "abcd-efgh-ijkl-mnop", "pds_url": "https://10.0.0.1"},
            502,
            "CONNECTION_FAILED",
        ),
    ],
    ids=["no-identifier", "no-password", "bad-pds", "private-pds"],
)
async def test_connect_bluesky_refusals(http, org, body, status: int, code: str) -> None:
    refused = await http.post("/v1/profiles:connectBluesky", headers=org.auth, json=body)
    assert (refused.status_code, refused.json()["code"]) == (status, code), refused.text
    assert "abcd-efgh" not in refused.text  # the app password is never echoed


@pytest.mark.one_backend
async def test_a_callback_with_an_unknown_state_is_refused_on_a_page(http) -> None:
    page = await http.get("/connect/callback", params={"state": "forged", "code": "c"})
    assert page.status_code == 400
    assert "text/html" in page.headers["content-type"]
    assert "start again" in page.text
    empty = await http.get("/connect/callback")
    assert empty.status_code == 400


async def test_profiles_show_their_connection_and_disconnect_is_idempotent(http, org, engine) -> None:
    listed = (await http.get("/v1/profiles", headers=org.auth)).json()["profiles"]
    (acme,) = [p for p in listed if p["slug"] == "acme-x"]
    assert acme["connection"]["status"] == "sandbox"  # no account was ever connected
    assert acme["connection"]["handle"] is None and acme["connection"]["platform_account_id"] is None
    assert set(acme["connection"]) == {  # when the token expires, never a token
        "status",
        "platform_account_id",
        "handle",
        "avatar_url",
        "instance_url",
        "scopes",
        "token_expires_at",
        "connected_at",
        "error",
        "token_renewable",
        "metrics_error",
        "metrics_unavailable",
    }
    assert acme["connection"]["token_renewable"] is False  # no account, no token to renew
    assert (acme["connection"]["metrics_error"], acme["connection"]["metrics_unavailable"]) == (None, [])

    done = await http.post("/v1/profiles/acme-x/disconnect", headers=org.auth)
    assert done.status_code == 200
    assert done.json()["revoked"] is False  # a sandbox profile has no grant to revoke
    assert done.json()["profile"]["connection"]["status"] == "sandbox"  # there was no account to disconnect
    again = await http.post("/v1/profiles/acme-x/disconnect", headers=org.auth)
    assert again.status_code == 200
    async with engine.connect() as conn:
        row = (
            await conn.execute(select(profiles).where(profiles.c.org_id == org.org_id, profiles.c.slug == "acme-x"))
        ).one()
    assert (row.access_token, row.refresh_token, row.connection_status) == (None, None, "disconnected")

    missing = await http.post("/v1/profiles/nope/disconnect", headers=org.auth)
    assert (missing.status_code, missing.json()["code"]) == (404, "NOT_FOUND")


async def test_another_organizations_profile_cannot_be_disconnected(http, org, orgs) -> None:
    other = await orgs()
    refused = await http.post("/v1/profiles/acme-x/disconnect", headers=other.auth)
    assert (refused.status_code, refused.json()["code"]) == (404, "NOT_FOUND")


async def _attempts(engine) -> int:
    async with engine.connect() as conn:
        return len((await conn.execute(select(connect_attempts.c.id))).all())


# Where a browser must never be sent: another host (directly, scheme-relative, or once browsers
# drop tabs and newlines or read "\\" as "/"), another scheme, credentials, encoded variants that
# are neither a path of the site nor an absolute URL (contract/redirects.py).
HOSTILE_RETURN_TO = [
    "//evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "\t//evil.example",
    "javascript:alert(1)",
    "JavaScript:alert(1)//",
    "data:text/html,<script>alert(1)</script>",
    "https:evil.example",
    "https:/\\evil.example",
    "https:///evil.example",
    "https://user:pw@evil.example/",
    "https://evil.example\\@app.example/",
    "https://app.example/a\tb",
    "%2F%2Fevil.example",
    "%5C%5Cevil.example",
    "evil.example",
    "/" + "a" * 2000,
]
# What a stored return_to may be, as the callback checks it again: a path of this site, or an
# absolute http(s) URL (the core stores one only when the operator listed its origin).
SAFE_RETURN_TO = ["/dashboard/profiles", "/%2F%2Fevil.example", "/a?b=c", APP_PAGE, "http://127.0.0.1:9/back"]


@pytest.mark.one_backend
@pytest.mark.parametrize("return_to", HOSTILE_RETURN_TO, ids=repr)
async def test_connect_refuses_a_return_to_outside_this_site_or_an_app(http, org, engine, return_to: str) -> None:
    before = await _attempts(engine)
    refused = await http.post("/v1/profiles:connect", headers=org.auth, json={"platform": "x", "return_to": return_to})
    assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR"), refused.text
    assert await _attempts(engine) == before


async def _attempt(engine, org, return_to: str) -> str:
    """A started REST connection as the database holds it (written directly: what an earlier
    version of the core, or any bug, may have stored), and its state."""
    state, now = secrets.token_urlsafe(32), utcnow()
    async with engine.begin() as conn:
        await conn.execute(
            connect_attempts.insert().values(
                id=new_id("cnx"),
                state_hash=hash_secret(state),
                org_id=org.org_id,
                user_id=org.user_id,
                session_id=None,
                connector="x",
                instance_url="",
                app_id=None,
                code_verifier="never opened: the user refused",
                redirect_uri="http://127.0.0.1/connect/callback",
                return_to=return_to,
                created_at=now,
                expires_at=now + timedelta(minutes=15),
                used_at=None,
            )
        )
    return state


@pytest.mark.one_backend
@pytest.mark.parametrize(
    "return_to", [*HOSTILE_RETURN_TO[:-1], *SAFE_RETURN_TO], ids=repr
)  # (the last is longer than the column)
async def test_the_callback_redirects_only_to_this_site_or_the_app(http, org, engine, return_to: str) -> None:
    """The user refused on the platform: the callback sends the browser back to return_to with
    the error, or, when return_to is anything else, answers its own page (no redirect)."""
    state = await _attempt(engine, org, return_to)
    back = await http.get("/connect/callback", params={"state": state, "error": "access_denied"})
    if return_to in SAFE_RETURN_TO:
        assert back.status_code == 303, back.text
        sep = "&" if "?" in return_to else "?"
        assert back.headers["location"] == f"{return_to}{sep}error=CONNECTION_FAILED"
    else:
        assert back.status_code == 502, back.headers.get("location")
        assert "location" not in back.headers
        assert "text/html" in back.headers["content-type"]
