"""Reading X's own metrics end to end (docs/analytics.md, "Collection" and "Each platform"): posts
published live by a real `herald worker` to the fake X (harness/fakes/platforms/x.py), their
metrics read back by the same worker through GET /2/tweets?ids= and shown by
GET /v1/posts/{post_id}/metrics as X served them, with X's faults: a 429 with Retry-After, an
expired token, a missing permission, a deleted post; and 5,000 posts due at once read within a
per-window limit the fake enforces and counts.

The stack is this module's own: live mode, X's hosts on the fake, each post read 1 s after it
went out and again a minute later (a refresh reads sooner)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, insert, select, update

from core.db.models import post_metric_series, post_metric_snapshots, posts
from harness.fakes.platforms import FakeX
from harness.live import Live, connect, create_post, marker, outcome, profile, settled
from harness.live import live_stack as live_stack_of
from harness.stack import Stack

pytestmark = pytest.mark.one_backend("postgresql")

SCHEDULE = "1s,60s"
series, snapshots = post_metric_series.c, post_metric_snapshots.c


@pytest.fixture(scope="module")
def fake_x(backend: str) -> Iterator[FakeX]:
    with FakeX(client_id="herald-test-client", client_secret="herald-test-secret") as server:
        server.add_user("metrics_other", "Other")
        server.add_user("metrics_bulk", "Bulk")
        yield server


@pytest.fixture(scope="module")
def live_stack(backend: str, fake_x: FakeX, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with live_stack_of(
        backend,
        tmp_path_factory.mktemp(f"live-metrics-{backend}"),
        fakes=(fake_x,),
        HERALD_METRICS_SCHEDULE=SCHEDULE,
        HERALD_METRICS_READ_POLL_SECONDS="0.1",
    ) as stack:
        yield stack


@pytest.fixture(scope="module")
async def x_slugs(live_stack: Stack, live: Live, fake_x: FakeX) -> dict[str, str]:
    """The org's X accounts, connected over REST: the fake's first user, `metrics_other`, `metrics_bulk`."""
    slugs = {}
    async with httpx.AsyncClient(base_url=live_stack.base_url, timeout=30) as client:
        for username in ("herald_fake", "metrics_other", "metrics_bulk"):
            with fake_x.signed_in_as(fake_x.user(username).id):
                slugs[username] = (await connect(client, live.auth, platform="x")).slug
    return slugs


async def published(api: httpx.AsyncClient, live: Live, slug: str, text: str) -> dict[str, Any]:
    (post,) = await create_post(api, live.auth, f"{text} {marker()}", [slug])
    done = await settled(api, live.auth, post["id"])
    assert done["status"] == "published", outcome(done)
    return done


async def metrics(api: httpx.AsyncClient, live: Live, post_id: str) -> dict[str, Any]:
    response = await api.get(f"/v1/posts/{post_id}/metrics", headers=live.auth)
    assert response.status_code == 200, response.text
    return response.json()


async def read_after(
    api: httpx.AsyncClient, live: Live, post_id: str, since: str | None, within: float = 20
) -> dict[str, Any]:
    """The post's metrics once a reading newer than `since` is there."""
    deadline = time.monotonic() + within
    while True:
        found = await metrics(api, live, post_id)
        if found["collected_at"] is not None and found["collected_at"] != since:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"no new reading of {post_id} within {within}s: {found}")
        await asyncio.sleep(0.1)


async def refreshed(api: httpx.AsyncClient, live: Live, post_id: str) -> dict[str, Any]:
    """A refresh asked and the reading it made."""
    before = (await metrics(api, live, post_id))["collected_at"]
    asked = await api.post(f"/v1/posts/{post_id}/metrics/refresh", headers=live.auth)
    assert asked.status_code == 202 and asked.json()["queued"], asked.text
    return await read_after(api, live, post_id, before)


async def first_reading(api: httpx.AsyncClient, live: Live, post_id: str) -> dict[str, Any]:
    return await read_after(api, live, post_id, None)


async def series_row(live: Live, post_id: str) -> Any:
    async with live.engine.connect() as conn:
        return (await conn.execute(select(post_metric_series).where(series.post_id == post_id))).one()


