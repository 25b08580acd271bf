"""What the publisher does with each kind of platform answer: transient errors retry with
backoff and give the claim's hold back (unless the post may be out), final failures refund all
but what may be out, a worker that lost its lease cannot overwrite the new holder's outcome, and
each delivery problem is logged at WARNING with the post and the attempt (docs/posts.md
"Credits")."""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import timedelta

import pytest
from sqlalchemy import select

from contract.logs import REQUEST_ID, JsonFormatter
from contract.post_links import sandbox_url
from core import admin
from core.connectors.base import DeliveryError, ErrorClass
from core.connectors.registry import CONNECTORS
from core.db.engine import create_engine, transaction
from core.db.models import credit_ledger, organizations, posts
from core.db.types import utcnow
from core.posts import outbox as post_outbox
from core.posts.create import create_posts
from core.posts.validation import CreateRequest
from core.posts.versions import Extras, ThreadItem
from core.publisher import outcomes, queue
from core.publisher.publisher import Publisher
from core.settings import CoreSettings
from harness.stack import database


class AnsweringConnector:
    """The X connector, except that the platform answers every request with `error`."""

    def __init__(self, error: DeliveryError) -> None:
        self._x = CONNECTORS["x"]
        self._error = error

    async def deliver(self, post, api):
        raise self._error

    def __getattr__(self, name: str):
        return getattr(self._x, name)


async def scenario(
    url: str,
    error: DeliveryError | None,
    rounds: int,
    thread: int = 0,
    **settings_overrides,
) -> dict:
    settings = CoreSettings(database_url=url, **{"publish_backoff_seconds": 0, **settings_overrides})
    engine = create_engine(settings)
    try:
        boot = await admin.bootstrap(
            engine, email="o@example.com", password="a long password", org="outcomes", credits_=10, plan="active"
        )
        await admin.add_profile(engine, org="outcomes", slug="px", platform="x", tags=[])
        extras = Extras(thread=tuple(ThreadItem(f"item {n}") for n in range(thread)))
        async with engine.begin() as conn:
            created = await create_posts(conn, boot["org_id"], CreateRequest("hi", ["px"], extras=extras), utcnow())
        post_id = created.records[0].id
        connectors = {**CONNECTORS, "x": AnsweringConnector(error)} if error else CONNECTORS
        publisher = Publisher(settings, engine, "worker-a", connectors=connectors)
        for _ in range(rounds):
            await publisher.publish_due()
        async with engine.connect() as conn:
            row = (await conn.execute(select(posts).where(posts.c.id == post_id))).one()
            balance = await conn.scalar(select(organizations.c.credit_balance))
            ledger = [
                (r.reason, r.delta) for r in await conn.execute(select(credit_ledger).order_by(credit_ledger.c.id))
            ]
        return {"row": row, "balance": balance, "ledger": ledger}
    finally:
        await engine.dispose()


@pytest.fixture
def url(backend, tmp_path):
    with database(backend, tmp_path) as u:
        yield u


def test_a_transient_error_retries_with_backoff_and_gives_the_hold_back(url) -> None:
    """Nothing went out: the post waits for its next attempt holding nothing (it can be edited,
    and priced again at its next claim, or canceled for nothing)."""
    error = DeliveryError(ErrorClass.RETRYABLE, "429 Too Many Requests", status=429)
    result = asyncio.run(scenario(url, error, rounds=1, publish_backoff_seconds=30))
    row = result["row"]
    assert (row.status, row.attempts, row.charged) == ("queued", 1, 0)
    assert row.due_at > utcnow() + timedelta(seconds=20)
    assert "429" in row.platform_error
    assert result["balance"] == 10
    assert result["ledger"] == [("grant", 10), ("post_delivery", -1), ("refund", 1)]


def test_an_uncertain_transient_error_keeps_the_hold(url) -> None:
    """The request creating the post may have reached the platform: the post may be out, so it
    keeps the hold until the lookup of its next attempt settles it."""
    error = DeliveryError(ErrorClass.UNCERTAIN, "503 after the request was sent", status=503)
    result = asyncio.run(scenario(url, error, rounds=1, thread=2))
    row = result["row"]
    assert (row.status, row.attempts, row.charged) == ("queued", 1, 3)
    assert result["balance"] == 7
    assert result["ledger"] == [("grant", 10), ("post_delivery", -3)]


