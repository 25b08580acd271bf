"""The /mcp credential gate (docs/oauth.md, "The /mcp gate"): OAuth access tokens for {base_url}/mcp only."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from herald.catalog.v1 import catalog_pb2, catalog_pb2_grpc
from sqlalchemy import update

from contract.operations import TOOLS
from harness.oauth_flow import MCP_HEADERS, mcp, register, sign_in, tokens_for
from harness.stack import free_port, stop_processes, wait_for_http

# One backend: the gate's protocol: which credential /mcp accepts.
pytestmark = pytest.mark.one_backend


async def _tokens(http, channel, orgs, **register_kwargs):
    org = await orgs()
    session = await sign_in(channel, org.email)
    client = await register(http, **register_kwargs)
    return org, await tokens_for(http, session, client["client_id"], register_kwargs.get("scope", ""))


EVERY_TOOL_SCOPE = "posts:write posts:read media:write generate:read generate:write"


async def test_without_a_token_the_challenge_asks_for_every_scope_the_tools_need(http, stack, channel):
    """MCP scope selection: a client's first authorization asks for the challenge's `scope`, so
    naming every scope the tools need makes one consent enough (docs/oauth.md, "The /mcp gate").
    The resource metadata keeps the three scopes it publishes."""
    response = await mcp(http, None, "initialize")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == (
        f'Bearer scope="{EVERY_TOOL_SCOPE}", resource_metadata="{stack.base_url}/.well-known/oauth-protected-resource"'
    )
    metadata = (await http.get("/.well-known/oauth-protected-resource")).json()
    assert metadata["scopes_supported"] == ["posts:write", "posts:read", "media:write"]
    # Every tool's core method needs only scopes the challenge names (a tool added later too).
    catalog = await catalog_pb2_grpc.CatalogServiceStub(channel).GetCatalog(catalog_pb2.GetCatalogRequest())
    methods = {m.name: set(m.scopes) for m in catalog.methods}
    needed = set().union(*(methods[op.rpc] for op in TOOLS.values()))
    assert needed == set(EVERY_TOOL_SCOPE.split())


async def test_api_keys_sessions_and_garbage_are_invalid_tokens(http, channel, orgs):
    org = await orgs()
    session = await sign_in(channel, org.email)
    for token in (org.api_key, session, "hoa_forged", "x"):
        response = await mcp(http, token, "initialize")
        assert response.status_code == 401, token
        assert 'error="invalid_token"' in response.headers["www-authenticate"]
        assert "resource_metadata=" in response.headers["www-authenticate"]
        assert 'scope="' in response.headers["www-authenticate"]


async def test_oauth_tokens_are_refused_at_v1(http, channel, orgs):
    _, tokens = await _tokens(http, channel, orgs)
    response = await http.get("/v1/profiles", headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert response.status_code == 401
    assert response.json()["code"] == "UNAUTHORIZED"


async def test_initialize_and_tools_list(http, channel, orgs):
    _, tokens = await _tokens(http, channel, orgs)
    init = await mcp(
        http,
        tokens["access_token"],
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )
    assert init.status_code == 200
    assert init.json()["result"]["protocolVersion"] == "2025-06-18"
    assert init.json()["result"]["serverInfo"]["name"] == "herald"
    tools = await mcp(http, tokens["access_token"], "tools/list")
    names = [t["name"] for t in tools.json()["result"]["tools"]]
    assert "list_profiles" in names  # every tool: tests/facades/test_mcp_tools.py
    unknown = await mcp(http, tokens["access_token"], "prompts/list")
    assert unknown.json()["error"]["code"] == -32601


async def test_missing_scope_is_403_insufficient_scope(http, channel, orgs):
    _, tokens = await _tokens(http, channel, orgs, scope="media:write")
    response = await mcp(http, tokens["access_token"], "tools/call", {"name": "list_profiles", "arguments": {}})
    assert response.status_code == 403
    challenge = response.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge
    assert 'scope="posts:read"' in challenge


async def test_get_and_delete_are_405_with_allow_post(http):
    for method in ("GET", "DELETE"):
        response = await http.request(method, "/mcp", headers=MCP_HEADERS)
        assert response.status_code == 405
        assert response.headers["allow"] == "POST"


async def test_expired_token_is_invalid(http, channel, orgs, engine):
    from core.db.models import oauth_tokens
    from core.db.types import utcnow
    from core.identity.opaque_tokens import hash_token

    _, tokens = await _tokens(http, channel, orgs)
    async with engine.begin() as conn:
        await conn.execute(
            update(oauth_tokens)
            .where(oauth_tokens.c.token_hash == hash_token(tokens["access_token"]))
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    response = await mcp(http, tokens["access_token"], "ping")
    assert response.status_code == 401 and 'error="invalid_token"' in response.headers["www-authenticate"]


async def test_token_for_another_audience_is_refused(http, channel, orgs, stack):
    """A second deployment's facade (another {base_url}) on the same core: tokens issued for the
    first one's /mcp are not valid at the second's."""
    _, tokens = await _tokens(http, channel, orgs)
    port = free_port()
    other_base = f"http://127.0.0.1:{port}"
    proc = stack.spawn(
        "facades",
        env={"HERALD_FACADE_LISTEN": f"127.0.0.1:{port}", "HERALD_BASE_URL": other_base},
        log_name="facade-other",
    )
    try:
        wait_for_http(f"{other_base}/readyz", proc)  # its core answers
        async with httpx.AsyncClient(base_url=other_base) as other:
            refused = await mcp(other, tokens["access_token"], "ping")
            assert refused.status_code == 401
            assert 'error="invalid_token"' in refused.headers["www-authenticate"]
        assert (await mcp(http, tokens["access_token"], "ping")).status_code == 200
    finally:
        stop_processes([proc])


async def test_malformed_messages(http, channel, orgs):
    _, tokens = await _tokens(http, channel, orgs)
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {tokens['access_token']}"}
    assert (await http.post("/mcp", content=b"{", headers=auth)).status_code == 400
    assert (
        await http.post("/mcp", json=[{"jsonrpc": "2.0", "id": 1, "method": "ping"}], headers=auth)
    ).status_code == 400
    assert (
        await http.post(
            "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={**auth, "Content-Type": "text/plain"}
        )
    ).status_code == 415
    note = await http.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=auth)
    assert note.status_code == 202
    bad_tool = await http.post(
        "/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nope"}}, headers=auth
    )
    assert bad_tool.json()["error"]["code"] == -32602


async def test_foreign_origins_are_refused(http, channel, orgs, stack):
    _, tokens = await _tokens(http, channel, orgs)
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {tokens['access_token']}"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    foreign = await http.post("/mcp", json=body, headers={**auth, "Origin": "http://evil.example"})
    assert foreign.status_code == 403
    same = await http.post("/mcp", json=body, headers={**auth, "Origin": stack.base_url})
    assert same.status_code == 200
