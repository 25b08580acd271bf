"""The agent flow end to end with real clients (issue 5): register → authorize, with a human
signing in and approving through the real pages in headless Chromium → token → /mcp →
refresh → revoke → 401. Then the same flow driven by the official MCP SDK's OAuth client
provider (discovery, registration, PKCE), with only the browser step scripted."""

from __future__ import annotations

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from harness.oauth_flow import REDIRECT_URI, mcp, new_authorization, refresh, register
from tests.e2e.agent_helpers import MemoryStorage, approve_in_browser, approving_provider

# One backend: the clients' flow in a browser; the OAuth grants' SQL is tested on both databases in test_oauth_token.py.
pytestmark = pytest.mark.one_backend


async def test_agent_flow_through_the_real_pages(page, http, orgs, stack, artifacts_dir, backend):
    org = await orgs()
    await orgs.profile(org, "launch-x", "x")
    client = await register(http, client_name="Browser Agent")
    auth = new_authorization(client["client_id"])
    shots = artifacts_dir / "screenshots"
    shots.mkdir(exist_ok=True)
    url = f"{stack.base_url}/api/auth/oauth2/authorize?{auth.query()}"
    params = await approve_in_browser(page, url, org.email, REDIRECT_URI, shots / f"{backend}-consent.png")
    assert params["state"] == auth.state

    token = await http.post(
        "/api/auth/oauth2/token",
        data={
            "grant_type": "authorization_code",
            "code": params["code"],
            "redirect_uri": REDIRECT_URI,
            "client_id": client["client_id"],
            "code_verifier": auth.verifier,
        },
    )
    assert token.status_code == 200, token.text
    tokens = token.json()
    listed = await mcp(http, tokens["access_token"], "tools/call", {"name": "list_profiles", "arguments": {}})
    assert listed.json()["result"]["structuredContent"]["profiles"][0]["slug"] == "launch-x"

    refreshed = await refresh(http, client["client_id"], tokens["refresh_token"])
    assert refreshed.status_code == 200
    fresh = refreshed.json()
    assert (await mcp(http, fresh["access_token"], "ping")).status_code == 200
    revoke = await http.post(
        "/api/auth/oauth2/revoke", data={"token": fresh["refresh_token"], "client_id": client["client_id"]}
    )
    assert revoke.status_code == 200
    gone = await mcp(http, fresh["access_token"], "ping")
    assert gone.status_code == 401 and 'error="invalid_token"' in gone.headers["www-authenticate"]


async def test_mcp_sdk_oauth_client_provider(page, orgs, stack):
    org = await orgs()
    await orgs.profile(org, "sdk-profile", "bluesky")
    storage = MemoryStorage()
    provider = approving_provider(stack, page, org.email, "http://127.0.0.1:48123/callback", storage)
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http_client:
        transport = streamable_http_client(f"{stack.base_url}/mcp", http_client=http_client)
        async with Client(transport, mode="legacy") as client:
            tools = await client.list_tools()
            assert "list_profiles" in [t.name for t in tools.tools]
            result = await client.call_tool("list_profiles", {})
            assert not result.is_error
            assert result.structured_content["profiles"][0]["slug"] == "sdk-profile"

    # The provider registered a public client through discovery and holds rotating tokens.
    assert storage.client is not None and storage.client.client_id.startswith("cli_")
    assert storage.tokens is not None and storage.tokens.refresh_token
    async with httpx.AsyncClient(base_url=stack.base_url) as http:
        ok = await mcp(http, storage.tokens.access_token, "ping")
        assert ok.status_code == 200
