"""Crash and race in live delivery (issue 12): 200 posts to fake X and Mastodon accounts, a worker
SIGKILLed while a media upload is in flight, the next one SIGKILLed while the request creating a
post is in flight, two more workers finish. Counted at the fake platforms: every post exists
exactly once, none is lost, each Herald post names the platform's post that carries its text,
and each is charged once.

The platforms answer uploads and posts after a few hundred milliseconds, so a kill lands inside
a request; a request the dead worker had sent is still carried out by the platform (as a real one
would), so the next worker must find that post (X: the account's timeline; Mastodon: the
Idempotency-Key) instead of sending it again."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from core.db.models import credit_ledger, posts
from harness.fakes.platforms import FakeMastodon, FakeX
from harness.live import connect, live_stack, png, upload
from harness.stack import Stack

# On PostgreSQL, the production database, only: SIGKILLed workers on both backends are
# tests/core/test_publisher_workers.py; what this module adds is the platforms' side of a crash.
pytestmark = pytest.mark.one_backend("postgresql")

POSTS = 100  # each to both profiles: 200 deliveries
LEASE_SECONDS = 3


@pytest.fixture(scope="module")
def fakes(backend: str) -> Iterator[tuple[FakeX, FakeMastodon]]:
    with FakeX(client_id="crash-client", client_secret="crash-secret") as x, FakeMastodon() as mastodon:
        yield x, mastodon


@pytest.fixture(scope="module")
def crash_stack(backend: str, fakes, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    fake_x, _ = fakes
    with live_stack(
        backend,
        tmp_path_factory.mktemp(f"crash-{backend}"),
        fakes=(fake_x,),
        HERALD_PLATFORM_TIMEOUT_SECONDS="5",
        HERALD_PUBLISH_BATCH_SIZE="8",
        HERALD_PUBLISH_LEASE_SECONDS=str(LEASE_SECONDS),
        HERALD_PUBLISH_BACKOFF_SECONDS="0.2",
    ) as stack:
        yield stack


def in_flight(fake: FakeX | FakeMastodon, method: str, path: str) -> bool:
    """Whether the fake is holding a matching request it has not answered yet."""
    return any(r.status is None for r in fake.seen(method, path))


def wait_for(predicate: Callable[[], bool], within: float, what: str) -> None:
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


async def test_sigkilled_workers_deliver_every_post_exactly_once(crash_stack: Stack, fakes) -> None:
    fake_x, fake_mastodon = fakes
    engine = create_async_engine(crash_stack.database_url)
    boot = await admin.bootstrap(
        engine, email="crash@example.com", password="correct horse battery", org="crash", credits_=500, plan="active"
    )
    auth = {"Authorization": f"Bearer {boot['api_key']}"}
    async with httpx.AsyncClient(base_url=crash_stack.base_url, timeout=30) as api:
        x = await connect(api, auth, platform="x")
        mastodon = await connect(api, auth, platform="mastodon", instance_url=fake_mastodon.base_url)
        image = await upload(api, auth, png(), "image/png", "crash.png")
        run = uuid.uuid4().hex[:6]
        texts = [f"Crash test {run} number {n}" for n in range(POSTS)]
        for n, text in enumerate(texts):
            body = {"content": text, "profiles": [x.slug, mastodon.slug], "media_ids": [image] if n % 2 == 0 else []}
            created = await api.post("/v1/posts", json=body, headers=auth)
            assert created.status_code == 201, created.text

    # Every upload and every post takes the platforms a while: the windows the kills aim at.
    for fake, upload_path, create_path in (
        (fake_x, r"^/2/media/upload$", r"^/2/tweets$"),
        (fake_mastodon, r"^/api/v2/media$", r"^/api/v1/statuses$"),
    ):
        fake.slow("POST", upload_path, 0.4)
        fake.slow("POST", create_path, 0.3)

    def published() -> int:
        return len(fake_x.tweets) + len(fake_mastodon.statuses)

    workers: list[subprocess.Popen] = []
    try:
        first = crash_stack.spawn("core", "worker", log_name="worker-crash-1")
        workers.append(first)
        wait_for(
            lambda: (
                published() >= 10
                and (
                    in_flight(fake_x, "POST", r"^/2/media/upload$")
                    or in_flight(fake_mastodon, "POST", r"^/api/v2/media$")
                )
            ),
            90,
            "10 posts out and a media upload in flight",
        )
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)

        second = crash_stack.spawn("core", "worker", log_name="worker-crash-2")
        workers.append(second)
        at_first_kill = published()
        wait_for(
            lambda: (
                published() >= at_first_kill + 10
                and (
                    in_flight(fake_x, "POST", r"^/2/tweets$") or in_flight(fake_mastodon, "POST", r"^/api/v1/statuses$")
                )
            ),
            90,
            "10 more posts out and a post being created",
        )
        second.send_signal(signal.SIGKILL)
        second.wait(timeout=10)

        workers += [crash_stack.spawn("core", "worker", log_name=f"worker-crash-{n}") for n in (3, 4)]
        deadline = time.monotonic() + 180
        while True:
            async with engine.connect() as conn:
                statuses = dict(
                    (await conn.execute(select(posts.c.status, func.count()).group_by(posts.c.status))).all()
                )
            if set(statuses) <= {"published", "failed", "canceled"}:
                break
            assert time.monotonic() < deadline, statuses
            await asyncio.sleep(0.2)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.terminate()
        for worker in workers:
            worker.wait(timeout=15)

    assert statuses == {"published": 2 * POSTS}, statuses
    x_user = fake_x.user("herald_fake")
    tweets = Counter(t.posted_text for t in fake_x.tweets_by(x_user.id, containing=run))
    toots = Counter(s.text for s in fake_mastodon.statuses if run in s.text)
    assert sorted(tweets) == sorted(texts) and set(tweets.values()) == {1}, tweets.most_common(3)
    assert len(toots) == POSTS and set(toots.values()) == {1}, toots.most_common(3)
    # The second kill left a post whose creation was sent: it was looked up (X) or sent again
    # under its Idempotency-Key (Mastodon), never posted twice.
    lookups = len(fake_x.seen("GET", r"^/2/users/[^/]+/tweets$"))
    resent = len(fake_mastodon.seen("POST", r"^/api/v1/statuses$")) - POSTS
    assert lookups + resent >= 1, (lookups, resent)

    async with engine.connect() as conn:
        rows = (await conn.execute(select(posts.c.content, posts.c.connector, posts.c.platform_post_id))).all()
        debits = await conn.scalar(
            select(func.count()).select_from(credit_ledger).where(credit_ledger.c.reason == "post_delivery")
        )
        refunds = await conn.scalar(
            select(func.count()).select_from(credit_ledger).where(credit_ledger.c.reason == "refund")
        )
    await engine.dispose()
    by_text = {t.posted_text: t.id for t in fake_x.tweets}
    for content, connector, platform_post_id in rows:
        if connector == "x":
            assert platform_post_id == by_text[content], content
        else:
            (status,) = [s for s in fake_mastodon.statuses if s.text == content]
            assert platform_post_id == status.id, content
    assert (debits, refunds) == (2 * POSTS, 0)
