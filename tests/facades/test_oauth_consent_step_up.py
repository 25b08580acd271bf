"""Step-up consent (docs/oauth.md, "Step-up consent"): a client the user already approved in an
organization asking for more sees the consent page list only the new scopes, and say what it
already holds; asking for nothing new, it says so; in another organization, or once its grants
are revoked, everything is new again. The approval still covers every scope requested."""

from __future__ import annotations

import httpx
from herald.identity.v1 import oauth_pb2, oauth_pb2_grpc

from core import admin
from harness.oauth_flow import (
    PASSWORD,
    asked,
    code_for,
    consent,
    exchange_code,
    granted,
    new_authorization,
    redirect_params,
    register,
    sign_in,
)


async def _page(http: httpx.AsyncClient, session: str, query: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=http.base_url, cookies={"herald_session": session}) as browser:
        page = await browser.get(f"/api/auth/oauth2/authorize?{query}")
    assert page.status_code == 200, page.text
    return page


async def test_step_up_consent_shows_only_what_is_new(http, channel, orgs) -> None:
    org = await orgs()
    session = await sign_in(channel, org.email)
    client_id = (await register(http, scope="posts:read"))["client_id"]
    first = await _page(http, session, new_authorization(client_id, scope="posts:read").query())
    assert (asked(first), granted(first)) == (["posts:read"], [])
    read = new_authorization(client_id, scope="posts:read")
    assert (await exchange_code(http, read, await code_for(http, session, read))).status_code == 200

    more = new_authorization(client_id, scope="posts:read posts:write media:write")
    step_up = await _page(http, session, more.query())
    assert granted(step_up) == ["posts:read"]
    assert asked(step_up) == ["media:write", "posts:write"]
    assert "now also asks for" in step_up.text
    tokens = (await exchange_code(http, more, await code_for(http, session, more))).json()
    assert tokens["scope"] == "media:write posts:read posts:write"  # the approval covers every scope asked

    again = await _page(http, session, new_authorization(client_id, scope="posts:write").query())
    assert granted(again) == ["media:write", "posts:read", "posts:write"]
    assert asked(again) == ["posts:write"] and "asks again" in again.text

    other_org = f"{org.slug}-b"
    await admin.bootstrap(orgs.engine, email=org.email, password=PASSWORD, org=other_org, credits_=0, plan="active")
    elsewhere = await _page(http, await sign_in(channel, org.email, other_org), more.query())
    assert (granted(elsewhere), asked(elsewhere)) == ([], ["media:write", "posts:read", "posts:write"])

    stub = oauth_pb2_grpc.OAuthServiceStub(channel)
    as_user = (("authorization", f"Bearer {session}"),)
    for grant in (await stub.ListGrants(oauth_pb2.ListGrantsRequest(), metadata=as_user)).grants:
        await stub.RevokeGrant(oauth_pb2.RevokeGrantRequest(grant_id=grant.id), metadata=as_user)
    revoked = await _page(http, session, more.query())
    assert (granted(revoked), asked(revoked)) == ([], ["media:write", "posts:read", "posts:write"])


async def test_another_clients_grant_does_not_count(http, channel, orgs) -> None:
    org = await orgs()
    session = await sign_in(channel, org.email)
    first, second = (await register(http))["client_id"], (await register(http))["client_id"]
    read = new_authorization(first, scope="posts:read")
    assert (await exchange_code(http, read, await code_for(http, session, read))).status_code == 200
    page = await _page(http, session, new_authorization(second, scope="posts:read posts:write").query())
    assert (granted(page), asked(page)) == ([], ["posts:read", "posts:write"])
    approved = redirect_params(await consent(http, session, new_authorization(second, scope="posts:read").query()))
    assert approved["code"].startswith("hac_")
