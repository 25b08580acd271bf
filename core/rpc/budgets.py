"""Per-address and per-account budgets of the anonymous protocol methods (sign-up, sign-in,
client registration, client metadata fetches), counted by the same limiter as the API keys'
budgets (core/ratelimit.py: Redis when configured, else this process's memory).

A budget is spent before the work it guards (an argon2 hash, a fetch), so a flood is refused
before it costs anything; a limiter that does not answer lets the call through, as for API keys.
"""

from __future__ import annotations

import logging
from functools import cache

from core.errors import RateLimited
from core.ratelimit import Budget
from core.rpc.context import Call

log = logging.getLogger(__name__)


@cache
def budget(text: str) -> Budget | None:
    """A setting's budget (`<requests>/<seconds>`, or `off`: None), parsed once."""
    return Budget.parse(text)


async def spend(call: Call, bucket: str, key: str, setting: str, what: str) -> None:
    """One unit of the budget `setting` for `key` (an address, an account) in `bucket`;
    RateLimited (429, with Retry-After) when it is spent. `what` names the action for people."""
    limit = budget(setting)
    if limit is None or call.limiter is None or not key:
        return
    name = f"{bucket}:{key}"
    try:
        decision = await call.limiter.take(name, limit)
    except Exception:  # Redis down: the service stays up, unlimited, and says so in the log
        log.warning("rate limiter unavailable; %s not counted", bucket, exc_info=True)
        return
    if not decision.allowed:
        raise RateLimited(
            f"too many {what} from here: at most {limit.limit} per {limit.window:g} s; "
            f"retry in {decision.retry_after} s",
            retry_after=str(decision.retry_after),
        )
