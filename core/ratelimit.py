"""Rate limits of Herald's own endpoints (docs/operations.md, "Rate limits").

Each API key and each OAuth client has a budget: HERALD_RATE_LIMIT_API_KEY (3000/60 by default:
50 a second on average, and the whole minute's 3,000 at once after a quiet minute) and
HERALD_RATE_LIMIT_OAUTH_CLIENT (1200/60: an agent's calls), "<requests>/<seconds>", or `off`. Dashboard sessions and the
OAuth protocol endpoints are not counted here (sign-in has its own throttling).

The algorithm is GCRA (generic cell rate algorithm, as in ATM networks and redis-cell): one
number per key, the "theoretical arrival time" of the next request; a request is allowed when
that time, less the burst tolerance, is not in the future, and moves it one emission interval
(window / limit) on. Exact, no window edges, one atomic step.

Where the number lives:
- Redis (HERALD_REDIS_URL), shared by every core of every machine: one Lua script per request,
  run atomically by Redis on its own clock (so cores' clocks never disagree), the key expiring
  when it no longer matters. A counter per request is what Redis is for; in PostgreSQL it would
  be a write (or a row lock held by concurrent requests of one key) on every read.
- Without Redis (the embedded default), in the core process's memory: exact for one core
  process, and per process when several share a port (`herald serve` on a 2-CPU machine lets a
  key make twice its budget). Documented; production sets HERALD_REDIS_URL.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Protocol

# KEYS[1]: the bucket; ARGV: emission interval and burst tolerance, in milliseconds.
# Returns {allowed (0/1), remaining, milliseconds until a request is allowed, milliseconds until
# the budget is whole again}.
_GCRA = """
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local next_tat = tat + interval
local allow_at = next_tat - tolerance
if allow_at > now then
  return {0, 0, allow_at - now, tat - now}
end
redis.call('SET', KEYS[1], next_tat, 'PX', next_tat - now)
return {1, math.floor((now + tolerance - next_tat) / interval), 0, next_tat - now}
"""


@dataclass(frozen=True, slots=True)
class Budget:
    """`limit` requests per `window` seconds, all of them at once after a quiet window."""

    limit: int
    window: float

    @classmethod
    def parse(cls, text: str) -> Budget | None:
        """None for `off`."""
        if text.strip().lower() == "off":
            return None
        requests, _, seconds = text.partition("/")
        try:
            budget = cls(int(requests), float(seconds))
        except ValueError:
            raise ValueError(f"a rate limit is <requests>/<seconds>, e.g. 600/60, not {text!r}") from None
        if budget.limit < 1 or not 0 < budget.window <= 86_400:
            raise ValueError(f"a rate limit needs at least 1 request per 0 to 86,400 seconds, not {text!r}")
        return budget

    @property
    def interval_ms(self) -> int:
        return max(1, round(self.window * 1000 / self.limit))

    @property
    def tolerance_ms(self) -> int:
        return self.interval_ms * self.limit


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    limit: int
    window: float
    remaining: int
    # Whole seconds until a request is allowed again (0 when this one was).
    retry_after: int
    # Whole seconds until the budget is whole again.
    reset: int

    def header_metadata(self) -> str:
        """`limit;window;remaining;reset`, as the facade renders the RateLimit headers from."""
        return f"{self.limit};{self.window:g};{self.remaining};{self.reset}"


def _decision(budget: Budget, allowed: int, remaining: int, wait_ms: float, full_ms: float) -> Decision:
    return Decision(
        bool(allowed),
        budget.limit,
        budget.window,
        max(0, int(remaining)),
        math.ceil(wait_ms / 1000) if not allowed else 0,
        math.ceil(max(0.0, full_ms) / 1000),
    )


class Limiter(Protocol):
    async def take(self, key: str, budget: Budget) -> Decision: ...

    async def close(self) -> None: ...


class LocalLimiter:
    """GCRA in this process's memory (no Redis configured)."""

    def __init__(self, clock: object = time.monotonic) -> None:
        self._tat: dict[str, float] = {}
        self._clock = clock

    async def take(self, key: str, budget: Budget) -> Decision:
        now = self._clock() * 1000  # type: ignore[operator]
        interval, tolerance = budget.interval_ms, budget.tolerance_ms
        tat = max(self._tat.get(key, now), now)
        next_tat = tat + interval
        allow_at = next_tat - tolerance
        if allow_at > now:
            return _decision(budget, 0, 0, allow_at - now, tat - now)
        self._tat[key] = next_tat
        if len(self._tat) > 100_000:  # forget keys whose budget is whole again
            self._tat = {k: v for k, v in self._tat.items() if v > now}
        return _decision(budget, 1, (now + tolerance - next_tat) // interval, 0, next_tat - now)

    async def close(self) -> None:
        pass


class RedisLimiter:
    """GCRA in Redis, shared by every core; one script call per request."""

    def __init__(self, url: str) -> None:
        from redis.asyncio import Redis

        self._redis = Redis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0)
        self._script = self._redis.register_script(_GCRA)

    async def take(self, key: str, budget: Budget) -> Decision:
        allowed, remaining, wait_ms, full_ms = await self._script(
            keys=[f"herald:rl:{key}"], args=[budget.interval_ms, budget.tolerance_ms]
        )
        return _decision(budget, int(allowed), int(remaining), float(wait_ms), float(full_ms))

    async def close(self) -> None:
        await self._redis.aclose()


def limiter(redis_url: str) -> Limiter:
    return RedisLimiter(redis_url) if redis_url else LocalLimiter()