def test_retries_exhausted_fail_and_refund(url) -> None:
    error = DeliveryError(ErrorClass.RETRYABLE, "503", status=503)
    result = asyncio.run(scenario(url, error, rounds=4, publish_max_attempts=3))
    row = result["row"]
    assert (row.status, row.failure_reason, row.attempts, row.charged) == ("failed", "retries_exhausted", 3, 0)
    assert result["balance"] == 10
    # Each attempt held the price while it ran and gave it back.
    assert result["ledger"] == [("grant", 10)] + [("post_delivery", -1), ("refund", 1)] * 3


def test_an_uncertain_final_failure_of_a_thread_keeps_only_the_post(url) -> None:
    """The post may be out, its three thread items never went out (they follow the post): it
    keeps one credit and the items' three come back."""
    error = DeliveryError(ErrorClass.UNCERTAIN, "no answer", status=None)
    result = asyncio.run(scenario(url, error, rounds=1, thread=3, publish_max_attempts=1))
    row = result["row"]
    assert (row.status, row.failure_reason, row.charged) == ("failed", "delivery_uncertain", 1)
    assert result["balance"] == 9
    assert result["ledger"] == [("grant", 10), ("post_delivery", -4), ("refund", 3)]


@pytest.mark.parametrize(
    ("error_class", "reason"), [(ErrorClass.PERMANENT, "platform_rejected"), (ErrorClass.NEEDS_REAUTH, "needs_reauth")]
)
def test_final_failures_refund(url, error_class, reason: str) -> None:
    result = asyncio.run(scenario(url, DeliveryError(error_class, "refused", status=403), rounds=1))
    row = result["row"]
    assert (row.status, row.failure_reason, row.platform_error) == ("failed", reason, "refused")
    assert result["balance"] == 10


def test_a_worker_that_lost_its_lease_cannot_record(url, caplog) -> None:
    """...and the worker that recovers the lease says so at WARNING, with the post, its attempt
    and the id of the request that created it."""
    caplog.set_level(logging.WARNING, logger="core.publisher")
    caplog.handler.setFormatter(JsonFormatter())  # as the worker writes its lines

    settings = CoreSettings(database_url=url, publish_lease_seconds=0.2)

    async def run() -> tuple[bool, str, str, int]:
        engine = create_engine(settings)
        try:
            boot = await admin.bootstrap(
                engine, email="l@example.com", password="a long password", org="lease", credits_=10, plan="active"
            )
            await admin.add_profile(engine, org="lease", slug="px", platform="x", tags=[])
            REQUEST_ID.set("req_lease_test")  # the request creating the post (the core sets it)
            async with engine.begin() as conn:
                await create_posts(conn, boot["org_id"], CreateRequest("hi", ["px"]), utcnow())
            REQUEST_ID.set(None)
            stale = (await queue.claim_due(engine, settings, "worker-a", utcnow(), 10, lambda *_: ""))[0]
            await asyncio.sleep(0.3)  # worker-a's lease runs out
            b = Publisher(settings, engine, "worker-b")
            assert await b.publish_due() == 1  # recovered and delivered by worker-b
            recorded = await outcomes.record_published(
                engine, stale, "worker-a", "999", "https://x.com/stale", utcnow()
            )
            async with engine.connect() as conn:
                row = (await conn.execute(select(posts))).one()
                balance = await conn.scalar(select(organizations.c.credit_balance))
            return recorded, row.id, row.platform_url, balance
        finally:
            await engine.dispose()

    recorded, post_id, platform_url, balance = asyncio.run(run())
    assert recorded is False
    assert platform_url == sandbox_url(settings.base_url, post_id)  # worker-b's sandbox delivery, not the stale one
    assert balance == 9  # the recovered claim was not charged again
    lines = [json.loads(line) for line in caplog.text.splitlines()]
    (recovered,) = [line for line in lines if "recovered" in line["message"]]
    assert recovered["level"] == "WARNING" and recovered["attempt"] == 2
    assert recovered["post_id"].startswith("pst_") and recovered["post_id"] in recovered["message"]
    assert recovered["request_id"] == "req_lease_test"


