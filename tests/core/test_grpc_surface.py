"""The core over real gRPC: authentication interceptor, policies, rich errors, key lifecycle,
health and reflection."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from herald.credits.v1 import credits_pb2, credits_pb2_grpc
from herald.identity.v1 import identity_pb2, identity_pb2_grpc
from herald.profiles.v1 import profiles_pb2, profiles_pb2_grpc

from harness.oauth_flow import sign_in
from tests.core.rpc_helpers import error_info


@pytest.fixture
def identity(channel):
    return identity_pb2_grpc.IdentityServiceStub(channel)


async def test_principal_of_an_api_key(identity, orgs) -> None:
    org = await orgs()
    principal = await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=org.metadata)
    assert principal.organization == org.slug
    assert principal.organization_id == org.org_id
    assert principal.user_id == org.user_id
    assert principal.credential_kind == identity_pb2.CREDENTIAL_KIND_API_KEY
    assert principal.credential_id.startswith("key_")
    assert set(principal.scopes) == {"posts:write", "posts:read", "media:write", "generate:read", "generate:write"}
    assert principal.plan == identity_pb2.PLAN_ACTIVE


@pytest.mark.parametrize(
    "metadata",
    [
        (),
        (("authorization", "Bearer nope"),),
        (("authorization", "svc_x"),),
        (("authorization", "Bearer svc_" + "a" * 59),),
    ],
)
async def test_unauthenticated_calls_carry_error_info(channel, metadata) -> None:
    stub = profiles_pb2_grpc.ProfileServiceStub(channel)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.ListProfiles(profiles_pb2.ListProfilesRequest(), metadata=metadata)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    info = error_info(caught.value)
    assert info.reason == "UNAUTHORIZED"
    assert info.domain == "herald.api"


async def test_no_plan_is_failed_precondition(channel, orgs) -> None:
    org = await orgs(plan="none")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await profiles_pb2_grpc.ProfileServiceStub(channel).ListProfiles(
            profiles_pb2.ListProfilesRequest(), metadata=org.metadata
        )
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(caught.value).reason == "SUBSCRIPTION_REQUIRED"


async def test_validation_errors_are_invalid_argument(channel, orgs) -> None:
    org = await orgs()
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await profiles_pb2_grpc.ProfileServiceStub(channel).ListProfiles(
            profiles_pb2.ListProfilesRequest(page_size=100000), metadata=org.metadata
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(caught.value).reason == "VALIDATION_ERROR"


async def test_credit_balance_travels_in_trailing_metadata(channel, orgs) -> None:
    org = await orgs(credits=7)
    call = credits_pb2_grpc.CreditsServiceStub(channel).GetCreditAccount(
        credits_pb2.GetCreditAccountRequest(), metadata=org.metadata
    )
    account = await call
    trailing = dict(await call.trailing_metadata())
    assert account.balance == 7
    assert trailing["herald-credits-remaining"] == "7"
    assert trailing["herald-credits-low"] == "1"


async def test_list_rotate_and_revoke_keys(identity, orgs, channel) -> None:
    org = await orgs()
    second_key = await orgs.new_key(org)
    listed = await identity.ListApiKeys(identity_pb2.ListApiKeysRequest(), metadata=org.metadata)
    assert len(listed.api_keys) == 2
    for key in listed.api_keys:
        assert key.display_prefix.startswith("svc_") and len(key.display_prefix) == 12
        assert org.api_key.startswith(key.display_prefix) or second_key.startswith(key.display_prefix)
        assert not key.HasField("revoke_time")
    # Listing never carries a secret.
    assert org.api_key not in str(listed) and second_key not in str(listed)

    me = await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=org.metadata)
    rotated = await identity.RotateApiKey(
        identity_pb2.RotateApiKeyRequest(api_key_id=me.credential_id), metadata=org.metadata
    )
    assert rotated.secret.startswith("svc_") and rotated.secret != org.api_key
    assert rotated.secret.startswith(rotated.api_key.display_prefix)

    # The old key stops working on the very next call; the new one works.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=org.metadata)
    assert error_info(caught.value).reason == "UNAUTHORIZED"
    new_md = (("authorization", f"Bearer {rotated.secret}"),)
    assert (
        await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=new_md)
    ).credential_id == rotated.api_key.id

    second = next(k for k in listed.api_keys if second_key.startswith(k.display_prefix))
    # Revoking is a signed-in human's (tests/core/test_api_key_powers.py).
    human = (("authorization", f"Bearer {await sign_in(channel, org.email)}"),)
    revoked = await identity.RevokeApiKey(identity_pb2.RevokeApiKeyRequest(api_key_id=second.id), metadata=human)
    assert revoked.HasField("revoke_time")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await identity.GetPrincipal(
            identity_pb2.GetPrincipalRequest(), metadata=(("authorization", f"Bearer {second_key}"),)
        )
    assert error_info(caught.value).reason == "UNAUTHORIZED"
    # Revoking twice is NOT_FOUND.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await identity.RevokeApiKey(identity_pb2.RevokeApiKeyRequest(api_key_id=second.id), metadata=human)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert error_info(caught.value).reason == "NOT_FOUND"


async def test_keys_of_another_organization_cannot_be_touched(identity, orgs, channel) -> None:
    a, b = await orgs(), await orgs()
    a_key_id = (await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=a.metadata)).credential_id
    b_human = (("authorization", f"Bearer {await sign_in(channel, b.email)}"),)
    for call in (
        identity.RevokeApiKey(identity_pb2.RevokeApiKeyRequest(api_key_id=a_key_id), metadata=b_human),
        identity.RotateApiKey(identity_pb2.RotateApiKeyRequest(api_key_id=a_key_id), metadata=b_human),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call
        assert error_info(caught.value).reason == "NOT_FOUND"
    listed = await identity.ListApiKeys(identity_pb2.ListApiKeysRequest(), metadata=b.metadata)
    assert a_key_id not in [k.id for k in listed.api_keys]
    # A's key still works.
    assert (await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=a.metadata)).organization == a.slug


async def test_same_user_in_two_organizations_gets_one_key_per_organization(identity, orgs) -> None:
    first = await orgs()
    other = await orgs(email=first.email)
    p1 = await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=first.metadata)
    p2 = await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=other.metadata)
    assert p1.user_id == p2.user_id
    assert (p1.organization, p2.organization) == (first.slug, other.slug)


async def test_last_use_is_recorded(identity, orgs) -> None:
    org = await orgs()
    await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=org.metadata)
    listed = await identity.ListApiKeys(identity_pb2.ListApiKeysRequest(), metadata=org.metadata)
    assert listed.api_keys[0].HasField("last_use_time")


async def test_health_and_reflection(channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "herald.identity.v1.IdentityService", "herald.profiles.v1.ProfileService"):
        reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    responses = reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    names = set()
    async for response in responses:
        names |= {s.name for s in response.list_services_response.service}
    assert {
        "herald.identity.v1.IdentityService",
        "herald.credits.v1.CreditsService",
        "herald.profiles.v1.ProfileService",
        "grpc.health.v1.Health",
    } <= names
