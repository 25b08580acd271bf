"""GET/POST {auth_url}/oauth2/authorize: PKCE S256 only, exact redirect URI, consent (docs/oauth.md; RFC 6749 4.1.1)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx

from harness.oauth_flow import (
    REDIRECT_URI,
    code_for,
    consent,
    exchange_code,
    mcp,
    new_authorization,
    redirect_params,
    register,
    sign_in,
)

URL = "/api/auth/oauth2/authorize"


async def _signed_in(http, channel, orgs):
    org = await orgs()
    return org, await sign_in(channel, org.email)


async def test_not_signed_in_goes_to_login_and_back(http):
    client = await register(http)
    query = new_authorization(client["client_id"]).query()
    response = await http.get(f"{URL}?{query}")
    assert response.status_code == 303
    location = urlsplit(response.headers["location"])
    assert location.path == "/login"
    assert parse_qs(location.query)["next"] == [f"{URL}?{query}"]


async def test_consent_page_names_client_scopes_and_organization(http, channel, orgs):
    org, session = await _signed_in(http, channel, orgs)
    client = await register(http, client_name="Acme Poster")
    query = new_authorization(client["client_id"], scope="posts:read media:write").query()
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        page = await browser.get(f"{URL}?{query}")
    assert page.status_code == 200
    assert "Acme Poster" in page.text and "posts:read" in page.text and "media:write" in page.text
    assert "posts:write" not in page.text
    assert org.email in page.text
    assert f'<option value="{org.slug}" selected>' in page.text
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["cache-control"] == "no-store"


async def test_unknown_client_and_mismatched_redirect_are_shown_not_redirected(http, channel, orgs):
    _, session = await _signed_in(http, channel, orgs)
    client = await register(http)
    cookies = {"herald_session": session}
    async with httpx.AsyncClient(base_url=http.base_url, cookies=cookies) as browser:
        unknown = await browser.get(f"{URL}?{new_authorization('cli_unknown').query()}")
        mismatch = await browser.get(
            f"{URL}?{new_authorization(client['client_id']).query(redirect_uri='http://127.0.0.1:43210/other')}"
        )
        foreign = await browser.get(
            f"{URL}?{new_authorization(client['client_id']).query(redirect_uri='https://evil.example/cb')}"
        )
        repeated = await browser.get(f"{URL}?{new_authorization(client['client_id']).query()}&state=again")
    for response in (unknown, mismatch, foreign, repeated):
        assert response.status_code == 400
        assert "location" not in response.headers
    assert "invalid_client" in unknown.text
    assert "invalid_request" in mismatch.text


async def test_loopback_redirect_matches_on_any_port(http, channel, orgs):
    _, session = await _signed_in(http, channel, orgs)
    client = await register(http, redirect_uris=["http://127.0.0.1/callback"])
    auth = new_authorization(client["client_id"], redirect_uri="http://127.0.0.1:51234/callback")
    params = redirect_params(await consent(http, session, auth.query()))
    assert params["state"] == auth.state and params["code"].startswith("hac_")
    # RFC 9207: the response names its issuer, as the metadata's `issuer` says it.
    issuer = (await http.get("/.well-known/oauth-authorization-server")).json()["issuer"]
    assert params["iss"] == issuer
    assert (await exchange_code(http, auth, params["code"])).status_code == 200


async def _redirected_error(http, session, query):
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        response = await browser.get(f"{URL}?{query}")
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.startswith(REDIRECT_URI)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


async def test_request_errors_after_redirect_check_go_back_with_state(http, channel, orgs):
    _, session = await _signed_in(http, channel, orgs)
    client = await register(http)
    auth = new_authorization(client["client_id"])
    cases = {
        "invalid_request": [
            auth.query(code_challenge_method="plain"),
            auth.query(code_challenge=None, code_challenge_method=None),
            auth.query(code_challenge="short"),
        ],
        "unsupported_response_type": [auth.query(response_type="token")],
        "invalid_scope": [auth.query(scope="posts:read admin")],
        "invalid_target": [auth.query(resource="https://elsewhere.example/mcp")],
    }
    for error, queries in cases.items():
        for query in queries:
            params = await _redirected_error(http, session, query)
            assert params["error"] == error, (query, params)
            assert params["state"] == auth.state


async def test_a_human_may_grant_scopes_beyond_the_registration(http, channel, orgs):
    """Step-up (docs/oauth.md, "Scopes, and stepping up"): a client registered for posts:read (as the MCP SDK
    registers, with the resource metadata's scopes) can ask for any scope Herald supports; the
    consent page names each one and the token carries what the human approved."""
    _, session = await _signed_in(http, channel, orgs)
    client = await register(http, scope="posts:read")
    auth = new_authorization(client["client_id"], scope="posts:read generate:read generate:write")
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        page = await browser.get(f"/api/auth/oauth2/authorize?{auth.query()}")
    assert page.status_code == 200
    assert "read brand voice, recent posts and destination limits" in page.text
    code = await code_for(http, session, auth)
    tokens = (await exchange_code(http, auth, code)).json()
    assert tokens["scope"] == "generate:read generate:write posts:read"
    unknown = await _redirected_error(http, session, auth.query(scope="posts:read admin:all"))
    assert unknown["error"] == "invalid_scope"
    assert unknown["iss"] == (await http.get("/.well-known/oauth-authorization-server")).json()["issuer"]


async def test_deny_redirects_access_denied(http, channel, orgs):
    _, session = await _signed_in(http, channel, orgs)
    client = await register(http)
    auth = new_authorization(client["client_id"])
    params = redirect_params(await consent(http, session, auth.query(), decision="deny"))
    assert (params["error"], params["state"]) == ("access_denied", auth.state)
    assert "code" not in params
    assert params["iss"].endswith("/api/auth")  # errors name the issuer too (RFC 9207 2)


async def test_the_token_is_bound_to_the_organization_picked(http, channel, orgs, engine):
    from core import admin

    first = await orgs()
    second_slug = f"{first.slug}-two"
    await admin.bootstrap(
        engine, email=first.email, password="correct horse battery", org=second_slug, credits_=10, plan="active"
    )
    await orgs.profile(first, "first-profile", "x")
    await admin.add_profile(engine, org=second_slug, slug="second-profile", platform="bluesky", tags=[])
    session = await sign_in(channel, first.email, first.slug)
    client = await register(http)
    auth = new_authorization(client["client_id"])
    params = redirect_params(await consent(http, session, auth.query(), organization=second_slug))
    tokens = (await exchange_code(http, auth, params["code"])).json()
    listed = await mcp(http, tokens["access_token"], "tools/call", {"name": "list_profiles", "arguments": {}})
    assert [p["slug"] for p in listed.json()["result"]["structuredContent"]["profiles"]] == ["second-profile"]


async def test_picking_an_organization_of_someone_else_is_refused(http, channel, orgs):
    _, session = await _signed_in(http, channel, orgs)
    stranger = await orgs()
    client = await register(http)
    response = await consent(http, session, new_authorization(client["client_id"]).query(), organization=stranger.slug)
    assert response.status_code == 400
    assert "location" not in response.headers


async def test_consent_without_csrf_token_issues_nothing(http, channel, orgs):
    _, session = await _signed_in(http, channel, orgs)
    client = await register(http)
    auth = new_authorization(client["client_id"])
    form = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": REDIRECT_URI,
        "state": auth.state,
        "code_challenge": auth.challenge,
        "code_challenge_method": "S256",
        "decision": "approve",
    }
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        missing = await browser.post(URL, data=form)
        wrong = await browser.post(URL, data={**form, "csrf_token": "forged"})
    assert missing.status_code == 403 and wrong.status_code == 403
    assert "location" not in missing.headers and "location" not in wrong.headers


async def test_consent_after_the_session_ended_goes_to_login_and_back(http):
    client = await register(http)
    auth = new_authorization(client["client_id"])
    response = await http.post(URL, data={"client_id": client["client_id"], "state": auth.state, "decision": "approve"})
    assert response.status_code == 303
    location = urlsplit(response.headers["location"])
    assert location.path == "/login"
    back = urlsplit(parse_qs(location.query)["next"][0])
    assert back.path == URL
    assert parse_qs(back.query)["client_id"] == [client["client_id"]]
