"""One grant per agent (docs/oauth.md, "One grant per agent"): a user's consents to one client in
one organization make one grant, widened by each consent that asks for more. The Agents page
lists the agent once; the tokens of each consent keep the scopes they were issued with;
disconnecting the agent revokes every token of every consent."""

from __future__ import annotations

import asyncio
import re

import httpx

from core import admin
from harness.oauth_flow import PASSWORD, code_for, exchange_code, mcp, new_authorization, refresh, register, sign_in
from tests.dashboard_forms import form_token

ROW = re.compile(r'<tr data-grant-id="(grt_[A-Za-z0-9]+)">(.*?)</tr>', re.S)


async def _agents(http: httpx.AsyncClient, session: str) -> tuple[dict[str, list[str]], str]:
    """The Agents page over HTTP: {grant id: its permissions}, and the page's CSRF token."""
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        page = await browser.get("/dashboard/agents")
    assert page.status_code == 200, page.text
    rows = {grant: re.findall(r"<code>([a-z:]+)</code>", row) for grant, row in ROW.findall(page.text)}
    return rows, form_token(page)


async def _disconnect(http: httpx.AsyncClient, session: str, grant_id: str, csrf: str) -> None:
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        response = await browser.post(f"/dashboard/agents/{grant_id}/revoke", data={"csrf_token": csrf})
    assert response.status_code == 303, response.text


async def _consent(http: httpx.AsyncClient, session: str, client_id: str, scope: str) -> dict:
    auth = new_authorization(client_id, scope=scope)
    response = await exchange_code(http, auth, await code_for(http, session, auth))
    assert response.status_code == 200, response.text
    return response.json()


async def _call(http: httpx.AsyncClient, token: str, tool: str, arguments: dict) -> httpx.Response:
    return await mcp(http, token, "tools/call", {"name": tool, "arguments": arguments})


async def test_consents_with_growing_scopes_widen_one_grant(http, channel, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "one-x", "x")
    session = await sign_in(channel, org.email)
    client_id = (await register(http, client_name="Growing agent"))["client_id"]

    first = await _consent(http, session, client_id, "posts:read")
    second = await _consent(http, session, client_id, "posts:read posts:write")
    third = await _consent(http, session, client_id, "posts:read media:write generate:read")

    agents, csrf = await _agents(http, session)
    assert list(agents.values()) == [["generate:read", "media:write", "posts:read", "posts:write"]]
    [grant_id] = agents

    # Each consent's tokens keep the scopes they were issued with: the first still cannot write.
    assert (first["scope"], third["scope"]) == ("posts:read", "generate:read media:write posts:read")
    denied = await _call(http, first["access_token"], "create_post", {"content": "x", "profiles": ["one-x"]})
    assert denied.status_code == 403 and 'error="insufficient_scope"' in denied.headers["www-authenticate"]
    created = await _call(http, second["access_token"], "create_post", {"content": "hi", "profiles": ["one-x"]})
    assert created.status_code == 200 and not created.json()["result"].get("isError"), created.text
    rotated = await refresh(http, client_id, first["refresh_token"])
    assert rotated.status_code == 200 and rotated.json()["scope"] == "posts:read"  # a refresh never widens
    first = rotated.json()

    # Disconnecting the agent revokes every token of every consent.
    await _disconnect(http, session, grant_id, csrf)
    assert (await _agents(http, session))[0] == {}
    for tokens in (first, second, third):
        assert (await mcp(http, tokens["access_token"], "ping")).status_code == 401
        gone = await refresh(http, client_id, tokens["refresh_token"])
        assert (gone.status_code, gone.json()["error"]) == (400, "invalid_grant")

    # Approving it again starts a new grant with only what that consent asks for.
    again = await _consent(http, session, client_id, "posts:read")
    agents, _ = await _agents(http, session)
    assert list(agents.values()) == [["posts:read"]] and grant_id not in agents
    assert (await mcp(http, again["access_token"], "ping")).status_code == 200


async def test_another_organization_or_client_is_another_grant(http, channel, orgs) -> None:
    org = await orgs()
    second_org = f"{org.slug}-b"
    await admin.bootstrap(orgs.engine, email=org.email, password=PASSWORD, org=second_org, credits_=0, plan="active")
    session, elsewhere = await sign_in(channel, org.email), await sign_in(channel, org.email, second_org)
    client_id = (await register(http))["client_id"]
    await _consent(http, session, client_id, "posts:read")
    await _consent(http, elsewhere, client_id, "posts:write")
    await _consent(http, session, (await register(http))["client_id"], "media:write")
    assert sorted((await _agents(http, session))[0].values()) == [["media:write"], ["posts:read"]]
    assert list((await _agents(http, elsewhere))[0].values()) == [["posts:write"]]


async def test_first_consents_racing_make_one_grant(http, channel, orgs) -> None:
    """Two codes of one client exchanged at once: the unique index of active grants makes the
    second exchange widen the grant the first made, not add one."""
    org = await orgs()
    session = await sign_in(channel, org.email)
    client_id = (await register(http))["client_id"]
    for _ in range(3):
        auths = [new_authorization(client_id, scope=s) for s in ("posts:read", "media:write", "posts:write")]
        codes = [await code_for(http, session, auth) for auth in auths]
        answers = await asyncio.gather(*(exchange_code(http, a, c) for a, c in zip(auths, codes, strict=True)))
        assert [a.status_code for a in answers] == [200, 200, 200], [a.text for a in answers]
        agents, csrf = await _agents(http, session)
        assert list(agents.values()) == [["media:write", "posts:read", "posts:write"]]
        await _disconnect(http, session, next(iter(agents)), csrf)
