"""The unit of work of one RPC: its connection, principal and clock, reachable by servicers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.audit.record import Pending
from core.db.engine import transaction
from core.identity.principal import Principal
from core.ratelimit import Limiter
from core.settings import CoreSettings


@dataclass(slots=True)
class Call:
    """Everything a servicer needs for one authenticated call. The connection is inside the
    call's single transaction: committed when the servicer returns, rolled back on any error.
    (For a method whose policy is not transactional, `conn` is None: use `transaction()`.)"""

    conn: AsyncConnection
    # None only in methods whose policy is anonymous.
    principal: Principal
    settings: CoreSettings
    now: datetime
    # The organization's balance as the response should report it; a servicer that moves
    # credits sets it from the debit's result.
    credits_remaining: int
    engine: AsyncEngine | None = None
    # The caller's network address (contract/caller.py): the facade's client, or the gRPC peer.
    client_address: str = ""
    # Where per-address and per-credential budgets are counted (core/ratelimit.py).
    limiter: Limiter | None = None
    # The audit event the call records once it succeeds (core/audit/record.py), written by the
    # unit of work; a hot path may write it in a round trip of its own making. None for methods
    # that change nothing, or have no principal.
    audit: Pending | None = None

    @asynccontextmanager
    async def transaction(self, *, writes: bool = False) -> AsyncIterator[AsyncConnection]:
        """A short transaction of its own, for non-transactional methods."""
        assert self.engine is not None
        async with transaction(self.engine, writes=writes) as conn:
            yield conn


_current: ContextVar[Call] = ContextVar("herald_call")


def current_call() -> Call:
    """The Call of the RPC being served. The unit-of-work interceptor awaits the servicer in
    the same task that set it, so this is always the caller's own."""
    return _current.get()


def bind_call(call: Call) -> object:
    return _current.set(call)


def unbind_call(token: object) -> None:
    _current.reset(token)  # type: ignore[arg-type]
