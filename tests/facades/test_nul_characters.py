"""NUL characters in any text field are a validation error on both backends (PostgreSQL text
cannot hold them), on every surface, never a 500 (found by schemathesis: a profile slug "\\u0000")."""

from __future__ import annotations

import json

from harness.oauth_flow import register, sign_in, tokens_for

NUL = "a\u0000b"


async def test_v1_fields(http, orgs):
    org = await orgs()
    await orgs.profile(org, "acme-x", "x")
    cases = [
        ("POST", "/v1/posts", {"content": "hi", "profiles": [NUL]}),
        ("POST", "/v1/posts", {"content": NUL, "profiles": ["acme-x"]}),
        ("POST", "/v1/posts", {"content": "hi", "profiles": ["acme-x"], "post_types": {NUL: "post"}}),
        ("POST", "/v1/media/presign", {"filename": NUL, "mime_type": "image/png", "size_bytes": 5}),
        ("GET", "/v1/profiles?tag=a%00b", None),
        ("GET", "/v1/posts?profile=a%00b", None),
        ("GET", "/v1/media/a%00b", None),
    ]
    for method, path, body in cases:
        response = await http.request(method, path, json=body, headers=org.auth)
        assert response.status_code in (400, 404), (path, body, response.text)
        assert response.json()["code"] in ("VALIDATION_ERROR", "NOT_FOUND"), (path, body)
    nothing = await http.get("/v1/posts", headers=org.auth)
    assert nothing.json()["posts"] == []


async def test_oauth_endpoints_answer_in_rfc_shape(http, channel, orgs):
    registered = await http.post(
        "/api/auth/oauth2/register", json={"client_name": NUL, "redirect_uris": ["https://a.example/cb"]}
    )
    assert registered.status_code == 400
    assert registered.json()["error"] == "invalid_client_metadata"
    token = await http.post(
        "/api/auth/oauth2/token", data={"grant_type": "refresh_token", "refresh_token": NUL, "client_id": "x"}
    )
    assert token.status_code == 400 and token.json()["error"] == "invalid_request"
    revoke = await http.post("/api/auth/oauth2/revoke", data={"token": NUL, "client_id": "x"})
    assert revoke.status_code == 400 and revoke.json()["error"] == "invalid_request"


async def test_mcp_tool_arguments(http, channel, orgs):
    org = await orgs()
    session = await sign_in(channel, org.email)
    client = await register(http)
    tokens = await tokens_for(http, session, client["client_id"])
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "list_profiles", "arguments": {"tag": NUL}},
    }
    response = await http.post(
        "/mcp",
        json=body,
        headers={
            "Authorization": f"Bearer {tokens['access_token']}",
            "Accept": "application/json, text/event-stream",
        },
    )
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is True
    assert "structuredContent" not in result
    failure = json.loads(result["content"][0]["text"])
    assert (failure["code"], failure["argument"]) == ("VALIDATION_ERROR", "tag")
