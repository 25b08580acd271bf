"""A post's history records what the publisher did with it (docs/posts.md, "History"): each claim,
each attempt that failed (its class, the platform's message, whether and when it is retried),
a thread item's outcome, the post's published, partially_published or failed, and a claim
recovered after a lost lease. The platform's answers are scripted as in
tests/core/test_publisher_outcomes.py; the history is read as ListPostEvents reads it."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from core import admin
from core.connectors.base import DeliveryError, ErrorClass
from core.connectors.registry import CONNECTORS
from core.db.engine import create_engine
from core.db.types import utcnow
from core.pagination import Page
from core.posts import history
from core.posts.create import create_posts
from core.posts.validation import CreateRequest
from core.posts.versions import Extras, ThreadItem
from core.publisher import queue
from core.publisher.publisher import Publisher
from core.settings import CoreSettings
from harness.stack import database


class ScriptedConnector:
    """The X connector, except that its deliveries (the post's, then each thread item's) answer
    `errors` in order first (None: delivered as the sandbox delivers)."""

    def __init__(self, *errors: DeliveryError | None) -> None:
        self._x = CONNECTORS["x"]
        self._errors = list(errors)

    async def deliver(self, post, api):
        error = self._errors.pop(0) if self._errors else None
        if error is not None:
            raise error
        return await self._x.deliver(post, api)

    def __getattr__(self, name: str):
        return getattr(self._x, name)


@pytest.fixture
def url(backend, tmp_path):
    with database(backend, tmp_path) as u:
        yield u


async def _history(url: str, connector: ScriptedConnector, rounds: int, thread: int = 0, **overrides) -> list:
    settings = CoreSettings(database_url=url, **{"publish_backoff_seconds": 0, **overrides})
    engine = create_engine(settings)
    try:
        boot = await admin.bootstrap(
            engine, email="h@example.com", password="a long password", org="history", credits_=10, plan="active"
        )
        await admin.add_profile(engine, org="history", slug="px", platform="x", tags=[])
        extras = Extras(thread=tuple(ThreadItem(f"item {n}") for n in range(thread)))
        async with engine.begin() as conn:
            created = await create_posts(conn, boot["org_id"], CreateRequest("hi", ["px"], extras=extras), utcnow())
        publisher = Publisher(settings, engine, "worker-a", connectors={**CONNECTORS, "x": connector})
        for _ in range(rounds):
            await publisher.publish_due()
        async with engine.connect() as conn:
            found, _ = await history.list_events(conn, boot["org_id"], created.records[0].id, Page(100, None))
        return found
    finally:
        await engine.dispose()


def _steps(found: list) -> list[tuple]:
    return [(e.kind, e.detail.get("attempt"), e.detail.get("reason")) for e in found]


def test_a_failed_attempt_is_recorded_with_its_reason_then_the_retry_publishes(url) -> None:
    error = DeliveryError(ErrorClass.RETRYABLE, "503 Service Unavailable", status=503)
    found = asyncio.run(_history(url, ScriptedConnector(error), rounds=2))
    assert _steps(found) == [
        ("created", None, None),
        ("claimed", 1, None),
        ("attempt_failed", 1, "retryable"),
        ("claimed", 2, None),
        ("published", 2, None),
    ]
    failed = found[2].detail
    assert failed["will_retry"] is True and "503" in failed["error"]
    assert datetime.fromisoformat(failed["next_attempt_at"]) >= found[2].at
    assert found[0].detail["status"] == "queued" and "schedule_at" not in found[0].detail
    assert found[-1].detail["platform_post_id"]
    times = [e.at for e in found]
    assert times == sorted(times)


def test_a_final_failure_records_the_attempt_not_retried_and_the_post_failed(url) -> None:
    error = DeliveryError(ErrorClass.PERMANENT, "duplicate content", status=403)
    found = asyncio.run(_history(url, ScriptedConnector(error), rounds=1))
    assert _steps(found) == [
        ("created", None, None),
        ("claimed", 1, None),
        ("attempt_failed", 1, "permanent"),
        ("failed", 1, "platform_rejected"),
    ]
    assert found[2].detail["will_retry"] is False and "next_attempt_at" not in found[2].detail
    assert found[2].detail["error"] == "duplicate content"


def test_retries_exhausted(url) -> None:
    error = DeliveryError(ErrorClass.RETRYABLE, "timeout", status=None)
    found = asyncio.run(_history(url, ScriptedConnector(error, error), rounds=2, publish_max_attempts=2))
    assert _steps(found)[1:] == [
        ("claimed", 1, None),
        ("attempt_failed", 1, "retryable"),
        ("claimed", 2, None),
        ("attempt_failed", 2, "retryable"),
        ("failed", 2, "retries_exhausted"),
    ]
    assert [e.detail["will_retry"] for e in found if e.kind == "attempt_failed"] == [True, False]


def test_an_uncertain_failure_is_recorded_as_such(url) -> None:
    error = DeliveryError(ErrorClass.UNCERTAIN, "no answer", status=None)
    found = asyncio.run(_history(url, ScriptedConnector(error), rounds=1, publish_max_attempts=1))
    assert _steps(found)[2:] == [("attempt_failed", 1, "uncertain"), ("failed", 1, "delivery_uncertain")]
    assert found[-1].detail["error"]  # Herald's explanation of delivery_uncertain


def test_a_thread_records_each_item_and_the_one_that_failed(url) -> None:
    """The post and item 1 go out; item 2 fails once (retried: the attempt names the item), then
    for good: the post is partially published."""
    transient = DeliveryError(ErrorClass.RETRYABLE, "502", status=502)
    refused = DeliveryError(ErrorClass.PERMANENT, "too long", status=400)
    connector = ScriptedConnector(None, None, transient, refused)
    found = asyncio.run(_history(url, connector, rounds=2, thread=2))
    parts = [(e.kind, e.detail.get("attempt"), e.detail.get("part"), e.detail.get("position")) for e in found]
    assert parts == [
        ("created", None, None, None),
        ("claimed", 1, None, None),
        ("part_published", 1, "thread", 0),
        ("attempt_failed", 1, "thread", 1),
        ("claimed", 2, None, None),
        ("part_failed", 2, "thread", 1),
        ("partially_published", 2, None, None),
    ]
    assert found[3].detail["will_retry"] is True
    assert found[5].detail["reason"] == "platform_rejected" and found[5].detail["error"] == "too long"


def test_a_claim_recovered_after_a_lost_lease_says_so(url) -> None:
    settings = CoreSettings(database_url=url, publish_lease_seconds=0.2)

    async def run() -> list:
        engine = create_engine(settings)
        try:
            boot = await admin.bootstrap(
                engine, email="r@example.com", password="a long password", org="lease", credits_=10, plan="active"
            )
            await admin.add_profile(engine, org="lease", slug="px", platform="x", tags=[])
            async with engine.begin() as conn:
                created = await create_posts(conn, boot["org_id"], CreateRequest("hi", ["px"]), utcnow())
            await queue.claim_due(engine, settings, "worker-a", utcnow(), 10, lambda *_: "")  # then dies
            await asyncio.sleep(0.3)  # worker-a's lease runs out
            assert await Publisher(settings, engine, "worker-b").publish_due() == 1
            async with engine.connect() as conn:
                found, _ = await history.list_events(conn, boot["org_id"], created.records[0].id, Page(100, None))
            return found
        finally:
            await engine.dispose()

    found = asyncio.run(run())
    assert [(e.kind, e.detail.get("attempt"), e.detail.get("recovered")) for e in found] == [
        ("created", None, None),
        ("claimed", 1, None),
        ("claimed", 2, True),
        ("published", 2, None),
    ]
