"""herald.profiles.v1.ProfileService.CreateProfile: the dashboard's sandbox "connect", for
signed-in humans only."""

from __future__ import annotations

import grpc
import pytest
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc
from herald.profiles.v1 import profiles_pb2, profiles_pb2_grpc

from tests.core.rpc_helpers import error_info

PASSWORD = "correct horse battery"


@pytest.fixture
def profiles(channel):
    return profiles_pb2_grpc.ProfileServiceStub(channel)


async def session_of(channel, email: str) -> tuple[tuple[str, str], ...]:
    session = await accounts_pb2_grpc.AccountServiceStub(channel).SignIn(
        accounts_pb2.SignInRequest(email=email, password=PASSWORD)
    )
    return (("authorization", f"Bearer {session.token}"),)


def request(slug: str, connector: str = "x", **fields: object) -> profiles_pb2.CreateProfileRequest:
    return profiles_pb2.CreateProfileRequest(profile=profiles_pb2.Profile(slug=slug, connector=connector, **fields))


async def refused(call, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    assert error_info(caught.value).reason == reason


async def test_a_session_connects_a_profile(channel, profiles, orgs) -> None:
    org = await orgs()
    session = await session_of(channel, org.email)
    created = await profiles.CreateProfile(
        request("launch-x", "x", display_name="Launch", tags=["EU", "launch", "eu"]), metadata=session
    )
    assert created.id.startswith("prf_")
    assert (created.slug, created.connector, created.display_name) == ("launch-x", "x", "Launch")
    assert list(created.tags) == ["eu", "launch"]
    listed = await profiles.ListProfiles(profiles_pb2.ListProfilesRequest(), metadata=org.metadata)
    assert [p.slug for p in listed.profiles] == ["launch-x"]
    defaulted = await profiles.CreateProfile(request("plain", "bluesky"), metadata=session)
    assert defaulted.display_name == "plain"


async def test_only_sessions_may_connect_profiles(channel, profiles, orgs) -> None:
    org = await orgs()
    await refused(
        profiles.CreateProfile(request("p1"), metadata=org.metadata), grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN"
    )
    await refused(profiles.CreateProfile(request("p1")), grpc.StatusCode.UNAUTHENTICATED, "UNAUTHORIZED")
    listed = await profiles.ListProfiles(profiles_pb2.ListProfilesRequest(), metadata=org.metadata)
    assert list(listed.profiles) == []


async def test_an_organization_without_a_plan_may_connect_profiles(channel, profiles, orgs) -> None:
    org = await orgs(plan="none")
    created = await profiles.CreateProfile(request("first"), metadata=await session_of(channel, org.email))
    assert created.slug == "first"


async def test_connect_validation_and_conflict(channel, profiles, orgs) -> None:
    org = await orgs()
    session = await session_of(channel, org.email)
    await profiles.CreateProfile(request("taken"), metadata=session)
    await refused(
        profiles.CreateProfile(request("taken", "mastodon"), metadata=session),
        grpc.StatusCode.ALREADY_EXISTS,
        "CONFLICT",
    )
    for bad in (
        request(""),
        request("Upper"),
        request("has space"),
        request("ok", "myspace"),
        request("ok", ""),
        request("ok", tags=["no spaces!"]),
        request("ok", display_name="x" * 201),
    ):
        await refused(
            profiles.CreateProfile(bad, metadata=session), grpc.StatusCode.INVALID_ARGUMENT, "VALIDATION_ERROR"
        )
