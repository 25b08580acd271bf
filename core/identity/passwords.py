"""Password hashing with argon2id (argon2-cffi's defaults, RFC 9106 low-memory profile), and the
hash slots that bound how many run at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

_hasher = PasswordHasher()

MIN_PASSWORD_LENGTH = 10


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(stored_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(stored_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


class HashSlots:
    """The argon2 computations one core process runs at once (each holds 64 MiB: unbounded,
    eight concurrent sign-ins took a core from 107 to 494 MiB), shared by sign-ins and
    sign-ups. Sign-ups may hold at most half of them (at least one), so a flood of anonymous
    sign-ups, each of which must be hashed, cannot keep people who already have an account
    from signing in: with two slots or more, one is always left for sign-ins.

    A sign-up takes a sign-up turn first, then a slot: sign-ups beyond their share wait for a
    turn, never in the slots' own queue, so at least `slots - sign_up_share` slots are always
    left to sign-ins (with one slot, sign-ups and sign-ins share it)."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError("at least one hash slot")
        self.slots = slots
        self.sign_up_share = max(1, slots // 2)
        self._slots = asyncio.Semaphore(slots)
        self._sign_up_turns = asyncio.Semaphore(self.sign_up_share)

    @asynccontextmanager
    async def for_sign_in(self) -> AsyncIterator[None]:
        async with self._slots:
            yield

    @asynccontextmanager
    async def for_sign_up(self) -> AsyncIterator[None]:
        async with self._sign_up_turns, self._slots:
            yield
