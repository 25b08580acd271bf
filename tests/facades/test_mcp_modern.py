"""MCP 2026-07-28 on /mcp, beside the handshake revisions, over raw JSON-RPC: server/discover, the
per-request `_meta`, the mirrored headers and their mismatches, versions, `resultType` and the
caching hints. Results are checked against the revision's own wire types (mcp_types). The SDK's
client drives the same endpoint at its default revision in tests/e2e/test_mcp_agent.py."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest
from mcp_types.methods import validate_server_result
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from harness.oauth_flow import MCP_HEADERS, mcp, register, sign_in, tokens_for

# The transport's rules: nothing here depends on the database.
pytestmark = pytest.mark.one_backend

MODERN = "2026-07-28"
META_KEY = "io.modelcontextprotocol/protocolVersion"


def envelope(version: str = MODERN) -> dict[str, Any]:
    return {
        META_KEY: version,
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1.0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }


class Modern:
    """One access token, speaking 2026-07-28 by hand."""

    def __init__(self, http: httpx.AsyncClient, token: str) -> None:
        self.http = http
        self.token = token

    async def post(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        version: str = MODERN,
        headers: dict[str, str] | None = None,
        meta: bool = True,
    ) -> httpx.Response:
        params = dict(params or {})
        if meta:
            params["_meta"] = envelope(version)
        sent = {**MCP_HEADERS, "Authorization": f"Bearer {self.token}", "MCP-Protocol-Version": version}
        sent["Mcp-Method"] = method
        if method == "tools/call" and "name" in params:
            sent["Mcp-Name"] = params["name"]
        if method == "resources/read" and "uri" in params:
            sent["Mcp-Name"] = params["uri"]
        sent.update(headers or {})
        body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
        return await self.http.post("/mcp", json=body, headers={k: v for k, v in sent.items() if v is not None})

    async def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        response = await self.post(method, params)
        assert response.status_code == 200, response.text
        out = response.json()["result"]
        validate_server_result(method, MODERN, out)  # the revision's own schema, resultType included
        assert out["resultType"] == "complete"
        return out

    async def refused(self, status: int, code: int, method: str, params: dict | None = None, **kw: Any) -> dict:
        response = await self.post(method, params, **kw)
        assert response.status_code == status, response.text
        body = response.json()
        assert body["id"] == 7 and body["error"]["code"] == code, body
        return body["error"]


@pytest.fixture
async def modern(http, channel, orgs) -> Modern:
    org = await orgs()
    await orgs.profile(org, "acme-x", "x", ("launch",))
    tokens = await tokens_for(http, await sign_in(channel, org.email), (await register(http))["client_id"])
    return Modern(http, tokens["access_token"])


async def test_discover_names_every_revision_and_the_server(modern) -> None:
    found = await modern.result("server/discover")
    assert found["supportedVersions"][0] == MODERN
    assert sorted(found["supportedVersions"]) == sorted(KNOWN_PROTOCOL_VERSIONS)
    assert found["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "herald"
    assert found["capabilities"]["tools"] == {"listChanged": False}
    assert "create_post" in found["instructions"]
    assert (found["cacheScope"], found["ttlMs"]) == ("public", 3_600_000)


async def test_tools_list_and_call_at_2026_07_28(modern) -> None:
    listed = await modern.result("tools/list")
    assert (listed["cacheScope"], listed["ttlMs"]) == ("public", 300_000)
    assert (await modern.result("tools/list"))["tools"] == listed["tools"]  # deterministic
    legacy = (await mcp(modern.http, modern.token, "tools/list")).json()["result"]
    assert listed["tools"] == legacy["tools"] and "resultType" not in legacy  # the same tools in both eras

    called = await modern.result("tools/call", {"name": "list_profiles", "arguments": {"tag": "launch"}})
    assert [p["slug"] for p in called["structuredContent"]["profiles"]] == ["acme-x"]
    failed = await modern.result("tools/call", {"name": "list_profiles", "arguments": {"page_size": 900}})
    assert failed["isError"] is True and json.loads(failed["content"][0]["text"])["argument"] == "page_size"


async def test_headers_must_mirror_the_body(modern) -> None:
    call = {"name": "list_profiles", "arguments": {}}
    # The version header disagrees with the _meta.
    await modern.refused(400, -32020, "tools/list", headers={"MCP-Protocol-Version": "2025-11-25"})
    # Mcp-Method missing, or not the body's method.
    await modern.refused(400, -32020, "tools/list", headers={"Mcp-Method": None})
    await modern.refused(400, -32020, "tools/list", headers={"Mcp-Method": "tools/call"})
    # Mcp-Name missing, or not the tool the body calls.
    await modern.refused(400, -32020, "tools/call", call, headers={"Mcp-Name": None})
    await modern.refused(400, -32020, "tools/call", call, headers={"Mcp-Name": "create_post"})
    # The same tool name in the Base64 sentinel form is the same name.
    encoded = "=?base64?" + base64.b64encode(b"list_profiles").decode() + "?="
    assert (await modern.post("tools/call", call, headers={"Mcp-Name": encoded})).status_code == 200


async def test_a_routing_header_sent_twice_is_a_mismatch(modern) -> None:
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": envelope()}}
    headers = [
        *MCP_HEADERS.items(),
        ("Authorization", f"Bearer {modern.token}"),
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/list"),
        ("Mcp-Method", "tools/list"),
    ]
    response = await modern.http.post("/mcp", content=json.dumps(body), headers=headers)
    assert response.status_code == 400 and response.json()["error"]["code"] == -32020


async def test_versions_the_server_does_not_speak_are_refused_with_the_list(modern) -> None:
    error = await modern.refused(400, -32022, "tools/list", version="2099-01-01")
    assert error["data"] == {"supported": list(reversed(KNOWN_PROTOCOL_VERSIONS)), "requested": "2099-01-01"}
    # An unknown version in _meta under a 2026-07-28 header: the headers disagree first.
    await modern.refused(400, -32020, "tools/list", version="2099-01-01", headers={"MCP-Protocol-Version": MODERN})


async def test_a_2026_07_28_request_without_its_meta_is_refused(modern) -> None:
    await modern.refused(400, -32602, "tools/list", meta=False)
    # Without the header either, the same message is a handshake-era request, and answered: the
    # missing _meta is what was refused.
    assert (await mcp(modern.http, modern.token, "tools/list")).status_code == 200


async def test_methods_the_revision_does_not_have_are_404(modern) -> None:
    for method in ("initialize", "ping", "prompts/list", "no/such"):
        await modern.refused(404, -32601, method)
    # Params the revision does not allow: 400 invalid params.
    await modern.refused(400, -32602, "tools/list", {"cursor": 5})
    await modern.refused(400, -32602, "tools/call", {"name": "publish_everything", "arguments": {}})


async def test_notifications_are_acknowledged_and_the_token_still_checked(modern, http) -> None:
    body = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    headers = {**MCP_HEADERS, "MCP-Protocol-Version": MODERN}
    assert (
        await http.post("/mcp", json=body, headers={**headers, "Authorization": f"Bearer {modern.token}"})
    ).status_code == 202
    missing = await http.post("/mcp", json=body, headers=headers)
    assert missing.status_code == 401 and "resource_metadata=" in missing.headers["www-authenticate"]


async def test_an_sse_only_client_gets_one_event(modern) -> None:
    response = await modern.post("server/discover", headers={"Accept": "text/event-stream"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    event, data = response.text.strip().split("\r\n")
    assert event == "event: message" and data.startswith("data: ")
    message = json.loads(data.removeprefix("data: "))
    assert message["id"] == 7 and message["result"]["supportedVersions"][0] == MODERN
    refused = await modern.post("server/discover", headers={"Accept": "text/html"})
    assert refused.status_code == 406


async def test_the_server_and_every_tool_have_icons_herald_serves(modern) -> None:
    found = await modern.result("server/discover")
    server = found["_meta"]["io.modelcontextprotocol/serverInfo"]
    tools = (await modern.result("tools/list"))["tools"]
    sources = {icon["src"] for icon in server["icons"]} | {t["icons"][0]["src"] for t in tools}
    assert all(len(t["icons"]) == 1 and t["icons"][0]["mimeType"] == "image/svg+xml" for t in tools)
    assert len(sources) >= 5  # the server's, and one per kind of tool
    for src in sorted(sources):
        served = await modern.http.get(src)
        assert served.status_code == 200 and served.headers["content-type"].startswith("image/svg+xml"), src
        assert served.text.startswith("<svg") and "<script" not in served.text and "href" not in served.text, src


async def test_the_post_preview_app_is_the_one_resource(modern) -> None:
    found = await modern.result("server/discover")
    assert found["capabilities"]["resources"] == {"listChanged": False}
    assert found["capabilities"]["extensions"]["io.modelcontextprotocol/ui"] == {
        "mimeTypes": ["text/html;profile=mcp-app"]
    }
    listed = await modern.result("resources/list")
    assert [r["uri"] for r in listed["resources"]] == ["ui://herald/post-preview"]
    assert listed["resources"][0]["mimeType"] == "text/html;profile=mcp-app"
    read = await modern.result("resources/read", {"uri": "ui://herald/post-preview"})
    (contents,) = read["contents"]
    assert contents["mimeType"] == "text/html;profile=mcp-app"
    assert contents["_meta"]["ui"]["csp"] == {"connectDomains": [], "resourceDomains": []}
    html = contents["text"]
    # Self-contained: a strict CSP of its own, no external script, style, image or frame.
    assert "default-src 'none'" in html and "ui/initialize" in html
    assert not any(marker in html for marker in ('src="http', 'href="http', "@import", "url(http"))
    # Mcp-Name mirrors the uri; an unknown uri is invalid params; the handshake era has it too.
    await modern.refused(
        400, -32020, "resources/read", {"uri": "ui://herald/post-preview"}, headers={"Mcp-Name": "ui://x"}
    )
    missing = await modern.refused(
        400, -32602, "resources/read", {"uri": "ui://herald/nope"}, headers={"Mcp-Name": "ui://herald/nope"}
    )
    assert missing["data"] == {"uri": "ui://herald/nope"}
    assert (await modern.result("resources/templates/list"))["resourceTemplates"] == []
    legacy = (await mcp(modern.http, modern.token, "resources/read", {"uri": "ui://herald/post-preview"})).json()
    assert legacy["result"]["contents"][0]["text"] == html
