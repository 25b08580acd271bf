"""What an API key may do to API keys (core/identity/servicer.py, service.py): rotate itself, and
nothing else; minting, revoking and rotating other keys need a signed-in human (a dashboard
session). A leaked key therefore cannot replace or revoke its owner's other keys."""

from __future__ import annotations

import grpc
import pytest
from herald.identity.v1 import identity_pb2, identity_pb2_grpc

from harness.oauth_flow import sign_in
from tests.core.rpc_helpers import error_info


def _bearer(secret: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {secret}"),)


async def _key_id(identity, secret: str) -> str:
    return (await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=_bearer(secret))).credential_id


async def _forbidden(call) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call
    assert (refused.value.code(), error_info(refused.value).reason) == (grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN")


async def test_a_key_rotates_itself_and_touches_no_other_key(channel, orgs) -> None:
    identity = identity_pb2_grpc.IdentityServiceStub(channel)
    org = await orgs()
    other = await orgs.new_key(org)  # the same user's, in the same organization
    other_id = await _key_id(identity, other)

    await _forbidden(
        identity.RotateApiKey(identity_pb2.RotateApiKeyRequest(api_key_id=other_id), metadata=org.metadata)
    )
    await _forbidden(
        identity.RevokeApiKey(identity_pb2.RevokeApiKeyRequest(api_key_id=other_id), metadata=org.metadata)
    )
    await _forbidden(identity.CreateApiKey(identity_pb2.CreateApiKeyRequest(), metadata=org.metadata))
    # Revoking, even itself, is the dashboard's: the holder of a key rotates it.
    own_id = await _key_id(identity, org.api_key)
    await _forbidden(identity.RevokeApiKey(identity_pb2.RevokeApiKeyRequest(api_key_id=own_id), metadata=org.metadata))
    # Nothing changed: both keys work, and there are still two.
    assert await _key_id(identity, other) == other_id
    listed = await identity.ListApiKeys(identity_pb2.ListApiKeysRequest(), metadata=org.metadata)
    assert sorted(k.id for k in listed.api_keys) == sorted([own_id, other_id])
    assert not any(k.HasField("revoke_time") for k in listed.api_keys)

    rotated = await identity.RotateApiKey(identity_pb2.RotateApiKeyRequest(api_key_id=own_id), metadata=org.metadata)
    assert await _key_id(identity, rotated.secret) == rotated.api_key.id
    with pytest.raises(grpc.aio.AioRpcError) as gone:
        await _key_id(identity, org.api_key)
    assert error_info(gone.value).reason == "UNAUTHORIZED"
    assert await _key_id(identity, other) == other_id


async def test_a_session_manages_every_key_of_its_user(channel, orgs) -> None:
    identity = identity_pb2_grpc.IdentityServiceStub(channel)
    org = await orgs()
    second, third = await orgs.new_key(org), await orgs.new_key(org)
    human = _bearer(await sign_in(channel, org.email))

    created = await identity.CreateApiKey(identity_pb2.CreateApiKeyRequest(), metadata=human)
    assert await _key_id(identity, created.secret) == created.api_key.id
    rotated = await identity.RotateApiKey(
        identity_pb2.RotateApiKeyRequest(api_key_id=await _key_id(identity, second)), metadata=human
    )
    assert await _key_id(identity, rotated.secret) == rotated.api_key.id
    revoked = await identity.RevokeApiKey(
        identity_pb2.RevokeApiKeyRequest(api_key_id=await _key_id(identity, third)), metadata=human
    )
    assert revoked.HasField("revoke_time")
    for old in (second, third):
        with pytest.raises(grpc.aio.AioRpcError) as gone:
            await _key_id(identity, old)
        assert error_info(gone.value).reason == "UNAUTHORIZED"
    assert (await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=org.metadata)).organization
