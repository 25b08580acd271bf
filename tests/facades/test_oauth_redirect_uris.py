"""Crafted redirect URIs at the authorization endpoint (docs/oauth.md, "Redirect URIs"): for a
registered client and for a metadata-document client whose loopback redirect URIs are
http://127.0.0.1/callback, http://localhost/callback and http://[::1]/callback, a requested URI
that smuggles another host (userinfo, escapes, backslashes, look-alike hosts, zone ids) or
another path is refused on a page (400, no Location) signed out, signed in and at the consent
POST, and no code is issued; the token endpoint takes only the authorization request's exact
redirect_uri."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import func, select

from core.db.models import oauth_codes
from core.oauth.clients import metadata_client_key
from harness.oauth_flow import code_for, consent, exchange_code, new_authorization, redirect_params, register, sign_in
from tests.client_documents import DocumentServer

URL = "/api/auth/oauth2/authorize"
REGISTERED = ("http://127.0.0.1/callback", "http://localhost/callback", "http://[::1]/callback")

CRAFTED = (
    "http://127.0.0.1:80@evil.example/callback",
    "http://localhost:80@evil.example/callback",
    "http://[::1]:80@evil.example/callback",
    "http://127.0.0.1@evil.example/callback",
    "http://user@localhost/callback",
    "http://evil.example@[::1]/callback",
    "http://127.0.0.1%40evil.example/callback",
    "http://localhost:80%40evil.example/callback",
    "http://127.0.0.1\\@evil.example/callback",
    "http://evil.example\\@localhost/callback",
    "http://127.0.0.1.evil.example/callback",
    "http://localhost./callback",
    "http://LOCALHOST.evil.example/callback",
    "http://[::1%25lo]:80/callback",
    "http://127.0.0.1:/callback",
)
# Well-formed, and refused only because they are not a registered URI.
MISMATCHED = (
    "http://127.0.0.1/%63allback",
    "http://localhost/callback/..%2F..%2Fevil",
    "http://[::1]:5000/callback?next=https://evil.example",
    "https://localhost/callback",
)
# Only the port differs: these are the registered URIs (RFC 8252 7.3).
ACCEPTED = (
    "http://127.0.0.1:51234/callback",
    "http://localhost:5000/callback",
    "http://LOCALHOST:5000/callback",
    "http://[::1]:5000/callback",
    "http://127.0.0.1:80/callback",
)


@pytest.fixture(scope="module")
def documents() -> Iterator[DocumentServer]:
    server = DocumentServer()
    yield server
    server.close()


def _refused(response: httpx.Response) -> None:
    assert response.status_code == 400, (response.status_code, response.headers.get("location"))
    assert "location" not in response.headers
    assert "invalid_request" in response.text


async def _codes(engine, client_key: str) -> int:
    async with engine.connect() as conn:
        return await conn.scalar(
            select(func.count()).select_from(oauth_codes).where(oauth_codes.c.client_id == client_key)
        )


async def _every_way_refused(http: httpx.AsyncClient, session: str, client_id: str) -> None:
    """Each crafted URI: signed out, signed in, then posted to the consent form (approve and
    deny) with a valid CSRF token taken from a good request's page."""
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        good = new_authorization(client_id, redirect_uri=ACCEPTED[0])
        page = await browser.get(f"{URL}?{good.query()}")
        assert page.status_code == 200, page.text
        form = {
            k: html.unescape(v)
            for k, v in re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)"', page.text)
        }
        assert form["redirect_uri"] == ACCEPTED[0] and form["csrf_token"]
        for uri in CRAFTED + MISMATCHED:
            query = new_authorization(client_id, redirect_uri=uri).query()
            _refused(await http.get(f"{URL}?{query}"))  # before anyone is asked to sign in
            _refused(await browser.get(f"{URL}?{query}"))
            for decision in ("approve", "deny"):
                _refused(await browser.post(URL, data={**form, "redirect_uri": uri, "decision": decision}))
        for uri in ACCEPTED:  # the same client and session do get a consent page for these
            page = await browser.get(f"{URL}?{new_authorization(client_id, redirect_uri=uri).query()}")
            assert page.status_code == 200, (uri, page.text)