async def test_x_metrics_are_what_x_served(api, live, x_slugs, fake_x, live_worker) -> None:
    post = await published(api, live, x_slugs["herald_fake"], "Counting")
    first = await first_reading(api, live, post["id"])
    assert first["source"] == "platform"
    # X served zeros before any numbers were set: zeros are X's answer, not absent metrics.
    assert first["metrics"] == dict.fromkeys(
        ("impressions", "likes", "reposts", "replies", "quotes", "bookmarks", "link_clicks"), 0
    )
    tweet_id = post["platform_post_id"]
    fake_x.set_metrics(
        tweet_id,
        {
            "impression_count": 1234,
            "like_count": 56,
            "retweet_count": 7,
            "reply_count": 8,
            "quote_count": 2,
            "bookmark_count": 3,
        },
        {"impression_count": 1234, "url_link_clicks": 41, "user_profile_clicks": 9},
    )
    read = await refreshed(api, live, post["id"])
    assert read["metrics"] == {
        "impressions": 1234,
        "likes": 56,
        "reposts": 7,
        "replies": 8,
        "quotes": 2,
        "bookmarks": 3,
        "link_clicks": 41,
    }
    assert read["source"] == "platform" and read["history"][0]["collected_at"] == first["collected_at"]
    assert read["next_read_at"] is not None  # the schedule's minute read is still ahead
    call = [r for r in fake_x.seen("GET", "/2/tweets") if tweet_id in r.query.get("ids", "")][-1]
    assert call.query["tweet.fields"] == "public_metrics,non_public_metrics" and call.bearer
    # The latest raw answer is X's own for the post.
    row = await series_row(live, post["id"])
    assert f'"id":"{tweet_id}"' in row.raw and '"url_link_clicks":41' in row.raw


async def test_a_429_waits_for_retry_after_and_counts_no_failure(api, live, x_slugs, fake_x, live_worker) -> None:
    post = await published(api, live, x_slugs["herald_fake"], "Throttled")
    first = await first_reading(api, live, post["id"])
    fake_x.set_metrics(post["platform_post_id"], {"like_count": 5})
    fake_x.fail("GET", "/2/tweets", 429, {"title": "Too Many Requests", "status": 429}, {"Retry-After": "2"})
    asked_at = time.time()
    assert await _refresh(api, live, post)
    read = await read_after(api, live, post["id"], first["collected_at"])
    assert read["metrics"]["likes"] == 5
    calls = [r for r in fake_x.seen("GET", "/2/tweets") if r.at >= asked_at and post["platform_post_id"] in r.raw_query]
    assert [c.status for c in calls][:2] == [429, 200], [c.status for c in calls]
    assert calls[1].at - calls[0].at >= 1.9  # Retry-After was honoured
    row = await series_row(live, post["id"])
    assert row.failures == 0 and row.last_error == ""


async def test_an_expired_token_is_refreshed_and_the_read_goes_on(api, live, x_slugs, fake_x, live_worker) -> None:
    post = await published(api, live, x_slugs["herald_fake"], "Expired")
    first = await first_reading(api, live, post["id"])
    user = fake_x.user("herald_fake").id
    refreshes = fake_x.grant_count("refresh_token", user)
    fake_x.expire_access_tokens(user)
    fake_x.set_metrics(post["platform_post_id"], {"like_count": 9})
    assert await _refresh(api, live, post)
    read = await read_after(api, live, post["id"], first["collected_at"])
    assert read["metrics"]["likes"] == 9
    assert fake_x.grant_count("refresh_token", user) == refreshes + 1


async def test_a_missing_permission_marks_the_profile_and_spares_the_others(
    api, live, x_slugs, fake_x, live_worker
) -> None:
    refused_slug, other_slug = x_slugs["metrics_other"], x_slugs["herald_fake"]
    refused = await published(api, live, refused_slug, "Refused")
    other = await published(api, live, other_slug, "Spared")
    await first_reading(api, live, refused["id"])
    await first_reading(api, live, other["id"])
    fake_x.metrics_forbidden.add(fake_x.user("metrics_other").id)
    try:
        assert await _refresh(api, live, refused) and await _refresh(api, live, other)
        deadline = time.monotonic() + 20
        while (await profile(api, live.auth, refused_slug))["connection"]["metrics_error"] is None:
            assert time.monotonic() < deadline, "the profile was never marked"
            await asyncio.sleep(0.1)
        connection = (await profile(api, live.auth, refused_slug))["connection"]
        assert "403" in connection["metrics_error"]
        assert "connect the account again, granting tweet.read, users.read" in connection["metrics_error"]
        assert connection["metrics_unavailable"] == [] and connection["status"] == "connected"
        single = (await api.get(f"/v1/profiles/{refused_slug}", headers=live.auth)).json()
        assert single["connection"]["metrics_error"] == connection["metrics_error"]
        # The other profile's read went on; its metrics stay readable.
        await read_after(api, live, other["id"], None)
        assert (await profile(api, live.auth, other_slug))["connection"]["metrics_error"] is None
        # The refused profile's read was passed over, not failed: the schedule goes on.
        row = await series_row(live, refused["id"])
        assert row.failures == 0 and "tweet.read" in row.last_error
    finally:
        fake_x.metrics_forbidden.clear()
    # Connecting the account again clears it.
    async with httpx.AsyncClient(base_url=live.stack.base_url, timeout=30) as client:
        with fake_x.signed_in_as(fake_x.user("metrics_other").id):
            again = await connect(client, live.auth, platform="x")
    assert again.slug == refused_slug
    assert (await profile(api, live.auth, refused_slug))["connection"]["metrics_error"] is None


