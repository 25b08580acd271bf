"""Every dashboard form refuses a POST without its CSRF token, or with a wrong one: 403, and
nothing changes."""

from __future__ import annotations

import re
import uuid

import httpx
import pytest

from tests.dashboard_forms import PASSWORD, form_token, signed_in

# One backend: a protocol check: the token is refused before any SQL.
pytestmark = pytest.mark.one_backend

KEY_ROW = re.compile(r'data-key-id="([^"]+)"')


async def key_ids(http: httpx.AsyncClient) -> list[str]:
    page = await http.get("/dashboard/keys")
    assert page.status_code == 200
    return KEY_ROW.findall(page.text)


@pytest.fixture
async def browser_like(stack) -> httpx.AsyncClient:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as client:
        yield client


async def test_signed_in_forms_refuse_missing_or_wrong_tokens(browser_like, orgs, engine) -> None:
    from core import admin

    http = browser_like
    org = await orgs()
    other = f"org-{uuid.uuid4().hex[:10]}"
    await admin.bootstrap(engine, email=org.email, password=PASSWORD, org=other, credits_=None, plan=None)
    good = await signed_in(http, org.email)
    # Another user's valid token, and the pre-session token of the sign-in page: both wrong here.
    async with httpx.AsyncClient(base_url=str(http.base_url), timeout=30) as stranger:
        foreign = await signed_in(stranger, (await orgs()).email)
        stranger.cookies.clear()
        pre_session = form_token(await stranger.get("/login"))

    keys = await key_ids(http)
    assert len(keys) == 1
    # Sign-in opens the user's first organization (slug order); the switch form names the other.
    current = re.search(r'id="organization">([^<]+)<', (await http.get("/dashboard")).text).group(1)
    other = other if current == org.slug else org.slug
    forms = {
        "/dashboard/keys": {},
        f"/dashboard/keys/{keys[0]}/rotate": {},
        f"/dashboard/keys/{keys[0]}/revoke": {},
        "/dashboard/organization": {"organization": other},
        "/dashboard/agents/grt_unknown/revoke": {},
        "/dashboard/profiles": {"slug": "forged", "platform": "x"},
        "/dashboard/brand-voice": {"description": "forged", "never_publish": "forged"},
        "/dashboard/settings": {"name": "forged", "time_zone": "Asia/Tokyo"},
        "/logout": {},
    }
    for path, fields in forms.items():
        for token in (None, "", "x" * 43, foreign, pre_session, good + "x"):
            data = dict(fields) | ({} if token is None else {"csrf_token": token})
            response = await http.post(path, data=data)
            assert response.status_code == 403, (path, token)
            assert response.headers["content-type"].startswith("text/html")

    # Nothing changed: same single key, still valid, same organization, still signed in.
    assert await key_ids(http) == keys
    assert (await http.get("/v1/profiles", headers=org.auth)).status_code == 200
    assert "forged" not in (await http.get("/dashboard/profiles")).text
    assert (await http.get("/v1/brand-voice", headers=org.auth)).json()["version"] == 0
    settings = await http.get("/dashboard/settings")
    assert "forged" not in settings.text and 'Asia/Tokyo" selected' not in settings.text
    overview = await http.get("/dashboard")
    assert overview.status_code == 200
    assert f'id="organization">{current}<' in overview.text

    # The right token is accepted (the same forms work).
    response = await http.post("/dashboard/organization", data={"csrf_token": good, "organization": other})
    assert response.status_code == 303
    assert f'id="organization">{other}<' in (await http.get("/dashboard")).text