def test_a_post_whose_profile_can_no_longer_post_keeps_only_the_price_of_what_is_out(url) -> None:
    """Live mode: a thread whose post went out waits for its next attempt with its hold (an item
    failed transiently), then its profile is disconnected. The next claim fails it and keeps
    the post's credit; the two items that never went out are refunded."""

    async def run() -> tuple:
        settings = CoreSettings(database_url=url)
        engine = create_engine(settings)
        try:
            boot = await admin.bootstrap(
                engine, email="d@example.com", password="a long password", org="gone", credits_=10, plan="active"
            )
            await admin.add_profile(engine, org="gone", slug="px", platform="x", tags=[])
            extras = Extras(thread=(ThreadItem("one"), ThreadItem("two")))
            async with engine.begin() as conn:
                await create_posts(conn, boot["org_id"], CreateRequest("hi", ["px"], extras=extras), utcnow())
            (claim,) = await queue.claim_due(engine, settings, "worker-a", utcnow(), 10, lambda _id, _key: "")
            async with engine.begin() as conn:
                await post_outbox.record_once(
                    conn,
                    org_id=claim.org_id,
                    post_id=claim.post_id,
                    delivery_key=claim.delivery_key,
                    connector="x",
                    mode="live",
                    requests=[],
                    platform_post_id="1",
                    platform_url="https://x.com/a/status/1",
                    now=utcnow(),
                )
                # As a transient failure of item one leaves it: waiting, with the claim's hold.
                await conn.execute(
                    posts.update()
                    .where(posts.c.id == claim.post_id)
                    .values(status="queued", lease_owner=None, due_at=utcnow())
                )
            live = CoreSettings(database_url=url, publish_mode="live")  # the sandbox profile cannot post live
            assert await queue.claim_due(engine, live, "worker-b", utcnow(), 10, lambda _id, _key: "") == []
            async with engine.connect() as conn:
                row = (await conn.execute(select(posts))).one()
                balance = await conn.scalar(select(organizations.c.credit_balance))
                ledger = [
                    (r.reason, r.delta) for r in await conn.execute(select(credit_ledger).order_by(credit_ledger.c.id))
                ]
            return (row.status, row.failure_reason, row.charged), balance, ledger
        finally:
            await engine.dispose()

    state, balance, ledger = asyncio.run(run())
    assert state == ("failed", "profile_disconnected", 1)
    assert balance == 9
    assert ledger == [("grant", 10), ("post_delivery", -3), ("refund", 2)]


class HoldingConnector:
    """The X connector, except that the post whose text is "slow" waits for `release`."""

    def __init__(self) -> None:
        self._x = CONNECTORS["x"]
        self.release = asyncio.Event()
        self.holding = asyncio.Event()

    async def deliver(self, post, api):
        if post.content == "slow":
            self.holding.set()
            await self.release.wait()
        return await self._x.deliver(post, api)

    def __getattr__(self, name: str):
        return getattr(self._x, name)


@pytest.mark.one_backend
def test_a_slow_delivery_does_not_hold_back_the_posts_due_after_it(url) -> None:
    """A worker keeps its slots busy: posts that come due while one delivery is slow (a video a
    platform processes for minutes) go out without waiting for it; on stop it lets that one end."""

    async def run() -> tuple[dict[str, str], dict[str, str]]:
        settings = CoreSettings(database_url=url, publish_batch_size=4, publish_poll_seconds=0.05)
        engine = create_engine(settings)
        connector = HoldingConnector()
        stop = asyncio.Event()
        try:
            boot = await admin.bootstrap(
                engine, email="s@example.com", password="a long password", org="slow", credits_=10, plan="active"
            )
            await admin.add_profile(engine, org="slow", slug="px", platform="x", tags=[])
            async with engine.begin() as conn:
                await create_posts(conn, boot["org_id"], CreateRequest("slow", ["px"]), utcnow())
            publisher = Publisher(settings, engine, "worker-a", connectors={**CONNECTORS, "x": connector})
            running = asyncio.create_task(publisher.run(stop))
            await asyncio.wait_for(connector.holding.wait(), 10)
            for n in range(3):  # due after the slow one was claimed
                # As the core writes (the write lock taken up front on SQLite): a deferred
                # transaction that reads, then writes while the worker writes, is refused at once.
                async with transaction(engine, writes=True) as conn:
                    await create_posts(conn, boot["org_id"], CreateRequest(f"fast {n}", ["px"]), utcnow())

            async def statuses() -> dict[str, str]:
                async with engine.connect() as conn:
                    return dict((await conn.execute(select(posts.c.content, posts.c.status))).all())

            for _ in range(200):
                during = await statuses()
                if [s for c, s in during.items() if c.startswith("fast")] == ["published"] * 3:
                    break
                await asyncio.sleep(0.05)
            stop.set()
            connector.release.set()
            await asyncio.wait_for(running, 10)
            return during, await statuses()
        finally:
            await engine.dispose()

    during, after = asyncio.run(run())
    assert during == {"slow": "publishing", "fast 0": "published", "fast 1": "published", "fast 2": "published"}
    assert after["slow"] == "published"  # the stop let the delivery in flight finish
