"""Each platform's metrics reading (docs/analytics.md, "Each platform") run live (real HTTP through
the guarded transport) against its fake: posts published by the connector, their numbers set at
the fake, read back by `post_metrics` in the vocabulary, as served; a deleted post is gone; a
missing permission raises MetricsUnavailable; a 429 is a DeliveryError with when to come back.
X's reading runs end to end through the workers in tests/e2e/test_live_metrics.py; the
collection's pacing and the profile's marks are tested there."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from core.connectors.base import Account, DeliveryError
from core.connectors.bluesky import BlueskyConnector
from core.connectors.live import LiveAPI
from core.connectors.mastodon import MastodonConnector
from core.connectors.readings import MetricsItem, MetricsUnavailable
from core.connectors.threads import ThreadsConnector
from core.connectors.x import XConnector
from core.db.types import utcnow
from harness.fakes.platforms.bsky_appview import FakeAppView
from harness.fakes.platforms.graph import LONG_LIVED, FakeThreads
from harness.fakes.platforms.mastodon import FakeMastodon
from harness.fakes.platforms.x import SCOPES as X_SCOPES
from harness.fakes.platforms.x import FakeX
from tests.core.connectors.factories import post
from tests.core.connectors.live_fakes import Progress, Runner


def items(account: Account, *ids: str, age: timedelta = timedelta(hours=1)) -> list[MetricsItem]:
    return [MetricsItem("pst_x", n - 1, pid, utcnow() - age, account) for n, pid in enumerate(ids)]


async def read(run: Runner, wanted: list[MetricsItem]) -> tuple[list[Any], LiveAPI]:
    api = LiveAPI(run.client, run.connector, run.token, run._read, Progress(), {})
    return await run.connector.post_metrics(wanted, api), api


# --- X ---------------------------------------------------------------------------------------


async def test_x_reads_public_and_own_non_public_metrics_and_a_deleted_post_is_gone() -> None:
    with FakeX() as fake:
        user = fake.user("herald_fake")
        token = fake.grant_access(user.id, X_SCOPES, lifetime=3600)
        account = Account("acme-x", handle=user.username, platform_user_id=user.id)
        async with Runner(XConnector(), token, {"api.x.com": fake.base_url}) as run:
            made = [
                await run.deliver(post("x", f"post {n}", delivery_key=f"dk_{n}", account=account)) for n in range(3)
            ]
            ids = [d.platform_post_id for d in made]
            fake.set_metrics(
                ids[0],
                {
                    "impression_count": 900,
                    "like_count": 12,
                    "retweet_count": 3,
                    "reply_count": 2,
                    "quote_count": 1,
                    "bookmark_count": 4,
                },
                {"url_link_clicks": 17},
            )
            fake.set_metrics(ids[1], {"like_count": 5})
            fake.delete_tweet(ids[2])
            # The second is over 30 days old: asked apart, without the non-public fields.
            wanted = [*items(account, ids[0]), *items(account, ids[1], age=timedelta(days=31)), *items(account, ids[2])]
            readings, _ = await read(run, wanted)
        assert dict(readings[0].values) == {
            "impressions": 900,
            "likes": 12,
            "reposts": 3,
            "replies": 2,
            "quotes": 1,
            "bookmarks": 4,
            "link_clicks": 17,
        }
        assert dict(readings[1].values) == {
            "impressions": 0,
            "likes": 5,
            "reposts": 0,
            "replies": 0,
            "quotes": 0,
            "bookmarks": 0,
        }  # no link clicks: not asked, absent
        assert readings[2].gone and readings[2].raw["title"] == "Not Found Error"
        calls = fake.seen("GET", "/2/tweets")
        assert [c.query["tweet.fields"] for c in calls] == ["public_metrics,non_public_metrics", "public_metrics"]
        assert calls[0].query["ids"] == f"{ids[0]},{ids[2]}"


async def test_x_429_carries_when_to_come_back() -> None:
    with FakeX() as fake:
        user = fake.user("herald_fake")
        token = fake.grant_access(user.id, X_SCOPES, lifetime=3600)
        account = Account("acme-x", handle=user.username, platform_user_id=user.id)
        (tweet,) = fake.seed_tweets(user.id, 1)
        fake.metrics_limit.reset_counts(limit=1, window=60)
        async with Runner(XConnector(), token, {"api.x.com": fake.base_url}) as run:
            await read(run, items(account, tweet))
            with pytest.raises(DeliveryError) as caught:
                await read(run, items(account, tweet))
    assert caught.value.status == 429 and caught.value.retry_after is not None and caught.value.retry_after <= 60


# --- Mastodon --------------------------------------------------------------------------------


def mastodon(fake: FakeMastodon, scopes: tuple[str, ...]) -> tuple[Account, str]:
    account = fake.account("herald")
    token = fake.grant_access(account.id, scopes)
    return Account("acme-masto", handle="herald", platform_user_id=account.id, instance_url=fake.base_url), token


MASTODON_SCOPES = ("read:accounts", "write:statuses", "write:media", "read:statuses")


@pytest.mark.parametrize("batch_lookup", [True, False], ids=["4.3 and later", "before 4.3"])
async def test_mastodon_reads_counts_in_a_batch_or_one_by_one(batch_lookup: bool) -> None:
    with FakeMastodon() as fake:
        fake.batch_lookup = batch_lookup
        account, token = mastodon(fake, MASTODON_SCOPES)
        async with Runner(MastodonConnector(), token) as run:
            made = [
                await run.deliver(post("mastodon", f"toot {n}", delivery_key=f"dk_{n}", account=account))
                for n in range(3)
            ]
            ids = [d.platform_post_id for d in made]
            fake.status_metrics[ids[0]] = {
                "favourites_count": 7,
                "reblogs_count": 2,
                "replies_count": 1,
                "quotes_count": 3,
            }
            fake.delete_status(ids[2])
            readings, api = await read(run, items(account, *ids))
    assert dict(readings[0].values) == {"likes": 7, "reposts": 2, "replies": 1, "quotes": 3}
    assert dict(readings[1].values) == {"likes": 0, "reposts": 0, "replies": 0, "quotes": 0}
    assert readings[2].gone and not readings[0].gone
    assert "impressions" not in readings[0].values  # Mastodon counts no views: absent, never 0
    lookups = [r for r in fake.requests if r.method == "GET" and r.path.startswith("/api/v1/statuses")]
    assert len(lookups) == (1 if batch_lookup else 4)  # the batch (404 before 4.3), then one by one
    assert api.throttled_until is None  # 298 of 300 left: nothing to wait for


async def test_mastodon_without_read_statuses_is_refused_403() -> None:
    with FakeMastodon() as fake:
        account, token = mastodon(fake, MASTODON_SCOPES[:3])
        async with Runner(MastodonConnector(), token) as run:
            made = await run.deliver(post("mastodon", "toot", delivery_key="dk_0", account=account))
            with pytest.raises(DeliveryError) as caught:
                await read(run, items(account, made.platform_post_id))
    assert caught.value.status == 403  # the collection marks the profile (platform_reads)


async def test_mastodon_spent_window_sets_when_to_wait() -> None:
    with FakeMastodon() as fake:
        account, token = mastodon(fake, MASTODON_SCOPES)
        fake.metrics_limit.reset_counts(limit=1, window=60)
        async with Runner(MastodonConnector(), token) as run:
            made = await run.deliver(post("mastodon", "toot", delivery_key="dk_0", account=account))
            _, api = await read(run, items(account, made.platform_post_id))
    # The ISO 8601 reset of the spent window (remaining 0): no call before it.
    assert api.throttled_until is not None and api.throttled_until > utcnow()


# --- Bluesky ---------------------------------------------------------------------------------


async def test_bluesky_reads_the_public_appview_without_a_token() -> None:
    with FakeAppView() as appview:
        did = "did:plc:abcdefghijklmnopqrstuvwx"
        uris = [f"at://{did}/app.bsky.feed.post/3l{n}aaaaaaaaa" for n in range(3)]
        appview.index(uris[0], {"likeCount": 9, "repostCount": 4, "replyCount": 2, "quoteCount": 1, "bookmarkCount": 6})
        appview.index(uris[1])
        account = Account("acme-bsky", handle="alice.test", platform_user_id=did)
        async with Runner(BlueskyConnector(), "unused", {"public.api.bsky.app": appview.base_url}) as run:
            readings, _ = await read(run, items(account, *uris))
    assert dict(readings[0].values) == {"likes": 9, "reposts": 4, "replies": 2, "quotes": 1, "bookmarks": 6}
    assert dict(readings[1].values) == dict.fromkeys(("likes", "reposts", "replies", "quotes", "bookmarks"), 0)
    assert readings[2].gone  # not indexed: deleted
    (call,) = appview.seen("GET", "/xrpc/app.bsky.feed.getPosts")
    assert "authorization" not in call.headers and call.raw_query.count("uris=") == 3


# --- Threads ---------------------------------------------------------------------------------


async def test_threads_reads_each_posts_insights() -> None:
    with FakeThreads() as fake:
        user = fake.user("herald_fake")
        token = fake.grant_access(user.id, fake.scopes, lifetime=LONG_LIVED, long_lived=True)
        account = Account("acme-threads", handle=user.username, platform_user_id=user.id)
        async with Runner(ThreadsConnector(), token, {"graph.threads.net": fake.base_url}) as run:
            made = [
                await run.deliver(post("threads", f"thread {n}", delivery_key=f"dk_{n}", account=account))
                for n in range(2)
            ]
            ids = [d.platform_post_id for d in made]
            fake.insights[ids[0]] = {"views": 300, "likes": 20, "replies": 3, "reposts": 2, "quotes": 1, "shares": 5}
            fake.delete_post(ids[1])
            readings, _ = await read(run, items(account, *ids))
    assert dict(readings[0].values) == {
        "impressions": 300,
        "likes": 20,
        "replies": 3,
        "reposts": 2,
        "quotes": 1,
        "shares": 5,
    }
    assert readings[1].gone
    calls = [r for r in fake.requests if r.path.endswith("/insights")]
    assert len(calls) == 2 and calls[0].query["metric"] == "views,likes,replies,reposts,quotes,shares"


async def test_threads_without_threads_manage_insights_is_unavailable() -> None:
    with FakeThreads() as fake:
        user = fake.user("herald_fake")
        token = fake.grant_access(user.id, fake.scopes[:3], lifetime=LONG_LIVED, long_lived=True)
        account = Account("acme-threads", handle=user.username, platform_user_id=user.id)
        async with Runner(ThreadsConnector(), token, {"graph.threads.net": fake.base_url}) as run:
            made = await run.deliver(post("threads", "thread", delivery_key="dk_0", account=account))
            with pytest.raises(MetricsUnavailable) as caught:
                await read(run, items(account, made.platform_post_id))
    assert "403" in str(caught.value) and ThreadsConnector.metrics_scopes == ("threads_manage_insights",)