async def test_sign_in_and_sign_up_refuse_missing_or_wrong_tokens(browser_like, orgs) -> None:
    http = browser_like
    org = await orgs()
    good = form_token(await http.get("/login"))
    slug = f"new-{uuid.uuid4().hex[:8]}"
    signup = {"email": f"{slug}@example.com", "password": PASSWORD, "organization": slug}
    for token in (None, "", "x" * 43, good + "x"):
        extra = {} if token is None else {"csrf_token": token}
        response = await http.post("/login", data={"email": org.email, "password": PASSWORD} | extra)
        assert response.status_code == 403, token
        assert "herald_session" not in http.cookies
        response = await http.post("/signup", data=signup | extra)
        assert response.status_code == 403, token
        assert "herald_session" not in http.cookies

    # A token without its cookie is refused too (another browser's form).
    async with httpx.AsyncClient(base_url=str(http.base_url), timeout=30) as fresh:
        response = await fresh.post("/signup", data=signup | {"csrf_token": good})
        assert response.status_code == 403

    # Nothing was created: the same sign-up goes through now, with the token, and its user
    # signs in (sign-up opens no session: docs/dashboard.md).
    response = await http.post("/signup", data=signup | {"csrf_token": good})
    assert response.status_code == 303
    assert response.headers["location"] == "/login?notice=signed-up"
    assert "herald_session" not in http.cookies
    response = await http.post("/login", data={"csrf_token": good, "email": signup["email"], "password": PASSWORD})
    assert response.status_code == 303
    assert http.cookies.get("herald_session", "").startswith("hss_")


async def test_unauthenticated_pages_redirect_to_sign_in(browser_like) -> None:
    http = browser_like
    for path in (
        "/dashboard",
        "/dashboard/keys",
        "/dashboard/agents",
        "/dashboard/profiles",
        "/dashboard/credits",
        "/dashboard/brand-voice",
    ):
        response = await http.get(path)
        assert response.status_code == 303, path
        assert response.headers["location"] == "/login?next=" + path.replace("/", "%2F")
    response = await http.post("/dashboard/keys", data={"csrf_token": "x"})
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login")
    # A cookie the core does not know is dropped on the way to the sign-in page.
    http.cookies.set("herald_session", "hss_" + "a" * 40)
    response = await http.get("/dashboard")
    assert response.status_code == 303
    assert "herald_session=" in response.headers.get("set-cookie", "")


async def test_session_cookie_attributes_and_page_headers(browser_like, orgs) -> None:
    http = browser_like
    org = await orgs()
    page = await http.get("/login")
    assert "HttpOnly" in page.headers["set-cookie"]  # the pre-session CSRF nonce
    assert page.headers["cache-control"] == "no-store"
    assert "script-src 'self'" in page.headers["content-security-policy"]
    response = await http.post(
        "/login", data={"csrf_token": form_token(page), "email": org.email, "password": PASSWORD}
    )
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("herald_session=hss_")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    # The stack's base URL is http://127.0.0.1: Secure only on https base URLs.
    assert "Secure" not in cookie


async def test_sign_in_failures_are_one_generic_page(browser_like, orgs) -> None:
    http = browser_like
    org = await orgs()
    token = form_token(await http.get("/login"))
    bodies = []
    for email, password in ((org.email, "wrong password!"), (f"nobody-{org.slug}@example.com", PASSWORD)):
        response = await http.post("/login", data={"csrf_token": token, "email": email, "password": password})
        assert response.status_code == 401
        assert 'role="alert"' in response.text
        bodies.append(re.search(r'role="alert">([^<]*)<', response.text).group(1))
    assert bodies[0] == bodies[1]


async def test_login_next_only_local(browser_like, orgs) -> None:
    http = browser_like
    org = await orgs()
    token = form_token(await http.get("/login"))
    cases = {
        "/dashboard/credits?page=x": "/dashboard/credits?page=x",
        "/api/auth/oauth2/authorize?client_id=c&state=s": "/api/auth/oauth2/authorize?client_id=c&state=s",
        "//evil.example/": "/dashboard",
        "/\\evil.example": "/dashboard",
        "https://evil.example/": "/dashboard",
        "/\t/evil.example": "/dashboard",
        "": "/dashboard",
    }
    for target, expected in cases.items():
        http.cookies.delete("herald_session")
        data = {"csrf_token": token, "email": org.email, "password": PASSWORD, "next": target}
        response = await http.post("/login", data=data)
        assert response.status_code == 303, target
        assert response.headers["location"] == expected, target
