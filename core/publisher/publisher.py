"""Delivering claimed posts through their connector: sandbox (recorded) or live (sent).

Exactly once (docs/posts.md, docs/live-publishing.md): a delivery is identified by its delivery
key. A worker that takes over an expired lease first looks the key up in the outbox (a delivery
whose answer was recorded there is only marked published). In live mode, progress is saved
before each step (fenced on the lease: a worker that lost it sends nothing more), and an attempt
that may have sent the request creating the post asks the connector to `reconcile` before
anything is sent again: found means published, "safe" means send, unknowable means the post
fails with `delivery_uncertain` for a human to check (keeping its charge: it may have gone out).

Credits (docs/posts.md "Credits"): the claim holds the price of everything the attempt may
deliver; a transient failure gives the hold back unless part of the post is out or may be, a
final failure keeps only the price of what may be out. Every retry, final failure and recovered
lease is logged at WARNING with the post id, the attempt and the id of the request that created
the post (never a token: the error is the text the post's `platform_error` shows).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator, Callable, Mapping
from datetime import timedelta
from typing import Any

import httpx2
from sqlalchemy.ext.asyncio import AsyncEngine

from contract.logs import REQUEST_ID
from contract.post_links import sandbox_url
from core.connectors.base import Connector, Delivery, DeliveryError, ErrorClass, LeaseLost, OutgoingPost
from core.connectors.live import LiveAPI, Progress
from core.connectors.registry import CONNECTORS
from core.connectors.sandbox import sandbox_comment, sandbox_delivery
from core.connectors.transport import PlatformEndpoints
from core.db.types import utcnow
from core.platform_accounts.token_refresh import NeedsReauth, TokenKeeper
from core.platform_accounts.vault import TokenVault
from core.posts import outbox
from core.publisher import outcomes, queue
from core.publisher.attempt import FAILURE_REASONS, Attempt, log_problem, outgoing
from core.publisher.progress import LeaseProgress
from core.publisher.queue import Claim, ClaimPart
from core.publisher.thread_delivery import deliver_with_parts
from core.settings import CoreSettings
from core.storage.base import ObjectStorage
from core.storage.factory import object_storage

log = logging.getLogger(__name__)

# Platforms that pull media fetch it from a signed read URL valid this long.
MEDIA_URL_SECONDS = 3600
# An uncertain attempt is looked up again after at least this long (the platform may be slow to
# show a post it has just made).
RECONCILE_DELAY = timedelta(seconds=15)


def new_worker_id() -> str:
    return f"{socket.gethostname()[:32]}:{os.getpid()}:{secrets.token_hex(3)}"


class Publisher:
    def __init__(
        self,
        settings: CoreSettings,
        engine: AsyncEngine,
        worker_id: str | None = None,
        connectors: Mapping[str, Connector] = CONNECTORS,
        storage: ObjectStorage | None = None,
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.worker_id = worker_id or new_worker_id()
        self.connectors = connectors
        self.storage = storage or object_storage(settings)
        self.live = settings.publish_mode == "live"
        self.endpoints = PlatformEndpoints(
            settings.platform_host_overrides, allow_private=settings.allows_private_targets
        )
        self.keeper = (
            TokenKeeper(settings, engine, self.endpoints, TokenVault.from_settings(settings)) if self.live else None
        )
        self._client: httpx2.AsyncClient | None = None
        # A published post's first metrics read is due this long after (docs/analytics.md).
        self.first_metrics_read = settings.metrics_read_offsets[0]
        # Called after each delivery ends (the worker nudges its job loop to fan out the event).
        self.on_outcome: Callable[[], None] | None = None

    async def publish_due(self, limit: int | None = None) -> int:
        """One round: claims up to `limit` (default the batch size) due posts and delivers them
        concurrently. Returns how many posts it claimed (0: nothing was due)."""
        claims = await self._claim(limit or self.settings.publish_batch_size)
        await asyncio.gather(*(self._deliver_safely(claim) for claim in claims))
        return len(claims)

    async def run(self, stop: asyncio.Event) -> None:
        """Keeps up to `publish_batch_size` deliveries in flight: whenever one ends, more due
        posts are claimed, so a slow delivery (a video a platform processes for minutes) never
        holds the others back. On stop, claims nothing more and lets the deliveries in flight end."""
        capacity = self.settings.publish_batch_size
        # Claims are made for half the slots or more at once: one claim per finished post would
        # cost a transaction each.
        refill = max(1, capacity // 2)
        flying: set[asyncio.Task[None]] = set()
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while not stop.is_set():
                claimed = 0
                if capacity - len(flying) >= refill:
                    try:
                        claims = await self._claim(capacity - len(flying))
                    except Exception:
                        log.exception("claiming due posts failed; retrying after the poll interval")
                        claims = []
                    claimed = len(claims)
                    flying.update(asyncio.ensure_future(self._deliver_safely(c)) for c in claims)
                room = capacity - len(flying) >= refill
                if claimed and room:
                    continue  # more may be due right away
                # Wait for slots to free, new posts to come due, or the stop.
                timeout = self.settings.publish_poll_seconds if room else None
                done, _ = await asyncio.wait({*flying, stopping}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                flying -= done
        finally:
            stopping.cancel()
            if flying:
                await asyncio.gather(*flying, return_exceptions=True)
            await self.close()

    async def _claim(self, limit: int) -> list[Claim]:
        return await queue.claim_due(self.engine, self.settings, self.worker_id, utcnow(), limit, self._media_url)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _deliver_safely(self, claim: Claim) -> None:
        # Each delivery runs in its own task: its log lines carry the id of the request that
        # created the post, and nothing else sees it.
        REQUEST_ID.set(claim.request_id)
        try:
            await self.deliver(claim)
        except Exception:
            # The post stays `publishing`; when the lease ends a worker resolves it by lookup.
            log.exception("delivery of %s failed unexpectedly; its lease will be recovered", claim.post_id)
        if self.on_outcome is not None:
            self.on_outcome()  # its outcome's event is written: the job loop fans it out now

    async def deliver(self, claim: Claim) -> None:
        connector = self.connectors[claim.connector]
        if claim.recovered:
            log_problem(claim, "recovered after its previous worker's lease ran out; looking the delivery up first")
        if claim.parts:
            await deliver_with_parts(self, connector, claim)
            return
        post = outgoing(claim)
        if claim.recovered:
            async with self.engine.connect() as conn:
                existing = await outbox.find(conn, claim.delivery_key)
            if existing is not None:
                log.info("post %s was delivered before its worker stopped; recording it", claim.post_id)
                await self._published(claim, Delivery(existing.platform_post_id, existing.platform_url))
                return
        state = claim.delivery_state
        try:
            progress = LeaseProgress(self.engine, self.worker_id, self.settings.publish_lease_seconds, claim)
            delivery, requests, state = await self.send(connector, post, claim, state, progress)
        except LeaseLost:
            log_problem(claim, "lease lost mid-delivery; the worker holding it now goes on")
            return
        except Attempt as failed:
            await self.failed_attempt(claim, failed)
            return
        await self._record(claim, "live" if self.live else "sandbox", delivery, requests)

    async def send(
        self,
        connector: Connector,
        post: OutgoingPost,
        claim: Claim,
        state: Mapping[str, Any],
        progress: Progress,
        *,
        part: ClaimPart | None = None,
    ) -> tuple[Delivery, list[dict[str, Any]], Mapping[str, Any]]:
        """One delivery (the post, or its `part`: a thread item or the first comment) through the
        sandbox or the live API: its Delivery, the requests sent and the progress state. Raises
        `Attempt` when the platform refused or failed it, `LeaseLost` when another worker holds
        the post."""
        comment = part is not None and part.kind == "comment"
        if not self.live:
            try:
                if self.settings.sandbox_latency_ms:
                    await asyncio.sleep(self.settings.sandbox_latency_ms / 1000)
                run = sandbox_comment if comment else sandbox_delivery
                delivery, requests = await run(connector, post, self.sandbox_page(claim, part))
            except DeliveryError as error:
                raise Attempt(error, {}) from None
            return delivery, requests, {}
        assert self.keeper is not None and claim.tokens is not None
        try:
            token = self.keeper.token(claim.tokens)
        except NeedsReauth as error:
            raise Attempt(error, state) from None
        api = LiveAPI(self._http(), connector, token, self._read_media, progress, state)
        try:
            if token.expires_soon(utcnow()):
                await token.refresh()
            found = None
            if "create_sent_at" in api.state:
                found = await connector.reconcile(post, api)
                if found is None:
                    await api.save(create_sent_at=None)
            if found is None:
                delivery = await (connector.deliver_comment(post, api) if comment else connector.deliver(post, api))
        except DeliveryError as error:
            raise Attempt(error, api.state, token, api.throttled_until) from None
        finally:
            if api.throttled_until is not None:
                await outcomes.throttle_profile(self.engine, claim.profile_id, api.throttled_until, utcnow())
        if found is not None:
            # Found by a lookup: the outbox shows the request that made the post (sent by an
            # earlier attempt, as the connector saved it before sending) and then the lookup.
            created = api.state.get("create_request")
            return found, [created, *api.requests] if isinstance(created, dict) else api.requests, api.state
        return delivery, api.requests, api.state

    def sandbox_page(self, claim: Claim, part: ClaimPart | None) -> str:
        """A sandbox delivery's URL: Herald's page of the post, at the part's outbox entry
        (contract/post_links.py; docs/posts.md, "Sandbox links")."""
        if part is None:
            return sandbox_url(self.settings.base_url, claim.post_id)
        if part.kind == "comment":
            return sandbox_url(self.settings.base_url, claim.post_id, "first_comment")
        return sandbox_url(self.settings.base_url, claim.post_id, "thread", part.position)

    async def _record(self, claim: Claim, mode: str, delivery: Delivery, requests: list[dict[str, Any]]) -> None:
        entry = await self.record_outbox(claim, mode, delivery, requests)
        await self._published(claim, Delivery(entry.platform_post_id, entry.platform_url))

    async def record_outbox(
        self,
        claim: Claim,
        mode: str,
        delivery: Delivery,
        requests: list[dict[str, Any]],
        *,
        delivery_key: str = "",
        part: int = -1,
    ) -> outbox.OutboxRecord:
        async with self.engine.begin() as conn:
            return await outbox.record_once(
                conn,
                org_id=claim.org_id,
                post_id=claim.post_id,
                delivery_key=delivery_key or claim.delivery_key,
                connector=claim.connector,
                mode=mode,
                requests=requests,
                platform_post_id=delivery.platform_post_id,
                platform_url=delivery.url,
                now=utcnow(),
                part=part,
                platform_cid=delivery.cid,
            )

    async def _published(self, claim: Claim, delivery: Delivery) -> None:
        recorded = await outcomes.record_published(
            self.engine,
            claim,
            self.worker_id,
            delivery.platform_post_id,
            delivery.url,
            utcnow(),
            first_read=self.first_metrics_read,
        )
        if not recorded:
            log_problem(claim, "lease lost before recording; the new holder records it by lookup")

    async def retry_later(
        self, claim: Claim, failed: Attempt, *, keep_hold: bool, part: ClaimPart | None = None
    ) -> bool:
        """A transient failure with attempts left: back to the queue after the backoff (longer when
        the platform said, or asked the account to wait, or the outcome must be looked up); the
        hold is given back unless `keep_hold` (part of the post is out, or may be). False when
        the failure is final. `part`: the thread item or first comment whose delivery failed."""
        error, now = failed.error, utcnow()
        settings = self.settings
        if error.error_class not in (ErrorClass.RETRYABLE, ErrorClass.UNCERTAIN):
            return False
        if claim.attempts >= settings.publish_max_attempts:
            return False
        delay = settings.publish_backoff_seconds * (2 ** (claim.attempts - 1))
        at = now + timedelta(seconds=min(delay, settings.publish_backoff_cap_seconds))
        if error.error_class is ErrorClass.UNCERTAIN:
            at = max(at, now + RECONCILE_DELAY)
        if error.retry_after is not None:
            at = max(at, now + timedelta(seconds=min(error.retry_after, settings.publish_backoff_cap_seconds)))
        if failed.throttled_until is not None:
            at = max(at, failed.throttled_until)
        recorded = await outcomes.record_retry(
            self.engine,
            claim,
            self.worker_id,
            str(error),
            at,
            now,
            keep_hold=keep_hold,
            error_class=str(error.error_class),
            part=(part.kind, part.position) if part is not None else None,
        )
        if recorded:
            wait = (at - now).total_seconds()
            log_problem(claim, f"{error.error_class} failure, next attempt in {wait:.1f}s: {error}")
        return True

    async def final_class(self, claim: Claim, failed: Attempt) -> ErrorClass:
        """How a final failure counts: uncertain when the creating request may have been sent and
        nobody could check; a dead token marks the profile as needing a human."""
        error_class = failed.error.error_class
        if "create_sent_at" in failed.state and error_class is not ErrorClass.PERMANENT:
            error_class = ErrorClass.UNCERTAIN  # the post may be out: nobody could check it
        if error_class is ErrorClass.NEEDS_REAUTH and failed.token is not None and self.keeper is not None:
            await self.keeper.needs_reauth_now(claim.profile_id, failed.token.version, str(failed.error))
        return error_class

    async def failed_attempt(self, claim: Claim, failed: Attempt) -> None:
        """The post itself did not go out: retried (keeping its hold only when the request that
        creates it may have reached the platform), or failed, keeping only the price of the post
        when it may be out (`delivery_uncertain`; its thread items never went out)."""
        error = failed.error
        maybe_out = error.error_class is ErrorClass.UNCERTAIN or "create_sent_at" in failed.state
        if await self.retry_later(claim, failed, keep_hold=maybe_out):
            return
        error_class = await self.final_class(claim, failed)
        uncertain = error_class is ErrorClass.UNCERTAIN
        detail = f"{error.code}: {error}" if error.code and error.code not in str(error) else str(error)
        reason = FAILURE_REASONS[error_class]
        if await outcomes.record_failed(
            self.engine,
            claim,
            self.worker_id,
            reason,
            str(error),
            utcnow(),
            keep=self.settings.post_cost if uncertain else 0,
            detail=detail if error_class is not ErrorClass.PERMANENT else "",
            error_class=str(error_class),
        ):
            log_problem(claim, f"failed for good ({reason}): {error}")

    def _media_url(self, media_id: str, storage_key: str, generation: int | None) -> str:
        return self.storage.read_url(storage_key, expires_in=MEDIA_URL_SECONDS, generation=generation)

    def _read_media(self, key: str, start: int, end: int | None, generation: int | None) -> AsyncIterator[bytes]:
        return self.storage.read(key, start=start, end=end, generation=generation)

    def _http(self) -> httpx2.AsyncClient:
        if self._client is None:
            self._client = self.endpoints.client(timeout=self.settings.platform_timeout_seconds)
        return self._client
