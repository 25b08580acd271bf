"""POST {auth_url}/oauth2/token: codes, PKCE, refresh rotation, client authentication (docs/oauth.md; RFC 6749 4.1.3, RFC 7636)."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest
from sqlalchemy import update

from harness.oauth_flow import (
    code_for,
    exchange_code,
    mcp,
    new_authorization,
    pkce_pair,
    refresh,
    register,
    sign_in,
    tokens_for,
)

URL = "/api/auth/oauth2/token"


@pytest.fixture
async def session(channel, orgs):
    org = await orgs()
    return await sign_in(channel, org.email)


async def _code(http, session, **register_kwargs):
    client = await register(http, **register_kwargs)
    auth = new_authorization(client["client_id"])
    return client, auth, await code_for(http, session, auth)


def _error(response, status=400):
    assert response.status_code == status, response.text
    assert response.headers["cache-control"] == "no-store"
    return response.json()["error"]


async def test_wrong_verifier_is_invalid_grant_and_the_code_survives(http, session):
    client, auth, code = await _code(http, session)
    other_verifier, _ = pkce_pair()
    assert _error(await exchange_code(http, auth, code, code_verifier=other_verifier)) == "invalid_grant"
    assert (await exchange_code(http, auth, code)).status_code == 200


async def test_malformed_verifier_is_invalid_request(http, session):
    client, auth, code = await _code(http, session)
    assert _error(await exchange_code(http, auth, code, code_verifier="too-short")) == "invalid_request"
    assert _error(await exchange_code(http, auth, code, code_verifier="a" * 129)) == "invalid_request"  # RFC 7636 4.1: 43-128
    assert _error(await exchange_code(http, auth, code, code_verifier=None)) == "invalid_request"


async def test_reused_code_is_refused_and_revokes_what_it_issued(http, session):
    client, auth, code = await _code(http, session)
    first = await exchange_code(http, auth, code)
    assert first.status_code == 200
    tokens = first.json()
    assert (await mcp(http, tokens["access_token"], "ping")).status_code == 200
    assert _error(await exchange_code(http, auth, code)) == "invalid_grant"
    assert (await mcp(http, tokens["access_token"], "ping")).status_code == 401
    assert _error(await refresh(http, client["client_id"], tokens["refresh_token"])) == "invalid_grant"


async def test_redirect_uri_must_repeat_the_authorization_requests(http, session):
    client, auth, code = await _code(http, session)
    assert _error(await exchange_code(http, auth, code, redirect_uri="http://127.0.0.1:43210/other")) == "invalid_grant"


async def test_expired_code_is_invalid_grant(http, session, engine):
    from core.db.models import oauth_codes
    from core.db.types import utcnow
    from core.identity.opaque_tokens import hash_token

    client, auth, code = await _code(http, session)
    async with engine.begin() as conn:
        await conn.execute(
            update(oauth_codes)
            .where(oauth_codes.c.code_hash == hash_token(code))
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    assert _error(await exchange_code(http, auth, code)) == "invalid_grant"


async def test_code_of_another_client_is_invalid_grant(http, session):
    client, auth, code = await _code(http, session)
    other = await register(http)
    auth.client_id = other["client_id"]
    assert _error(await exchange_code(http, auth, code)) == "invalid_grant"


async def test_reused_refresh_token_revokes_the_family(http, session):
    client = await register(http)
    tokens = await tokens_for(http, session, client["client_id"])
    form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client["client_id"]}
    rotated = await http.post(URL, data=form)
    assert rotated.status_code == 200
    new = rotated.json()
    assert (await mcp(http, new["access_token"], "ping")).status_code == 200
    assert _error(await http.post(URL, data=form)) == "invalid_grant"
    assert (await mcp(http, new["access_token"], "ping")).status_code == 401
    follow_up = {**form, "refresh_token": new["refresh_token"]}
    assert _error(await http.post(URL, data=follow_up)) == "invalid_grant"


async def test_refresh_may_narrow_but_not_widen_scope(http, session):
    client = await register(http)
    tokens = await tokens_for(http, session, client["client_id"])
    base = {"grant_type": "refresh_token", "client_id": client["client_id"]}
    wider = await http.post(URL, data={**base, "refresh_token": tokens["refresh_token"], "scope": "generate:read"})
    assert _error(wider) == "invalid_scope"
    narrower = await http.post(URL, data={**base, "refresh_token": tokens["refresh_token"], "scope": "posts:read"})
    assert narrower.status_code == 200
    assert narrower.json()["scope"] == "posts:read"


async def test_expired_refresh_token_is_invalid_grant(http, session, engine):
    from core.db.models import oauth_tokens
    from core.db.types import utcnow
    from core.identity.opaque_tokens import hash_token

    client = await register(http)
    tokens = await tokens_for(http, session, client["client_id"])
    async with engine.begin() as conn:
        await conn.execute(
            update(oauth_tokens)
            .where(oauth_tokens.c.token_hash == hash_token(tokens["refresh_token"]))
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client["client_id"]}
    assert _error(await http.post(URL, data=form)) == "invalid_grant"


@pytest.mark.parametrize(
    ("grant_type", "error"),
    [
        ("password", "unsupported_grant_type"),
        ("implicit", "unsupported_grant_type"),
        ("urn:ietf:params:oauth:grant-type:token-exchange", "unsupported_grant_type"),
        ("urn:ietf:params:oauth:grant-type:jwt-bearer", "unsupported_grant_type"),
        ("", "invalid_request"),
    ],
)
async def test_unsupported_grants(http, grant_type, error):
    client = await register(http)
    form = {"grant_type": grant_type, "client_id": client["client_id"], "username": "a", "password": "b"}
    assert _error(await http.post(URL, data=form)) == error


async def test_body_must_be_form_encoded_and_parameters_single(http):
    client = await register(http)
    as_json = await http.post(URL, json={"grant_type": "client_credentials", "client_id": client["client_id"]})
    assert _error(as_json) == "invalid_request"
    repeated = await http.post(
        URL,
        content=f"grant_type=refresh_token&grant_type=refresh_token&client_id={client['client_id']}",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert _error(repeated) == "invalid_request"


async def test_client_authentication(http, session):
    public = await register(http)
    with_secret = await http.post(
        URL,
        data={
            "grant_type": "refresh_token",
            "refresh_token": "x",
            "client_id": public["client_id"],
            "client_secret": "s",
        },
    )
    assert _error(with_secret, 401) == "invalid_client"
    unknown = await http.post(
        URL, data={"grant_type": "refresh_token", "refresh_token": "x", "client_id": "cli_nobody"}
    )
    assert _error(unknown, 401) == "invalid_client"

    confidential = await register(
        http,
        token_endpoint_auth_method=None,
        grant_types=["client_credentials"],
        redirect_uris=None,
        response_types=None,
    )
    wrong = base64.b64encode(f"{confidential['client_id']}:hcs_wrong".encode()).decode()
    basic = await http.post(URL, data={"grant_type": "client_credentials"}, headers={"Authorization": f"Basic {wrong}"})
    assert _error(basic, 401) == "invalid_client"
    assert basic.headers["www-authenticate"].startswith("Basic")
    no_secret = await http.post(URL, data={"grant_type": "client_credentials", "client_id": confidential["client_id"]})
    assert _error(no_secret, 401) == "invalid_client"


async def test_client_credentials_tokens_are_refused_everywhere(http, orgs):
    client = await register(
        http,
        token_endpoint_auth_method=None,
        grant_types=["client_credentials"],
        redirect_uris=None,
        response_types=None,
    )
    good = base64.b64encode(f"{client['client_id']}:{client['client_secret']}".encode()).decode()
    response = await http.post(
        URL, data={"grant_type": "client_credentials"}, headers={"Authorization": f"Basic {good}"}
    )
    assert response.status_code == 200, response.text
    issued = response.json()
    assert "refresh_token" not in issued
    post_form = await http.post(
        URL,
        data={
            "grant_type": "client_credentials",
            "client_id": client["client_id"],
            "client_secret": client["client_secret"],
        },
    )
    assert post_form.status_code == 200
    at_mcp = await mcp(http, issued["access_token"], "ping")
    assert at_mcp.status_code == 401 and 'error="invalid_token"' in at_mcp.headers["www-authenticate"]
    at_v1 = await http.get("/v1/profiles", headers={"Authorization": f"Bearer {issued['access_token']}"})
    assert at_v1.status_code == 401 and at_v1.json()["code"] == "UNAUTHORIZED"
    # Introspection tells the truth: a token no surface accepts is not active.
    introspected = await http.post(
        "/api/auth/oauth2/introspect",
        data={"token": issued["access_token"]},
        headers={"Authorization": f"Basic {good}"},
    )
    assert introspected.status_code == 200 and introspected.json() == {"active": False}


async def test_client_credentials_scope_stays_within_the_registration(http):
    """No human approves a client_credentials grant, so the registered scope is its ceiling."""
    client = await register(
        http,
        token_endpoint_auth_method=None,
        grant_types=["client_credentials"],
        redirect_uris=None,
        response_types=None,
        scope="posts:read",
    )
    good = base64.b64encode(f"{client['client_id']}:{client['client_secret']}".encode()).decode()
    wider = await http.post(
        URL,
        data={"grant_type": "client_credentials", "scope": "posts:write"},
        headers={"Authorization": f"Basic {good}"},
    )
    assert _error(wider) == "invalid_scope"


async def test_public_client_cannot_use_client_credentials(http):
    client = await register(http)
    response = await http.post(URL, data={"grant_type": "client_credentials", "client_id": client["client_id"]})
    assert _error(response) == "unauthorized_client"


async def test_resource_indicator_must_be_this_mcp(http, session, stack):
    client, auth, code = await _code(http, session)
    assert _error(await exchange_code(http, auth, code, resource="https://elsewhere.example/mcp")) == "invalid_target"
    ok = await exchange_code(http, auth, code, resource=f"{stack.base_url}/mcp")
    assert ok.status_code == 200, ok.text
