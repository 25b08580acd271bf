"""Delivering claimed posts: sandbox deliveries go to the outbox; outcomes are classified.

Exactly once: a post's delivery is identified by its delivery key. The sandbox records a delivery
with `INSERT … ON CONFLICT (delivery_key) DO NOTHING`, so it can happen at most once, and a
worker that takes over an expired lease first looks the key up: found means delivered (it only
records the outcome), not found means nothing went out (it delivers). Live connectors (a later
issue) keep the same contract: a platform that honours an idempotency key or can be searched is
looked up; where the outcome cannot be known, the post fails with `delivery_uncertain` for a
human to check instead of risking a second post.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Mapping
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from core.connectors.base import Account, Connector, Delivery, DeliveryError, ErrorClass, OutgoingPost
from core.connectors.registry import CONNECTORS
from core.db.types import utcnow
from core.posts import outbox
from core.publisher import queue
from core.publisher.queue import Claim
from core.settings import CoreSettings

log = logging.getLogger(__name__)

FAILURE_REASONS = {
    ErrorClass.NEEDS_REAUTH: "needs_reauth",
    ErrorClass.PERMANENT: "platform_rejected",
}


def new_worker_id() -> str:
    return f"{socket.gethostname()[:32]}:{os.getpid()}:{secrets.token_hex(3)}"


class Publisher:
    def __init__(
        self,
        settings: CoreSettings,
        engine: AsyncEngine,
        worker_id: str | None = None,
        connectors: Mapping[str, Connector] = CONNECTORS,
    ) -> None:
        if settings.publish_mode != "sandbox":
            raise ValueError("HERALD_PUBLISH_MODE=live needs the live connectors, which are not available yet")
        self.settings = settings
        self.engine = engine
        self.worker_id = worker_id or new_worker_id()
        self.connectors = connectors

    async def publish_due(self) -> int:
        """One round: claims a batch of due posts and delivers them concurrently. Returns how
        many posts it claimed (0: nothing was due)."""
        now = utcnow()
        claims = await queue.claim_due(
            self.engine, self.settings, self.worker_id, now, self.settings.publish_batch_size
        )
        await asyncio.gather(*(self._deliver_safely(claim) for claim in claims))
        return len(claims)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                claimed = await self.publish_due()
            except Exception:
                log.exception("publishing round failed; retrying after the poll interval")
                claimed = 0
            if claimed == 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.settings.publish_poll_seconds)

    async def _deliver_safely(self, claim: Claim) -> None:
        try:
            await self.deliver(claim)
        except Exception:
            # The post stays `publishing`; when the lease ends a worker resolves it by lookup.
            log.exception("delivery of %s failed unexpectedly; its lease will be recovered", claim.post_id)

    async def deliver(self, claim: Claim) -> None:
        connector = self.connectors[claim.connector]
        post = OutgoingPost(
            post_id=claim.post_id,
            delivery_key=claim.delivery_key,
            connector=claim.connector,
            content=claim.content,
            post_type=claim.post_type,
            account=Account(profile_slug=claim.profile_slug, handle=claim.display_name),
            title=claim.title,
            media=claim.media,
        )
        if claim.recovered:
            async with self.engine.connect() as conn:
                existing = await outbox.find(conn, claim.delivery_key)
            if existing is not None:
                log.info("post %s was delivered before its worker stopped; recording it", claim.post_id)
                await self._published(claim, Delivery(existing.platform_post_id, existing.platform_url))
                return
        try:
            delivery = await self._send_to_sandbox(connector, post, claim)
        except DeliveryError as error:
            await self._failed_attempt(claim, error)
            return
        await self._published(claim, delivery)

    async def _send_to_sandbox(self, connector, post: OutgoingPost, claim: Claim) -> Delivery:  # noqa: ANN001
        if self.settings.sandbox_latency_ms:
            await asyncio.sleep(self.settings.sandbox_latency_ms / 1000)
        requests = [r.as_dict() for r in (*connector.media_requests(post), *connector.publish_requests(post))]
        delivery = connector.sandbox_delivery(post)
        async with self.engine.begin() as conn:
            entry = await outbox.record_once(
                conn,
                org_id=claim.org_id,
                post_id=claim.post_id,
                delivery_key=claim.delivery_key,
                connector=claim.connector,
                mode="sandbox",
                requests=requests,
                platform_post_id=delivery.platform_post_id,
                platform_url=delivery.url,
                now=utcnow(),
            )
        return Delivery(entry.platform_post_id, entry.platform_url)

    async def _published(self, claim: Claim, delivery: Delivery) -> None:
        recorded = await queue.record_published(
            self.engine, claim, self.worker_id, delivery.platform_post_id, delivery.url, utcnow()
        )
        if not recorded:
            log.warning("post %s: lease lost before recording; the new holder records it by lookup", claim.post_id)

    async def _failed_attempt(self, claim: Claim, error: DeliveryError) -> None:
        now = utcnow()
        if error.error_class is ErrorClass.RETRYABLE and claim.attempts < self.settings.publish_max_attempts:
            await queue.record_retry(
                self.engine, claim, self.worker_id, str(error), self._next_attempt(claim, now), now
            )
            return
        reason = FAILURE_REASONS.get(error.error_class, "retries_exhausted")
        await queue.record_failed(self.engine, claim, self.worker_id, reason, str(error), now, refund=True)

    def _next_attempt(self, claim: Claim, now: datetime) -> datetime:
        delay = self.settings.publish_backoff_seconds * (2 ** (claim.attempts - 1))
        return now + timedelta(seconds=min(delay, self.settings.publish_backoff_cap_seconds))
