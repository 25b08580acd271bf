"""OAuth access tokens at the gRPC surface: the same rules as /mcp for internal callers."""

from __future__ import annotations

import grpc
import pytest
from herald.identity.v1 import identity_pb2, identity_pb2_grpc

from harness.oauth_flow import register, sign_in, tokens_for


async def test_access_token_principal_carries_its_scopes_and_audience_is_checked(http, channel, orgs, stack):
    org = await orgs()
    session = await sign_in(channel, org.email)
    client = await register(http, scope="posts:read")
    tokens = await tokens_for(http, session, client["client_id"], "posts:read")
    stub = identity_pb2_grpc.IdentityServiceStub(channel)
    bearer = ("authorization", f"Bearer {tokens['access_token']}")
    principal = await stub.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=(bearer,))
    assert principal.credential_kind == identity_pb2.CREDENTIAL_KIND_OAUTH_ACCESS_TOKEN
    assert list(principal.scopes) == ["posts:read"]
    assert principal.organization == org.slug
    # Without herald-audience metadata the core expects its own {base_url}/mcp.
    explicit = await stub.GetPrincipal(
        identity_pb2.GetPrincipalRequest(), metadata=(bearer, ("herald-audience", f"{stack.base_url}/mcp"))
    )
    assert explicit.user_id == principal.user_id
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.GetPrincipal(
            identity_pb2.GetPrincipalRequest(), metadata=(bearer, ("herald-audience", "https://other.example/mcp"))
        )
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    # An access token cannot mint or list API keys.
    with pytest.raises(grpc.aio.AioRpcError) as forbidden:
        await stub.ListApiKeys(identity_pb2.ListApiKeysRequest(), metadata=(bearer,))
    assert forbidden.value.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_tokens_are_stored_only_as_hashes(http, channel, orgs, engine):
    from sqlalchemy import select

    from core.db.models import oauth_clients, oauth_tokens, sessions

    org = await orgs()
    session = await sign_in(channel, org.email)
    client = await register(http, token_endpoint_auth_method="client_secret_post")
    tokens = await tokens_for(http, session, client["client_id"], client_secret=client["client_secret"])
    async with engine.connect() as conn:
        stored = [r[0] for r in await conn.execute(select(oauth_tokens.c.token_hash))]
        secrets_ = [r[0] for r in await conn.execute(select(oauth_clients.c.secret_hash))]
        session_hashes = [r[0] for r in await conn.execute(select(sessions.c.token_hash))]
    everything = " ".join(str(v) for v in stored + secrets_ + session_hashes)
    for secret in (tokens["access_token"], tokens["refresh_token"], client["client_secret"], session):
        assert secret not in everything
