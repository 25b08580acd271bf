"""Client ID Metadata Documents at the authorization server (docs/oauth.md): a client_id that is
the URL of a document the test serves on loopback (the shared stack allows private targets, as
`make run` does) goes through authorize → consent → token → refresh → revoke; every refusal (a
client_id mismatch, a redirect URI the document does not list, a document too large or too slow,
a URL that is not https off loopback) is shown on a page, never sent to a redirect URI."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import Awaitable, Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from herald.identity.v1 import oauth_pb2, oauth_pb2_grpc

from core.oauth.client_metadata import FETCH_TIMEOUT_SECONDS, MAX_DOCUMENT_BYTES, MIN_FAILURE_SECONDS
from harness.oauth_flow import (
    asked,
    code_for,
    exchange_code,
    granted,
    mcp,
    new_authorization,
    refresh,
    sign_in,
)
from tests.client_documents import Answer, DocumentServer

# One backend: the metadata documents' fetching and checks; the OAuth grants' SQL is tested on both databases in test_oauth_token.py.
pytestmark = pytest.mark.one_backend

URL = "/api/auth/oauth2/authorize"


@pytest.fixture(scope="module")
def documents() -> Iterator[DocumentServer]:
    server = DocumentServer()
    yield server
    server.close()


async def _grants(channel, session: str) -> list[oauth_pb2.Grant]:
    stub = oauth_pb2_grpc.OAuthServiceStub(channel)
    answer = await stub.ListGrants(oauth_pb2.ListGrantsRequest(), metadata=(("authorization", f"Bearer {session}"),))
    return list(answer.grants)


async def _page(http: httpx.AsyncClient, session: str | None, query: str) -> httpx.Response:
    cookies = {"herald_session": session} if session else {}
    async with httpx.AsyncClient(base_url=http.base_url, cookies=cookies) as browser:
        return await browser.get(f"{URL}?{query}")


def _refused_on_a_page(response: httpx.Response, code: str) -> None:
    assert response.status_code == 400, response.text
    assert "location" not in response.headers
    assert code in response.text


@pytest.mark.one_backend
async def test_the_metadata_advertises_metadata_documents_beside_registration(http) -> None:
    doc = (await http.get("/.well-known/oauth-authorization-server")).json()
    assert doc["client_id_metadata_document_supported"] is True
    assert doc["registration_endpoint"].endswith("/api/auth/oauth2/register")


async def test_a_metadata_document_client_from_consent_to_revocation(http, channel, orgs, documents) -> None:
    org = await orgs()
    await orgs.profile(org, "doc-x", "x")
    session = await sign_in(channel, org.email)
    client_id = documents.publish(documents.url(), client_name="Document Agent", client_uri="https://agent.example")
    auth = new_authorization(client_id, scope="posts:read media:write")

    page = await _page(http, session, auth.query())
    assert page.status_code == 200, page.text
    assert "Document Agent" in page.text
    host = re.search(r'<p id="client-host">(.*?)</p>', page.text, re.S)
    assert host and urlsplit(client_id).netloc in host.group(1)

    # Unknown at the token endpoint until a human approved it.
    before = await refresh(http, client_id, "hor_" + "a" * 43)
    assert (before.status_code, before.json()["error"]) == (401, "invalid_client")

    code = await code_for(http, session, auth)
    response = await exchange_code(http, auth, code)
    assert response.status_code == 200, response.text
    tokens = response.json()
    assert tokens["scope"] == "media:write posts:read"
    listed = await mcp(http, tokens["access_token"], "tools/call", {"name": "list_profiles", "arguments": {}})
    assert listed.json()["result"]["structuredContent"]["profiles"][0]["slug"] == "doc-x"

    refreshed = await refresh(http, client_id, tokens["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text
    fresh = refreshed.json()
    [grant] = await _grants(channel, session)
    assert (grant.client_id, grant.client_name) == (client_id, "Document Agent")
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        agents = await browser.get("/dashboard/agents")
    assert agents.status_code == 200 and "Document Agent" in agents.text and client_id in agents.text

    # Its row id is not a second name for it.
    unknown = await refresh(http, "cim_" + "a" * 26, fresh["refresh_token"])
    assert (unknown.status_code, unknown.json()["error"]) == (401, "invalid_client")
    revoked = await http.post("/api/auth/oauth2/revoke", data={"token": fresh["refresh_token"], "client_id": client_id})
    assert revoked.status_code == 200
    gone = await refresh(http, client_id, fresh["refresh_token"])
    assert (gone.status_code, gone.json()["error"]) == (400, "invalid_grant")
    assert await _grants(channel, session) == []


async def test_the_client_follows_its_document(http, channel, orgs, documents) -> None:
    """Each approval refreshes the client from its document (served with no-store here): a new
    name shows on the agents page, a redirect URI taken out of the document stops working."""
    org = await orgs()
    session = await sign_in(channel, org.email)
    client_id = documents.publish(documents.url(), client_name="Old Name")
    first = new_authorization(client_id)
    assert (await exchange_code(http, first, await code_for(http, session, first))).status_code == 200
    assert [g.client_name for g in await _grants(channel, session)] == ["Old Name"]
    documents.publish(client_id, client_name="New Name", redirect_uris=("http://127.0.0.1/other",))
    other = new_authorization(client_id, redirect_uri="http://127.0.0.1:40001/other")
    assert (await exchange_code(http, other, await code_for(http, session, other))).status_code == 200
    assert [g.client_name for g in await _grants(channel, session)] == ["New Name"]  # one grant, widened
    _refused_on_a_page(await _page(http, session, new_authorization(client_id).query()), "invalid_request")


async def test_refusals_are_shown_never_redirected(http, channel, orgs, documents) -> None:
    org = await orgs()
    session = await sign_in(channel, org.email)
    mismatch = documents.url()
    documents.publish(mismatch, client_id=documents.url())
    unlisted = documents.publish(documents.url(), redirect_uris=("http://127.0.0.1/elsewhere",))
    large = documents.url()
    documents.publish(large, policy_uri="https://agent.example/" + "p" * MAX_DOCUMENT_BYTES)
    chunked = documents.url()
    documents.publish(chunked, policy_uri="https://agent.example/" + "p" * MAX_DOCUMENT_BYTES)
    documents.answers[chunked.removeprefix(documents.origin)].chunked = True
    missing = documents.url()  # 404
    redirected = documents.serve(documents.url(), Answer(status=302, headers={"Location": mismatch}))
    secret = documents.publish(documents.url(), token_endpoint_auth_method="client_secret_basic")
    scripted = documents.publish(documents.url(), client_uri="javascript://x/%0aalert(1)")
    plain = documents.publish(documents.url(), client_uri="http://agent.example")
    cases = {
        mismatch: "invalid_client",
        unlisted: "invalid_request",
        large: "invalid_client",
        chunked: "invalid_client",
        missing: "invalid_client",
        redirected: "invalid_client",
        secret: "invalid_client",
        scripted: "invalid_client",  # client_uri, shown as a link, is https only
        plain: "invalid_client",
        "http://agent.example/client.json": "invalid_client",  # http off loopback
        "https://agent.example": "invalid_client",  # no path
    }
    # Each failed fetch takes the same minimum time (the next test): all asked at once.
    queries = [(new_authorization(client_id).query(), code) for client_id, code in cases.items()]
    pages = await asyncio.gather(
        *(_page(http, who, query) for query, _ in queries for who in (session, None))  # None: signed out
    )
    for page, (_, code) in zip(pages, [q for q in queries for _ in (0, 1)], strict=True):
        _refused_on_a_page(page, code)
    assert documents.hits_of(mismatch) >= 1 and documents.hits_of(unlisted) >= 1

    # A document that changes between the consent page and the approval: the approval is refused.
    changing = documents.publish(documents.url())
    auth = new_authorization(changing)
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        page = await browser.get(f"{URL}?{auth.query()}")
        assert page.status_code == 200
        form = dict(re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)"', page.text))
        documents.publish(changing, client_id=documents.url())
        approved = await browser.post(URL, data={**form, "decision": "approve"})
        denied = await browser.post(URL, data={**form, "decision": "deny"})
    _refused_on_a_page(approved, "invalid_client")
    _refused_on_a_page(denied, "invalid_client")


async def _timed(page: Awaitable[httpx.Response]) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = await page
    return response, time.monotonic() - started


@pytest.mark.one_backend
async def test_fetch_failures_answer_alike_after_the_same_minimum_time(http, channel, orgs, documents) -> None:
    """The endpoint is no probe of the network (docs/oauth.md): a document URL where nothing
    listens, one answering 404, one answering too slowly, one answering a page that is not JSON
    and one too large all get the same page, signed in or not, none sooner than the minimum."""
    org = await orgs()
    session = await sign_in(channel, org.email)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/client.json"
    slow = documents.publish(documents.url())
    documents.answers[slow.removeprefix(documents.origin)].delay = FETCH_TIMEOUT_SECONDS + 1
    html_page = documents.serve(documents.url(), Answer(b"<html></html>", content_type="text/html"))
    large = documents.publish(documents.url(), policy_uri="https://agent.example/" + "p" * MAX_DOCUMENT_BYTES)
    urls = [closed, documents.url(), slow, html_page, large]  # the second: 404
    timed = await asyncio.gather(
        *(_timed(_page(http, who, new_authorization(url).query())) for url in urls for who in (None, session))
    )
    bodies = {response.text for response, _ in timed}
    assert len(bodies) == 1, bodies
    for response, elapsed in timed:
        _refused_on_a_page(response, "invalid_client")
        assert elapsed >= MIN_FAILURE_SECONDS, (response.text, elapsed)


@pytest.mark.one_backend
async def test_a_slow_document_is_refused_within_the_time_cap(http, channel, orgs, documents) -> None:
    org = await orgs()
    session = await sign_in(channel, org.email)
    slow = documents.url()
    documents.publish(slow)
    documents.answers[slow.removeprefix(documents.origin)].delay = 6
    started = time.monotonic()
    _refused_on_a_page(await _page(http, session, new_authorization(slow).query()), "invalid_client")
    assert time.monotonic() - started < 5.5


async def test_step_up_for_a_metadata_document_client(http, channel, orgs, documents) -> None:
    """The consent page's step-up (tests/facades/test_oauth_consent_step_up.py) for a client
    known by its document: its grants are found by its row, whatever the document says."""
    org = await orgs()
    session = await sign_in(channel, org.email)
    client_id = documents.publish(documents.url())
    read = new_authorization(client_id, scope="posts:read")
    assert (await exchange_code(http, read, await code_for(http, session, read))).status_code == 200
    documents.publish(client_id, client_name="Renamed Agent")
    page = await _page(http, session, new_authorization(client_id, scope="posts:read posts:write").query())
    assert (granted(page), asked(page)) == (["posts:read"], ["posts:write"])
    assert "Renamed Agent" in page.text
