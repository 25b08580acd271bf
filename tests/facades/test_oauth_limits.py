"""The authorization server's budgets (docs/oauth.md, "Rate limits"), on a stack of this module's
own with small ones: client registrations per address, metadata documents fetched per address
for requests that carry no session, and an agent's calls per (organization, client, user), so
that one tenant cannot spend another's. Addresses other than 127.0.0.1 come through
X-Forwarded-For, which the facade believes from its loopback peer (HERALD_TRUSTED_PROXIES)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import grpc
import httpx
import pytest

from core import admin
from harness.live import client
from harness.oauth_flow import PASSWORD, mcp, new_authorization, register, sign_in, tokens_for
from harness.stack import Stack
from tests.client_documents import DocumentServer
from tests.conftest import stack_of_its_own

pytestmark = pytest.mark.one_backend  # counted in the core's limiter, not in SQL

URL = "/api/auth/oauth2/authorize"


limited = stack_of_its_own(
    "oauth-limits",
    HERALD_RATE_LIMIT_OAUTH_CLIENT="3/60",
    HERALD_RATE_LIMIT_REGISTER_ADDRESS="3/3600",
    HERALD_RATE_LIMIT_CLIENT_METADATA_ADDRESS="3/600",
)


@pytest.fixture
async def web(limited: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with client(limited) as http:
        yield http


@pytest.fixture
async def core(limited: Stack) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(limited.core_target) as channel:
        yield channel


@pytest.fixture(scope="module")
def documents() -> Iterator[DocumentServer]:
    server = DocumentServer()
    yield server
    server.close()


def _from(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


async def test_registrations_are_limited_per_address(web) -> None:
    body = {"client_name": "agent", "redirect_uris": ["https://agent.example/cb"], "token_endpoint_auth_method": "none"}
    url = "/api/auth/oauth2/register"
    for _ in range(3):
        assert (await web.post(url, json=body, headers=_from("192.0.2.10"))).status_code == 201
    refused = await web.post(url, json=body, headers=_from("192.0.2.10"))
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"] == "rate_limited" and refused.json()["error_description"]
    assert 1 <= int(refused.headers["retry-after"]) <= 3600
    assert refused.headers["cache-control"] == "no-store"
    # Another address has its own budget.
    assert (await web.post(url, json=body, headers=_from("192.0.2.11"))).status_code == 201


async def test_metadata_fetches_without_a_session_are_limited_per_address(web, core, orgs, documents) -> None:
    """Only fetches count (a cached document does not), only for requests without a session;
    over the budget the page says so with 429 and sends nobody anywhere."""
    address = _from("203.0.113.5")

    async def ask(client_id: str, headers: dict[str, str], cookies: dict[str, str] | None = None) -> httpx.Response:
        async with httpx.AsyncClient(base_url=web.base_url, cookies=cookies or {}, timeout=30) as browser:
            return await browser.get(f"{URL}?{new_authorization(client_id).query()}", headers=headers)

    cached = documents.publish(documents.url())
    documents.answers[cached.removeprefix(documents.origin)].headers = {"Cache-Control": "max-age=600"}
    for _ in range(4):  # one fetch, then the cache
        assert (await ask(cached, address)).status_code == 303
    assert documents.hits_of(cached) == 1
    for _ in range(2):  # two more fetches: the budget of 3 is spent
        assert (await ask(documents.publish(documents.url()), address)).status_code == 303
    fresh = documents.publish(documents.url())
    refused = await ask(fresh, address)
    assert refused.status_code == 429, refused.text
    assert "location" not in refused.headers
    assert "rate_limited" in refused.text
    assert 1 <= int(refused.headers["retry-after"]) <= 600
    assert documents.hits_of(fresh) == 0  # refused before fetching
    assert (await ask(cached, address)).status_code == 303  # the cached document costs nothing
    # Another address goes on; so does a signed-in human at the spent one (a session is no
    # anonymous request).
    assert (await ask(fresh, _from("198.51.100.7"))).status_code == 303
    org = await orgs()
    session = await sign_in(core, org.email)
    page = await ask(documents.publish(documents.url()), address, {"herald_session": session})
    assert page.status_code == 200, page.text


async def test_an_agent_budget_is_per_organization_and_user(web, core, engine, orgs, documents) -> None:
    """One metadata-document client (one client id for every tenant) used by a human in two
    organizations and by someone else in a third: spending it in one leaves the others whole."""
    first = await orgs()
    second_slug = f"{first.slug}-two"
    await admin.bootstrap(engine, email=first.email, password=PASSWORD, org=second_slug, credits_=10, plan="active")
    other = await orgs()
    client_id = documents.publish(documents.url())
    call = {"name": "list_profiles", "arguments": {}}

    async def token(email: str, organization: str) -> str:
        session = await sign_in(core, email, organization)
        return (await tokens_for(web, session, client_id))["access_token"]

    spender = await token(first.email, first.slug)
    same_human_other_org = await token(first.email, second_slug)
    someone_else = await token(other.email, other.slug)
    for _ in range(3):
        answer = (await mcp(web, spender, "tools/call", call)).json()
        assert not answer["result"].get("isError"), answer
    spent = (await mcp(web, spender, "tools/call", call)).json()
    assert spent["result"]["isError"] is True and "RATE_LIMITED" in str(spent["result"]), spent
    for fine in (same_human_other_org, someone_else):
        answer = (await mcp(web, fine, "tools/call", call)).json()
        assert not answer["result"].get("isError"), answer


async def test_a_registered_client_budget_is_per_organization(web, core, orgs) -> None:
    client = await register(web, token_endpoint_auth_method="none")
    call = {"name": "list_profiles", "arguments": {}}
    tokens = []
    for org in (await orgs(), await orgs()):
        session = await sign_in(core, org.email)
        tokens.append((await tokens_for(web, session, client["client_id"]))["access_token"])
    for _ in range(3):
        assert not (await mcp(web, tokens[0], "tools/call", call)).json()["result"].get("isError")
    assert (await mcp(web, tokens[0], "tools/call", call)).json()["result"]["isError"] is True
    assert not (await mcp(web, tokens[1], "tools/call", call)).json()["result"].get("isError")
