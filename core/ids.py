"""Identifiers: a type prefix and a time-ordered, random, URL-safe body (ULID layout)."""

from __future__ import annotations

import os
import threading
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lowercase
_RANDOM_BITS = 80


# Every 10-bit value as its two characters: an id's 26 characters are 13 lookups.
_PAIRS = [a + b for a in _ALPHABET for b in _ALPHABET]


def _encode(value: int, length: int) -> str:
    """`value` in `length` base32 characters, most significant first (`length` even)."""
    return "".join([_PAIRS[(value >> shift) & 1023] for shift in range(5 * length - 10, -1, -10)])


class _Monotonic:
    """Within one millisecond, later ids of this process get the previous random part plus one,
    so ids made by one process always sort in creation order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_millis = -1
        self._last_random = 0

    def next(self) -> tuple[int, int]:
        with self._lock:
            millis = time.time_ns() // 1_000_000
            if millis <= self._last_millis:
                millis = self._last_millis
                self._last_random = (self._last_random + 1) % (1 << _RANDOM_BITS)
            else:
                self._last_millis = millis
                self._last_random = int.from_bytes(os.urandom(_RANDOM_BITS // 8), "big") >> 1
            return millis, self._last_random


_generator = _Monotonic()


def new_id(prefix: str) -> str:
    """`<prefix>_` + 10 chars of milliseconds + 16 chars of randomness: sorts by creation time,
    which keyset pagination relies on."""
    millis, rand = _generator.next()
    return f"{prefix}_{_encode(millis, 10)}{_encode(rand, 16)}"


def id_at(prefix: str, moment_millis: int) -> str:
    """The smallest id of `prefix` made at `moment_millis` (ms since the epoch): every id made
    before that moment sorts below it, so a primary key range finds records by age."""
    return f"{prefix}_{_encode(moment_millis, 10)}{'0' * 16}"
