"""POST {auth_url}/oauth2/register (RFC 7591, docs/oauth.md)."""

from __future__ import annotations

import httpx
import pytest

from harness.oauth_flow import register

URL = "/api/auth/oauth2/register"
OK = {"client_name": "agent", "redirect_uris": ["https://agent.example/cb"]}


async def test_public_client_has_no_secret_and_echoes_metadata(http):
    body = {**OK, "token_endpoint_auth_method": "none", "scope": "posts:read media:write"}
    response = await http.post(URL, json=body)
    assert response.status_code == 201
    assert response.headers["cache-control"] == "no-store"
    client = response.json()
    assert "client_secret" not in client
    assert client["token_endpoint_auth_method"] == "none"
    assert client["redirect_uris"] == body["redirect_uris"]
    assert client["grant_types"] == ["authorization_code", "refresh_token"]
    assert client["response_types"] == ["code"]
    assert set(client["scope"].split()) == {"posts:read", "media:write"}
    assert client["client_name"] == "agent"


async def test_confidential_client_gets_its_secret_once(http):
    response = await http.post(URL, json=OK)
    assert response.status_code == 201
    client = response.json()
    assert client["client_secret"].startswith("hcs_")
    assert client["client_secret_expires_at"] == 0
    assert client["token_endpoint_auth_method"] == "client_secret_basic"
    again = await http.post(URL, json=OK)
    assert again.json()["client_id"] != client["client_id"]  # each call mints a new client


@pytest.mark.parametrize(
    "uri",
    ["http://127.0.0.1/cb", "http://127.0.0.1:8765/cb", "http://[::1]:9/cb", "http://localhost:3000/callback"],
)
async def test_loopback_redirect_uris_are_accepted(http, uri):
    response = await http.post(URL, json={**OK, "redirect_uris": [uri], "token_endpoint_auth_method": "none"})
    assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    ("redirect_uris", "given", "kept"),
    [
        (["http://127.0.0.1:8765/cb"], None, "native"),  # loopback only: an app on the device
        (["http://localhost/cb", "http://[::1]/cb"], None, "native"),
        (["https://agent.example/cb"], None, "web"),
        (["https://agent.example/cb", "http://127.0.0.1/cb"], None, "web"),
        (["http://127.0.0.1/cb"], "web", "web"),  # what the client says is kept
        (["https://agent.example/cb"], "native", "native"),
    ],
)
async def test_application_type_is_kept_or_inferred(http, redirect_uris, given, kept):
    """MCP 2026-07-28 asks clients to send application_type (OpenID Connect Registration 2);
    one that does not gets `native` when every redirect URI is a loopback one, else `web`."""
    body = {**OK, "redirect_uris": redirect_uris, "token_endpoint_auth_method": "none"}
    if given is not None:
        body["application_type"] = given
    response = await http.post(URL, json=body)
    assert response.status_code == 201, response.text
    assert response.json()["application_type"] == kept


async def test_a_client_without_redirect_uris_is_web(http):
    body = {"grant_types": ["client_credentials"], "client_name": "server"}
    response = await http.post(URL, json=body)
    assert response.status_code == 201, response.text
    assert response.json()["application_type"] == "web"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"client_name": "no uris"}, "invalid_redirect_uri"),
        ({**OK, "redirect_uris": ["http://agent.example/cb"]}, "invalid_redirect_uri"),
        ({**OK, "redirect_uris": ["https://agent.example/cb#frag"]}, "invalid_redirect_uri"),
        ({**OK, "redirect_uris": ["com.example.app:/cb"]}, "invalid_redirect_uri"),
        ({**OK, "redirect_uris": "https://agent.example/cb"}, "invalid_redirect_uri"),
        ({**OK, "grant_types": ["password"]}, "invalid_client_metadata"),
        ({**OK, "grant_types": ["implicit"]}, "invalid_client_metadata"),
        ({**OK, "grant_types": ["urn:ietf:params:oauth:grant-type:token-exchange"]}, "invalid_client_metadata"),
        ({**OK, "response_types": ["token"]}, "invalid_client_metadata"),
        ({**OK, "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata"),
        ({**OK, "scope": "admin"}, "invalid_client_metadata"),
        ({**OK, "client_name": 7}, "invalid_client_metadata"),
        ({**OK, "application_type": "desktop"}, "invalid_client_metadata"),
        ({**OK, "application_type": ["web"]}, "invalid_client_metadata"),
        (
            {"grant_types": ["client_credentials"], "token_endpoint_auth_method": "none"},
            "invalid_client_metadata",
        ),
        ([OK], "invalid_client_metadata"),
    ],
)
async def test_bad_metadata_gets_rfc7591_errors(http, body, error):
    response = await http.post(URL, json=body)
    assert response.status_code == 400
    assert response.json()["error"] == error
    assert response.json()["error_description"]
    assert response.headers["cache-control"] == "no-store"


async def test_body_must_be_json(http):
    response = await http.post(
        URL, content=b"client_name=x", headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"
    broken = await http.post(URL, content=b"{not json", headers={"Content-Type": "application/json"})
    assert broken.status_code == 400
    assert broken.json()["error"] == "invalid_client_metadata"


async def test_client_credentials_client_needs_no_redirect_uris(http):
    response = await http.post(URL, json={"client_name": "svc", "grant_types": ["client_credentials"]})
    assert response.status_code == 201, response.text
    assert response.json()["response_types"] == []


async def test_text_that_is_not_unicode_is_invalid_metadata(http):
    body = b'{"client_name": "\\ud800", "redirect_uris": ["https://agent.example/cb"]}'
    response = await http.post(URL, content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"


@pytest.mark.parametrize(
    "client_uri",
    [
        "javascript://x/%0aalert(1)",  # has a "host": only the https rule stops it
        "javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "http://agent.example",  # shown as a link on the consent page: https only
        "https://user@agent.example",
        "https://agent.example/ about",
        "https:///about",
        "HTTPS://agent.example",
    ],
)
async def test_client_uri_must_be_https(http, client_uri):
    response = await http.post(URL, json={**OK, "client_uri": client_uri})
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "invalid_client_metadata"


async def test_uris_herald_keeps_are_echoed_and_others_never(http):
    """client_uri (kept, shown on the consent page) is echoed; logo_uri, tos_uri and policy_uri
    are neither kept nor echoed, whatever they hold (RFC 7591 2: unknown metadata is ignored)."""
    ignored = {name: "javascript:alert(1)" for name in ("logo_uri", "tos_uri", "policy_uri")}
    response = await http.post(URL, json={**OK, "client_uri": "https://agent.example/about", **ignored})
    assert response.status_code == 201, response.text
    assert response.json()["client_uri"] == "https://agent.example/about"
    assert not set(ignored) & set(response.json())


async def test_a_client_uri_kept_from_before_the_rule_is_not_linked(http, channel, orgs, engine):
    """A row registered before client_uri had to be https keeps its value, but the consent page
    links only an https one."""
    from sqlalchemy import update

    from core.db.models import oauth_clients
    from harness.oauth_flow import new_authorization, sign_in

    client = await register(http, client_name="Old Agent", client_uri="https://agent.example")
    async with engine.begin() as conn:
        await conn.execute(
            update(oauth_clients)
            .where(oauth_clients.c.id == client["client_id"])
            .values(client_uri="javascript://x/%0aalert(1)")
        )
    session = await sign_in(channel, (await orgs()).email)
    query = new_authorization(client["client_id"]).query()
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        page = await browser.get(f"/api/auth/oauth2/authorize?{query}")
    assert page.status_code == 200 and "Old Agent" in page.text
    assert "javascript" not in page.text
