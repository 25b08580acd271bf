"""POST {auth_url}/oauth2/revoke (RFC 7009) and /oauth2/introspect (RFC 7662), docs/oauth.md."""

from __future__ import annotations

import pytest

from harness.oauth_flow import code_for, exchange_code, mcp, new_authorization, refresh, register, sign_in, tokens_for

REVOKE = "/api/auth/oauth2/revoke"
INTROSPECT = "/api/auth/oauth2/introspect"


@pytest.fixture
async def session(channel, orgs):
    org = await orgs()
    return await sign_in(channel, org.email)


async def _confidential_tokens(http, session):
    client = await register(http, token_endpoint_auth_method="client_secret_post")
    auth = new_authorization(client["client_id"])
    code = await code_for(http, session, auth)
    response = await exchange_code(http, auth, code, client_secret=client["client_secret"])
    assert response.status_code == 200, response.text
    return client, response.json()


async def test_public_client_revokes_an_access_token_without_a_secret(http, session):
    client = await register(http)
    tokens = await tokens_for(http, session, client["client_id"])
    response = await http.post(
        REVOKE,
        data={"token": tokens["access_token"], "token_type_hint": "access_token", "client_id": client["client_id"]},
    )
    assert response.status_code == 200
    assert (await mcp(http, tokens["access_token"], "ping")).status_code == 401
    # Revoking an access token leaves its refresh token usable.
    refreshed = await refresh(http, client["client_id"], tokens["refresh_token"])
    assert refreshed.status_code == 200


async def test_unknown_tokens_and_tokens_of_other_clients_answer_200_and_change_nothing(http, session):
    client = await register(http)
    other = await register(http)
    tokens = await tokens_for(http, session, client["client_id"])
    unknown = await http.post(REVOKE, data={"token": "hoa_nothing", "client_id": client["client_id"]})
    assert unknown.status_code == 200
    foreign = await http.post(REVOKE, data={"token": tokens["access_token"], "client_id": other["client_id"]})
    assert foreign.status_code == 200
    assert (await mcp(http, tokens["access_token"], "ping")).status_code == 200


async def test_revoke_errors(http, session):
    client, tokens = await _confidential_tokens(http, session)
    no_secret = await http.post(REVOKE, data={"token": tokens["access_token"], "client_id": client["client_id"]})
    assert no_secret.status_code == 401 and no_secret.json()["error"] == "invalid_client"
    no_token = await http.post(
        REVOKE, data={"client_id": client["client_id"], "client_secret": client["client_secret"]}
    )
    assert no_token.status_code == 400 and no_token.json()["error"] == "invalid_request"
    assert (await mcp(http, tokens["access_token"], "ping")).status_code == 200


async def test_introspection_for_confidential_clients(http, session, stack):
    client, tokens = await _confidential_tokens(http, session)
    auth = (client["client_id"], client["client_secret"])
    live = await http.post(INTROSPECT, data={"token": tokens["access_token"]}, auth=auth)
    assert live.status_code == 200
    body = live.json()
    assert body["active"] is True
    assert body["client_id"] == client["client_id"]
    assert body["aud"] == f"{stack.base_url}/mcp"
    assert body["token_type"] == "access_token"
    assert body["exp"] - body["iat"] == 604800
    assert body["sub"].startswith("usr_") and body["organization"]
    refresh = (await http.post(INTROSPECT, data={"token": tokens["refresh_token"]}, auth=auth)).json()
    assert refresh["token_type"] == "refresh_token"
    assert refresh["exp"] - refresh["iat"] == 2592000  # 30 days (docs/api.md, "Limits")

    for token in ("hoa_unknown", "garbage"):
        assert (await http.post(INTROSPECT, data={"token": token}, auth=auth)).json() == {"active": False}
    await http.post(REVOKE, data={"token": tokens["refresh_token"]}, auth=auth)
    for token in (tokens["access_token"], tokens["refresh_token"]):
        assert (await http.post(INTROSPECT, data={"token": token}, auth=auth)).json() == {"active": False}


async def test_introspection_refuses_public_clients_and_hides_other_clients_tokens(http, session):
    public = await register(http)
    public_tokens = await tokens_for(http, session, public["client_id"])
    refused = await http.post(
        INTROSPECT, data={"token": public_tokens["access_token"], "client_id": public["client_id"]}
    )
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
    client, _ = await _confidential_tokens(http, session)
    other = await http.post(
        INTROSPECT, data={"token": public_tokens["access_token"]}, auth=(client["client_id"], client["client_secret"])
    )
    assert other.json() == {"active": False}