async def test_crafted_redirect_uris_of_a_registered_client(http, channel, orgs, engine) -> None:
    org = await orgs()
    session = await sign_in(channel, org.email)
    client = await register(http, redirect_uris=list(REGISTERED))
    await _every_way_refused(http, session, client["client_id"])
    assert await _codes(engine, client["client_id"]) == 0


async def test_crafted_redirect_uris_of_a_metadata_document_client(http, channel, orgs, engine, documents) -> None:
    org = await orgs()
    session = await sign_in(channel, org.email)
    client_id = documents.publish(documents.url(), redirect_uris=REGISTERED)
    await _every_way_refused(http, session, client_id)
    assert await _codes(engine, metadata_client_key(client_id)) == 0


async def test_a_document_listing_such_a_uri_is_refused(http, documents) -> None:
    """What registration refuses, a metadata document may not list either: the client is
    refused on a page (each failure takes the fetch failures' minimum time: asked at once)."""
    listed = (
        "http://127.0.0.1:80@evil.example/callback",
        "http://localhost%40evil.example/callback",
        "http://[::1%25lo]/callback",
        "http://127.0.0.1\\@evil.example/callback",
        "http://localhost./callback",
        "http://127.0.0.1/callback ",
    )
    client_ids = [documents.publish(documents.url(), redirect_uris=(uri,)) for uri in listed]
    answers = await asyncio.gather(
        *(
            http.get(f"{URL}?{new_authorization(client_id, redirect_uri=uri).query()}")
            for client_id, uri in zip(client_ids, listed, strict=True)
        )
    )
    for response in answers:
        assert response.status_code == 400 and "location" not in response.headers
        assert "invalid_client" in response.text


@pytest.mark.parametrize("uri", CRAFTED + ("http://127.0.0.1/callback ", "http://localhost/callback#x"))
async def test_registration_refuses_what_authorization_would(http, uri) -> None:
    response = await http.post(
        "/api/auth/oauth2/register",
        json={"client_name": "agent", "redirect_uris": [uri], "token_endpoint_auth_method": "none"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "invalid_redirect_uri"


async def test_the_token_endpoint_takes_only_the_exact_redirect_uri(http, channel, orgs) -> None:
    """RFC 6749 4.1.3: the code is bound to the redirect_uri as the authorization request sent
    it; the loopback port rule does not apply here, nor does any other spelling. A failed try
    does not use the code up."""
    org = await orgs()
    session = await sign_in(channel, org.email)
    client = await register(http, redirect_uris=list(REGISTERED))
    auth = new_authorization(client["client_id"], redirect_uri="http://127.0.0.1:51234/callback")
    code = await code_for(http, session, auth)
    for other in (
        "http://127.0.0.1/callback",
        "http://127.0.0.1:51235/callback",
        "http://127.0.0.1:51234@evil.example/callback",
        "http://127.0.0.1:51234/callback/",
        "http://127.0.0.1:051234/callback",
        "http://localhost:51234/callback",
        "",
    ):
        response = await exchange_code(http, auth, code, redirect_uri=other or None)
        assert (response.status_code, response.json()["error"]) == (400, "invalid_grant"), other
    assert (await exchange_code(http, auth, code)).status_code == 200

    # Without redirect_uri in the authorization request (one registered URI), none at the token endpoint.
    single = await register(http, redirect_uris=["http://127.0.0.1/callback"])
    bare = new_authorization(single["client_id"])
    params = redirect_params(await consent(http, session, bare.query(redirect_uri=None)))
    sent = await exchange_code(http, bare, params["code"], redirect_uri="http://127.0.0.1/callback")
    assert (sent.status_code, sent.json()["error"]) == (400, "invalid_grant")
    assert (await exchange_code(http, bare, params["code"], redirect_uri=None)).status_code == 200