async def test_a_deleted_post_ends_its_series(api, live, x_slugs, fake_x, live_worker) -> None:
    post = await published(api, live, x_slugs["herald_fake"], "Deleted")
    fake_x.set_metrics(post["platform_post_id"], {"like_count": 4})
    first = await first_reading(api, live, post["id"])
    assert first["metrics"]["likes"] == 4
    fake_x.delete_tweet(post["platform_post_id"])
    assert await _refresh(api, live, post)
    deadline = time.monotonic() + 20
    while (row := await series_row(live, post["id"])).gone_at is None:
        assert time.monotonic() < deadline, "the post was never found gone"
        await asyncio.sleep(0.1)
    assert row.due_at is None and row.lease_owner is None and "resource-not-found" in row.raw
    shown = await metrics(api, live, post["id"])
    # The last reading stays; no read is due, and a refresh asks none.
    assert shown["metrics"]["likes"] == 4 and shown["next_read_at"] is None and shown["history"] == []
    assert shown["tracking"] == "gone"
    again = await api.post(f"/v1/posts/{post['id']}/metrics/refresh", headers=live.auth)
    assert again.status_code == 202 and again.json()["queued"] is False
    async with live.engine.connect() as conn:
        count = await conn.scalar(select(func.count()).where(snapshots.series_id == row.id))
    assert count == 1


async def test_5000_posts_due_at_once_stay_within_the_rate_limit(api, live, x_slugs, fake_x, live_worker) -> None:
    """5,000 published posts of one account due at once: 50 calls of 100, at most 10 a 2-second
    window as the fake allows; none refused, every post read once, none failed."""
    template = await published(api, live, x_slugs["metrics_bulk"], "Template")
    await first_reading(api, live, template["id"])
    user = fake_x.user("metrics_bulk").id
    ids = fake_x.seed_tweets(user, 5000)
    for n, tweet_id in enumerate(ids):
        fake_x.public_metrics[tweet_id] = {"like_count": n}
    fake_x.metrics_limit.reset_counts(limit=10, window=2)
    now = datetime.now(UTC)
    async with live.engine.begin() as conn:
        row = dict((await conn.execute(select(posts).where(posts.c.id == template["id"]))).one()._mapping)
        clones = [row | {"id": f"pst_bulk{n:05d}{marker()[:8]}", "platform_post_id": tid} for n, tid in enumerate(ids)]
        await conn.execute(insert(posts), clones)
        await conn.execute(
            insert(post_metric_series),
            [
                {
                    "post_id": c["id"],
                    "org_id": live.org_id,
                    # Past the schedule's last step (60 s): their one read due now is their last,
                    # however long the 5,000 take (else those read early come due again at 60 s).
                    "published_at": now - timedelta(seconds=61),
                    "due_at": now,
                    "step": 0,
                    "refresh": False,
                    "failures": 0,
                    "last_error": "",
                    "raw": "",
                }
                for c in clones
            ],
        )
        await conn.execute(update(post_metric_series).where(series.post_id == template["id"]).values(due_at=None))
    bulk = select(series.id).join(posts, posts.c.id == series.post_id).where(posts.c.platform_post_id.in_(ids))
    deadline = time.monotonic() + 120
    while True:
        async with live.engine.connect() as conn:
            read = await conn.scalar(
                select(func.count(func.distinct(snapshots.series_id))).where(snapshots.series_id.in_(bulk))
            )
        if read == 5000:
            break
        assert time.monotonic() < deadline, f"{read} of 5000 read"
        await asyncio.sleep(0.5)
    assert fake_x.metrics_limit.exceeded == 0  # no call was refused
    assert fake_x.metrics_limit.most_in_a_window() <= 10
    calls = [r for r in fake_x.seen("GET", "/2/tweets") if r.bearer and r.status == 200]
    async with live.engine.connect() as conn:
        failed = await conn.scalar(select(func.count()).where(series.id.in_(bulk), series.failures > 0))
        likes = await conn.scalar(select(func.sum(snapshots.likes)).where(snapshots.series_id.in_(bulk)))
        twice = await conn.scalar(
            select(func.count()).select_from(
                select(snapshots.series_id)
                .where(snapshots.series_id.in_(bulk))
                .group_by(snapshots.series_id)
                .having(func.count() > 1)
                .subquery()
            )
        )
    assert failed == 0 and twice == 0 and likes == sum(range(5000))
    assert len([c for c in calls if len(c.query["ids"].split(",")) == 100]) >= 50


async def _refresh(api: httpx.AsyncClient, live: Live, post: dict[str, Any]) -> bool:
    asked = await api.post(f"/v1/posts/{post['id']}/metrics/refresh", headers=live.auth)
    assert asked.status_code == 202, asked.text
    return asked.json()["queued"]
