"""GCRA (core/ratelimit.py), in process, on a clock the test moves: a whole budget at once after a
quiet window, then one request per emission interval; what a refusal says about when to retry."""

from __future__ import annotations

import pytest

from core.ratelimit import Budget, LocalLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_burst_then_one_per_interval() -> None:
    clock = Clock()
    limiter = LocalLimiter(clock)
    budget = Budget(5, 60)  # one every 12 s, 5 at once
    taken = [await limiter.take("k", budget) for _ in range(5)]
    assert [d.allowed for d in taken] == [True] * 5
    assert [d.remaining for d in taken] == [4, 3, 2, 1, 0]
    assert [d.reset for d in taken] == [12, 24, 36, 48, 60]
    refused = await limiter.take("k", budget)
    assert (refused.allowed, refused.remaining, refused.retry_after) == (False, 0, 12)
    clock.now += 11.9
    assert not (await limiter.take("k", budget)).allowed
    clock.now += 0.1
    again = await limiter.take("k", budget)
    assert again.allowed and again.remaining == 0
    # Other keys have their own budget.
    assert (await limiter.take("other", budget)).remaining == 4
    # A quiet window gives the whole budget back.
    clock.now += 60
    assert (await limiter.take("k", budget)).remaining == 4


async def test_refused_requests_spend_nothing() -> None:
    clock = Clock()
    limiter = LocalLimiter(clock)
    budget = Budget(2, 10)
    assert [(await limiter.take("k", budget)).allowed for _ in range(10)] == [True, True] + [False] * 8
    clock.now += 5  # one interval: exactly one more, however many were refused meanwhile
    assert [(await limiter.take("k", budget)).allowed for _ in range(3)] == [True, False, False]


@pytest.mark.parametrize("text", ["600", "x/60", "0/60", "10/0", "10/-1", "10/100000", ""])
def test_budgets_are_checked(text: str) -> None:
    with pytest.raises(ValueError, match="rate limit"):
        Budget.parse(text)


def test_budget_parses() -> None:
    assert Budget.parse("600/60") == Budget(600, 60.0)
    assert Budget.parse("off") is None and Budget.parse(" OFF ") is None
    assert Budget.parse("600/60").interval_ms == 100
