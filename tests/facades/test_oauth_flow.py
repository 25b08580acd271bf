"""The OAuth 2.1 flow over HTTP against the real facade and core: registration, consent,
code exchange, the /mcp gate, refresh rotation, revocation (docs/oauth.md)."""

from __future__ import annotations

from harness.oauth_flow import (
    code_for,
    exchange_code,
    mcp,
    new_authorization,
    refresh,
    register,
    sign_in,
)


async def test_full_flow_register_authorize_token_mcp_refresh_revoke(http, channel, orgs):
    org = await orgs()
    await orgs.profile(org, "brand-x", "x")
    session = await sign_in(channel, org.email)
    client = await register(http)
    assert client["client_id"] and isinstance(client["client_id_issued_at"], int)
    assert "client_secret" not in client

    auth = new_authorization(client["client_id"])
    code = await code_for(http, session, auth)
    response = await exchange_code(http, auth, code)
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    tokens = response.json()
    assert tokens["token_type"] == "Bearer"
    assert tokens["expires_in"] == 604800
    assert set(tokens["scope"].split()) == {"posts:read", "posts:write", "media:write"}

    listed = await mcp(http, tokens["access_token"], "tools/call", {"name": "list_profiles", "arguments": {}})
    assert listed.status_code == 200, listed.text
    assert listed.json()["result"]["structuredContent"]["profiles"][0]["slug"] == "brand-x"

    refreshed = await refresh(http, client["client_id"], tokens["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text
    new = refreshed.json()
    assert new["refresh_token"] != tokens["refresh_token"]
    assert (await mcp(http, new["access_token"], "ping")).status_code == 200

    revoked = await http.post(
        "/api/auth/oauth2/revoke",
        data={"token": new["refresh_token"], "token_type_hint": "refresh_token", "client_id": client["client_id"]},
    )
    assert revoked.status_code == 200
    after = await mcp(http, new["access_token"], "ping")
    assert after.status_code == 401
    assert 'error="invalid_token"' in after.headers["www-authenticate"]
