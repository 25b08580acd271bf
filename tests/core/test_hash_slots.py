"""Hash slots (core/identity/passwords.py): sign-ups hold at most half of the argon2 slots (at
least one), so a flood of sign-ups always leaves a slot to sign-ins. The policy on its own,
then a real core flooded with sign-ups while a sign-in goes through."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc

from core.identity.passwords import HashSlots

PASSWORD = "correct horse battery"


async def _holding(slots: HashSlots, kind: str, release: asyncio.Event, held: list[str]) -> None:
    async with slots.for_sign_up() if kind == "up" else slots.for_sign_in():
        held.append(kind)
        await release.wait()
    held.remove(kind)


async def _settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


@pytest.mark.parametrize(("slots", "sign_up_share"), [(1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (8, 4)])
async def test_sign_ups_hold_at_most_half_the_slots(slots: int, sign_up_share: int) -> None:
    policy = HashSlots(slots)
    assert policy.sign_up_share == sign_up_share
    release, held = asyncio.Event(), []
    flood = [asyncio.create_task(_holding(policy, "up", release, held)) for _ in range(3 * slots)]
    await _settle()
    assert held.count("up") == sign_up_share  # the rest of the flood waits for a turn
    # Sign-ins arriving now take every slot the sign-ups left, at once.
    sign_ins = [asyncio.create_task(_holding(policy, "in", release, held)) for _ in range(slots)]
    await _settle()
    assert held.count("in") == slots - sign_up_share
    release.set()
    await asyncio.gather(*flood, *sign_ins)
    assert held == []


async def test_with_one_slot_sign_ups_and_sign_ins_share_it() -> None:
    policy = HashSlots(1)
    release, held = asyncio.Event(), []
    first = asyncio.create_task(_holding(policy, "up", release, held))
    await _settle()
    second = asyncio.create_task(_holding(policy, "in", release, held))
    await _settle()
    assert held == ["up"]
    release.set()
    await asyncio.gather(first, second)


async def test_a_sign_in_goes_through_a_flood_of_sign_ups(channel, orgs) -> None:
    """The stack's core has the default two slots. 24 sign-ups at once: sign-ups hash one at a
    time, so they take 24 hash times; a sign-in sent once the first is done takes the other
    slot and answers after one. With one queue for all (the old policy) it waited behind the
    flood: all 24 sign-ups had finished when it answered (2 with the share)."""
    stub = accounts_pb2_grpc.AccountServiceStub(channel)
    org = await orgs()
    finished: list[int] = []
    first_done = asyncio.Event()

    async def sign_up(i: int) -> None:
        slug = f"flood-{uuid.uuid4().hex[:10]}"
        await stub.SignUp(accounts_pb2.SignUpRequest(email=f"{slug}@example.com", password=PASSWORD, organization=slug))
        finished.append(i)
        first_done.set()

    flood = [asyncio.create_task(sign_up(i)) for i in range(24)]
    try:
        await first_done.wait()  # the others are in the core by now, waiting for a hash slot
        session = await stub.SignIn(accounts_pb2.SignInRequest(email=org.email, password=PASSWORD))
        finished_before_sign_in = len(finished)
    finally:
        await asyncio.gather(*flood, return_exceptions=True)
    assert session.token.startswith("hss_")
    assert len(finished) == 24
    assert finished_before_sign_in <= 6, finished_before_sign_in


def test_slots_are_at_least_one() -> None:
    with pytest.raises(ValueError):
        HashSlots(0)
