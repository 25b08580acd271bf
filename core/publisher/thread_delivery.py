"""Delivering a post with parts: the post, then its thread items in order (each a reply to the one
before it), then its first comment (docs/posts.md, "Threads, first comments and versions").

Exactly once, part by part: every part has a delivery key of its own, and every delivery is
recorded in the outbox under its key as soon as the platform answered. Each attempt, first or
after a crash or a transient error, looks all the keys up before sending anything, and resumes
after the last part that went out. A live part's progress is saved on its own row, fenced on
the worker's lease like the post's.

Credits: the claim held the price of the post and every thread item at once. A transient failure
of a part puts the post back in the queue with that hold (the post is out: its thread finishes
on what its claim paid, never half a thread for want of credits; what went out stays out and is
not sent again). A part that fails for good ends the post `partially_published`: the failed part
`failed` (or `pending` when the platform may have it: delivery_uncertain), the later ones
`skipped`, and what did not go out refunded; the main post's id and URL stay on the post.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncEngine

from core.connectors.base import Connector, Delivery, ErrorClass, LeaseLost, OutgoingPost, ReplyTo
from core.connectors.live import Progress
from core.db.types import utcnow
from core.posts import outbox
from core.posts.rules import default_post_type
from core.publisher import outcomes
from core.publisher.attempt import FAILURE_REASONS, Attempt, log_problem, outgoing
from core.publisher.progress import LeaseProgress
from core.publisher.queue import Claim, ClaimPart
from core.settings import CoreSettings


class Publisher(Protocol):
    """What delivering a post's parts needs of the publisher (core/publisher/publisher.py): one
    delivery through the sandbox or the live API, the outbox record of each, and the rules of a
    failed attempt (retry, final class, failure)."""

    engine: AsyncEngine
    worker_id: str
    settings: CoreSettings
    live: bool

    async def send(
        self,
        connector: Connector,
        post: OutgoingPost,
        claim: Claim,
        state: Mapping[str, Any],
        progress: Progress,
        *,
        part: ClaimPart | None = None,
    ) -> tuple[Delivery, list[dict[str, Any]], Mapping[str, Any]]: ...

    async def record_outbox(
        self,
        claim: Claim,
        mode: str,
        delivery: Delivery,
        requests: list[dict[str, Any]],
        *,
        delivery_key: str = "",
        part: int = -1,
    ) -> outbox.OutboxRecord: ...

    async def failed_attempt(self, claim: Claim, failed: Attempt) -> None: ...

    async def retry_later(
        self, claim: Claim, failed: Attempt, *, keep_hold: bool, part: ClaimPart | None = None
    ) -> bool: ...

    async def final_class(self, claim: Claim, failed: Attempt) -> ErrorClass: ...


def _progress(publisher: Publisher, claim: Claim, position: int | None) -> LeaseProgress:
    return LeaseProgress(
        publisher.engine, publisher.worker_id, publisher.settings.publish_lease_seconds, claim, position
    )


async def deliver_with_parts(publisher: Publisher, connector: Connector, claim: Claim) -> None:
    mode = "live" if publisher.live else "sandbox"
    keys = [claim.delivery_key, *(p.delivery_key for p in claim.parts)]
    async with publisher.engine.connect() as conn:
        known = {r.delivery_key: r for r in await outbox.find_many(conn, keys)}
    try:
        main = await _main(publisher, connector, claim, known, mode)
        if main is None:
            return
        parent = main
        for part in claim.parts:
            if part.status == "published":  # by an earlier attempt, and recorded as such
                parent = Delivery(part.platform_post_id, part.platform_url, part.platform_cid)
                continue
            found = known.get(part.delivery_key)
            if found is not None:
                delivery = Delivery(found.platform_post_id, found.platform_url, found.platform_cid)
            else:
                sent = await _send_part(publisher, connector, claim, part, ReplyTo(parent=parent, root=main), mode)
                if sent is None:
                    return
                delivery = sent
            await _recorded(publisher, claim, part, delivery)
            parent = delivery
    except LeaseLost:
        log_problem(claim, "lease lost mid-thread; the worker holding it now goes on")
        return
    recorded = await outcomes.record_published(
        publisher.engine,
        claim,
        publisher.worker_id,
        main.platform_post_id,
        main.url,
        utcnow(),
        first_read=publisher.first_metrics_read,
    )
    if not recorded:
        log_problem(claim, "lease lost before recording; the new holder records it by lookup")


async def _main(
    publisher: Publisher, connector: Connector, claim: Claim, known: Mapping[str, outbox.OutboxRecord], mode: str
) -> Delivery | None:
    """The post itself: out already (found in the outbox), or sent now. None: it did not go out
    (the attempt's outcome is recorded as for any post)."""
    found = known.get(claim.delivery_key)
    if found is not None:
        return Delivery(found.platform_post_id, found.platform_url, found.platform_cid)
    progress = _progress(publisher, claim, None)
    try:
        delivery, requests, _ = await publisher.send(connector, outgoing(claim), claim, claim.delivery_state, progress)
    except Attempt as failed:
        await publisher.failed_attempt(claim, failed)
        return None
    entry = await publisher.record_outbox(claim, mode, delivery, requests)
    await progress.keepalive()
    return Delivery(entry.platform_post_id, entry.platform_url, entry.platform_cid)  # the recorded one


async def _send_part(
    publisher: Publisher, connector: Connector, claim: Claim, part: ClaimPart, reply_to: ReplyTo, mode: str
) -> Delivery | None:
    post = outgoing(
        claim,
        delivery_key=part.delivery_key,
        content=part.content,
        post_type=default_post_type(claim.connector),
        title=None,
        media=part.media,
        reply_to=reply_to,
    )
    progress = _progress(publisher, claim, part.position)
    try:
        delivery, requests, _ = await publisher.send(connector, post, claim, part.delivery_state, progress, part=part)
    except Attempt as failed:
        await _part_failed(publisher, claim, part, failed)
        return None
    entry = await publisher.record_outbox(
        claim, mode, delivery, requests, delivery_key=part.delivery_key, part=part.position
    )
    return Delivery(entry.platform_post_id, entry.platform_url, entry.platform_cid)  # the recorded one


async def _recorded(publisher: Publisher, claim: Claim, part: ClaimPart, delivery: Delivery) -> None:
    now = utcnow()
    lease_end = now + timedelta(seconds=publisher.settings.publish_lease_seconds)
    if not await outcomes.record_part(
        publisher.engine, claim, publisher.worker_id, part.position, delivery, lease_end, now, kind=part.kind
    ):
        raise LeaseLost(claim.post_id)


async def _part_failed(publisher: Publisher, claim: Claim, part: ClaimPart, failed: Attempt) -> None:
    if await publisher.retry_later(claim, failed, keep_hold=True, part=part):
        return  # what went out is in the outbox and is not sent again
    error_class = await publisher.final_class(claim, failed)
    uncertain = error_class is ErrorClass.UNCERTAIN
    # What went out keeps its charge (an uncertain item may be out: it keeps its charge too).
    sent_units = 1 + sum(1 for p in claim.parts if p.kind == "thread" and p.position < part.position)
    if uncertain and part.kind == "thread":
        sent_units += 1
    refund = max(0, claim.charged - publisher.settings.post_cost * sent_units) if claim.charged else 0
    what = "first comment" if part.kind == "comment" else f"thread item {part.position + 1}"
    recorded = await outcomes.record_partial(
        publisher.engine,
        claim,
        publisher.worker_id,
        position=part.position,
        part_status="pending" if uncertain else "failed",
        reason=FAILURE_REASONS[error_class],
        error=str(failed.error),
        detail=f"the post is out, but its {what} could not be published: {failed.error}",
        refund=refund,
        now=utcnow(),
        kind=part.kind,
        first_read=publisher.first_metrics_read,
    )
    if recorded:
        log_problem(claim, f"partially published: its {what} failed for good ({error_class}): {failed.error}")
