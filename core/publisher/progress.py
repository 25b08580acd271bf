"""A live delivery's progress store, fenced on the worker's lease (the connectors' `Progress`,
core/connectors/live.py): for the post itself or for one of its parts."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from core.connectors.base import LeaseLost
from core.db.types import utcnow
from core.publisher import outcomes
from core.publisher.queue import Claim


class LeaseProgress:
    """Saves a delivery's progress on the post (position None) or on its part at `position`, only
    while `worker_id` holds the claim's lease, and moves the lease's end forward with every save:
    LeaseLost when another worker holds the post now (then nothing more may be sent)."""

    def __init__(
        self, engine: AsyncEngine, worker_id: str, lease_seconds: float, claim: Claim, position: int | None = None
    ) -> None:
        self.engine = engine
        self.worker_id = worker_id
        self.lease_seconds = lease_seconds
        self.claim = claim
        self.position = position

    async def save(self, state: Mapping[str, Any]) -> None:
        await self._write(dict(state))

    async def keepalive(self) -> None:
        await self._write(None)

    async def _write(self, state: dict[str, Any] | None) -> None:
        now = utcnow()
        lease_end = now + timedelta(seconds=self.lease_seconds)
        saved = await outcomes.save_progress(
            self.engine, self.claim, self.worker_id, state, lease_end, now, position=self.position
        )
        if not saved:
            raise LeaseLost(self.claim.post_id)
