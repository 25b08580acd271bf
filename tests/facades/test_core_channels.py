"""The facade's choice of channel to the core (facades/core_client.py): a call goes to the
connected channel with the fewest calls in flight, the first on a tie, so calls one after
another stay on one channel, concurrent calls spread, and a channel that is not connected is
passed over. Against the real core of the session's stack."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from herald.profiles.v1 import profiles_pb2

from facades.core_client import CoreClient, _InFlight, _open
from facades.errors import ApiError
from harness.stack import free_port

pytestmark = pytest.mark.one_backend  # the facade's own logic: the database decides nothing here


@pytest.fixture
async def core(stack) -> AsyncIterator[CoreClient]:
    client = CoreClient(stack.core_target, timeout=10, channels=3, wait=10)
    yield client
    await client.close()


@pytest.fixture
def chosen(core: CoreClient, monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """The channel of each call, in the order the calls started."""
    seen: list[int | None] = []
    pick = core._in_flight.pick

    def recording(method):
        method, channel = pick(method)
        seen.append(channel)
        return method, channel

    monkeypatch.setattr(core._in_flight, "pick", recording)
    return seen


async def _list(core: CoreClient, org) -> None:
    result = await core.call(
        core.profiles.ListProfiles, profiles_pb2.ListProfilesRequest(), authorization=f"Bearer {org.api_key}"
    )
    assert list(result.response.profiles) == []


async def test_calls_one_after_another_stay_on_the_first_channel(core, chosen, orgs) -> None:
    org = await orgs()
    for _ in range(5):
        await _list(core, org)
    assert chosen == [0] * 5
    assert core._in_flight.counts == [0, 0, 0]  # each call gave its place back


async def test_concurrent_calls_spread_over_the_channels(core, chosen, orgs) -> None:
    org = await orgs()
    await _list(core, org)  # connects every channel (the client waits for them)
    chosen.clear()
    await asyncio.gather(*(_list(core, org) for _ in range(6)))
    # Each started while the others were in flight: one per channel, then again in order.
    assert chosen == [0, 1, 2, 0, 1, 2]
    assert core._in_flight.counts == [0, 0, 0]


async def test_a_failed_call_gives_its_place_back(core, chosen) -> None:
    with pytest.raises(ApiError) as refused:
        await core.call(core.profiles.ListProfiles, profiles_pb2.ListProfilesRequest(), authorization="Bearer svc_no")
    assert refused.value.code == "UNAUTHORIZED"
    assert chosen == [0] and core._in_flight.counts == [0, 0, 0]


async def test_a_channel_that_is_not_connected_is_passed_over(stack, orgs) -> None:
    # The first channel leads nowhere (as one whose core went away): it fails its calls at once,
    # so by its count alone it would always look the least busy.
    core = CoreClient(stack.core_target, timeout=10, channels=3)
    await core._pool[0].channel.close()
    core._pool[0] = _open(f"127.0.0.1:{free_port()}")
    core._in_flight = _InFlight(core._pool)
    try:
        org = await orgs()
        picks = [core._in_flight.pick(core.profiles.ListProfiles)[1] for _ in range(2)]
        for stubs in core._pool[1:]:
            await asyncio.wait_for(stubs.channel.channel_ready(), 10)
        assert [core._in_flight.pick(core.profiles.ListProfiles)[1] for _ in range(3)] == [1, 1, 1]
        await _list(core, org)  # and the call goes through
    finally:
        await core.close()
    # Before any channel was connected, the least busy one was taken whatever its state.
    assert picks == [0, 0]
