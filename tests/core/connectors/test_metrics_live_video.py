"""Instagram's, TikTok's, YouTube's and LinkedIn's metrics readings and every platform's followers
(docs/analytics.md, "Each platform" and "Account metrics"), run live (real HTTP through the
guarded transport) against each platform's fake: the numbers in the vocabulary as the fake served
them, a batch in one call, a deleted post gone, a missing permission MetricsUnavailable, a limit a
DeliveryError with when to come back. The workers' side (pacing, marks, token refresh) runs end
to end in tests/e2e/test_live_metrics_video.py."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.connectors.base import Account, DeliveryError
from core.connectors.instagram import InstagramConnector
from core.connectors.linkedin import LinkedInConnector
from core.connectors.live import LiveAPI
from core.connectors.readings import MetricsItem, MetricsUnavailable
from core.connectors.registry import CONNECTORS
from core.connectors.tiktok import TikTokConnector
from core.connectors.youtube import YouTubeConnector
from core.connectors.youtube_metrics import next_pacific_midnight
from core.db.types import utcnow
from harness.fakes.platforms.follower_counts import FakeBlueskyProfiles, ThreadsFollowers
from harness.fakes.platforms.graph import LONG_LIVED, FakeInstagram, FakeThreads, GraphPost
from harness.fakes.platforms.linkedin import FakeLinkedIn
from harness.fakes.platforms.mastodon import FakeMastodon
from harness.fakes.platforms.tiktok import SCOPES as TIKTOK_SCOPES
from harness.fakes.platforms.tiktok import FakeTikTok
from harness.fakes.platforms.x import SCOPES as X_SCOPES
from harness.fakes.platforms.x import FakeX
from harness.fakes.platforms.youtube import SCOPES as YOUTUBE_SCOPES
from harness.fakes.platforms.youtube import FakeYouTube
from tests.core.connectors.live_fakes import Progress, Runner


class SameToken:
    """A token the platform may call dead once: 'refreshing' it keeps it (the fakes' tokens are
    refused for want of a scope, not for age, here)."""

    def __init__(self, value: str) -> None:
        self.value = value

    def authorization(self, scheme: str) -> str:
        return f"{scheme} {self.value}"

    async def refresh(self) -> None:
        pass


def items(account: Account, *ids: str) -> list[MetricsItem]:
    return [MetricsItem("pst_v", n - 1, pid, utcnow() - timedelta(hours=1), account) for n, pid in enumerate(ids)]


def api_of(run: Runner) -> LiveAPI:
    return LiveAPI(run.client, run.connector, SameToken(run.token.value), run._read, Progress(), {})


async def read(run: Runner, wanted: list[MetricsItem]) -> list[Any]:
    return await run.connector.post_metrics(wanted, api_of(run))


# --- Instagram -------------------------------------------------------------------------------


def ig_media(fake: FakeInstagram, owner: str, media_type: str = "IMAGE") -> str:
    media_id = fake._new_id()
    fake.posts[media_id] = GraphPost(media_id, owner, "0", media_type, "", [], "sc", f"https://ig/{media_id}")
    return media_id


def instagram(fake: FakeInstagram, scopes: tuple[str, ...] | None = None) -> tuple[Account, str]:
    user = fake.user("herald_fake")
    token = fake.grant_access(user.id, scopes or fake.scopes, lifetime=LONG_LIVED, long_lived=True)
    return Account("acme-ig", handle=user.username, platform_user_id=user.id), token


async def test_instagram_reads_insights_in_one_graph_batch() -> None:
    with FakeInstagram() as fake:
        account, token = instagram(fake)
        user = fake.user("herald_fake").id
        image, reel, pending, deleted = (ig_media(fake, user, kind) for kind in ("IMAGE", "REELS", "IMAGE", "IMAGE"))
        fake.insights[image] = {"views": 900, "reach": 700, "likes": 40, "comments": 5, "saved": 3, "shares": 2}
        fake.insights[reel] = {"views": 5000, "reach": 4000, "likes": 300, "ig_reels_video_view_total_time": 123_456}
        fake.insights_pending.add(pending)
        fake.delete_post(deleted)
        async with Runner(InstagramConnector(), token, {"graph.instagram.com": fake.base_url}) as run:
            got = await read(run, items(account, image, reel, pending, deleted))
    assert got[0].values == {
        "impressions": 900,
        "reach": 700,
        "likes": 40,
        "replies": 5,
        "bookmarks": 3,
        "shares": 2,
    }
    assert got[1].values == {
        "impressions": 5000,
        "reach": 4000,
        "likes": 300,
        "replies": 0,
        "bookmarks": 0,
        "shares": 0,
        "watch_time_seconds": 123,
    }
    assert got[2].values == {} and not got[2].gone  # not there yet: absent, never 0
    assert got[3].gone and not got[0].gone
    batches = fake.seen("POST", r"/?")
    # One batch of four, then the media that refused the reels' metric asked again without it.
    assert [len(json.loads(b.form["batch"])) for b in batches] == [4, 2]
    assert "ig_reels_video_view_total_time" not in batches[1].form["batch"]


async def test_instagram_batch_of_50_is_one_call_counted_50_times() -> None:
    with FakeInstagram() as fake:
        account, token = instagram(fake)
        user = fake.user("herald_fake").id
        reels = [ig_media(fake, user, "REELS") for _ in range(50)]
        for n, media_id in enumerate(reels):
            fake.insights[media_id] = {"likes": n}
        async with Runner(InstagramConnector(), token, {"graph.instagram.com": fake.base_url}) as run:
            got = await read(run, items(account, *reels))
    assert [r.values["likes"] for r in got] == list(range(50))
    assert len(fake.seen("POST", r"/?")) == 1 and fake.metrics_limit.most_in_a_window() == 50
    assert InstagramConnector.metrics_batch_size == 50


async def test_instagram_without_manage_insights_is_unavailable_and_its_limit_a_wait() -> None:
    with FakeInstagram() as fake:
        account, token = instagram(fake, fake.scopes[:3])
        media = ig_media(fake, fake.user("herald_fake").id, "REELS")
        async with Runner(InstagramConnector(), token, {"graph.instagram.com": fake.base_url}) as run:
            with pytest.raises(MetricsUnavailable, match="permission"):
                await read(run, items(account, media))
        account, token = instagram(fake)
        fake.metrics_limit.reset_counts(limit=1, window=3600)
        async with Runner(InstagramConnector(), token, {"graph.instagram.com": fake.base_url}) as run:
            await read(run, items(account, media))
            with pytest.raises(DeliveryError) as caught:
                await read(run, items(account, media))
    assert caught.value.status == 429


# --- TikTok ----------------------------------------------------------------------------------


def tiktok(fake: FakeTikTok, scopes: tuple[str, ...] = TIKTOK_SCOPES) -> tuple[Account, str]:
    user = fake.user("herald.fake")
    token = fake.grant_access(user.open_id, scopes, lifetime=3600)
    return Account("acme-tt", handle=user.username, platform_user_id=user.open_id), token


async def test_tiktok_reads_video_query_and_a_private_or_deleted_video_is_gone() -> None:
    with FakeTikTok() as fake:
        account, token = tiktok(fake)
        first, second, deleted = fake.seed_videos(account.platform_user_id, 3)
        fake.video_metrics[first] = {"view_count": 1200, "like_count": 80, "comment_count": 9, "share_count": 4}
        fake.delete_video(deleted)
        async with Runner(TikTokConnector(), token, {"open.tiktokapis.com": fake.base_url}) as run:
            got = await read(run, items(account, first, second, deleted, "v_pub_url~v2.77"))
            alone_private = await read(run, items(account, "v_pub_url~v2.78"))
    assert got[0].values == {"video_views": 1200, "likes": 80, "replies": 9, "shares": 4}
    assert got[1].values == {"video_views": 0, "likes": 0, "replies": 0, "shares": 0} and not got[1].gone
    assert got[2].gone and got[3].gone and alone_private[0].gone
    (call,) = fake.seen("POST", "/v2/video/query/")  # the private one alone asked nothing
    assert call.json == {"filters": {"video_ids": [first, second, deleted]}}
    assert call.query["fields"] == "id,view_count,like_count,comment_count,share_count"


async def test_tiktok_without_video_list_is_unavailable_and_a_429_is_a_wait() -> None:
    with FakeTikTok() as fake:
        account, token = tiktok(fake, ("user.info.basic", "video.publish"))
        (video,) = fake.seed_videos(account.platform_user_id, 1)
        async with Runner(TikTokConnector(), token, {"open.tiktokapis.com": fake.base_url}) as run:
            with pytest.raises(MetricsUnavailable, match="did not authorize the scope"):
                await read(run, items(account, video))
        account, token = tiktok(fake)
        fake.metrics_limit.reset_counts(limit=1, window=60)
        async with Runner(TikTokConnector(), token, {"open.tiktokapis.com": fake.base_url}) as run:
            await read(run, items(account, video))
            with pytest.raises(DeliveryError) as caught:
                await read(run, items(account, video))
    assert caught.value.status == 429


# --- YouTube ---------------------------------------------------------------------------------


def youtube_hosts(fake: FakeYouTube) -> dict[str, str]:
    """The Data API's host and the Analytics API's, both on the fake."""
    return dict.fromkeys(("www.googleapis.com", "youtubeanalytics.googleapis.com"), fake.base_url)


def youtube(fake: FakeYouTube, scopes: tuple[str, ...] = YOUTUBE_SCOPES) -> tuple[Account, str]:
    channel = fake.channel("@heraldfake")
    token = fake.grant_access(channel.id, scopes, lifetime=3600)
    return Account("acme-yt", handle=channel.custom_url, platform_user_id=channel.id), token


async def test_youtube_reads_statistics_strings_as_counts_and_a_deleted_video_is_gone() -> None:
    with FakeYouTube() as fake:
        account, token = youtube(fake)
        videos = fake.seed_videos(account.platform_user_id, 50)
        fake.video_statistics[videos[0]] = {"viewCount": 31337, "likeCount": 420, "commentCount": 17}
        fake.delete_video(videos[49])
        async with Runner(YouTubeConnector(), token, youtube_hosts(fake)) as run:
            got = await read(run, items(account, *videos))
    assert got[0].values == {"video_views": 31337, "likes": 420, "replies": 17}
    assert got[0].raw["statistics"]["viewCount"] == "31337"  # YouTube's strings, kept raw
    assert all(not r.gone for r in got[:49]) and got[49].gone
    (call,) = fake.seen("GET", "/youtube/v3/videos")
    assert call.query["part"] == "statistics" and len(call.query["id"].split(",")) == 50
    assert fake.quota.most_in_a_window() == 1  # one unit for the 50


async def test_youtube_quota_spent_waits_for_pacific_midnight_and_no_scope_is_unavailable() -> None:
    with FakeYouTube() as fake:
        account, token = youtube(fake)
        (video,) = fake.seed_videos(account.platform_user_id, 1)
        fake.quota.reset_counts(limit=0)
        async with Runner(YouTubeConnector(), token, youtube_hosts(fake)) as run:
            with pytest.raises(DeliveryError) as caught:
                await read(run, items(account, video))
        fake.quota.reset_counts(limit=10_000)
        account, token = youtube(fake, ("https://www.googleapis.com/auth/youtube.upload",))
        async with Runner(YouTubeConnector(), token, youtube_hosts(fake)) as run:
            with pytest.raises(MetricsUnavailable, match="insufficient"):
                await read(run, items(account, video))
    assert caught.value.status == 429 and "quota" in str(caught.value)
    wait = caught.value.retry_after
    assert wait is not None and 0 < wait <= 86_400 + 3600


def test_the_quota_resets_at_the_next_pacific_midnight() -> None:
    # 07:59 UTC on 15 March 2026 is 00:59 PDT: the next reset is 07:00 UTC on the 16th.
    assert next_pacific_midnight(datetime(2026, 3, 15, 7, 59, tzinfo=UTC)) == datetime(2026, 3, 16, 7, 5, tzinfo=UTC)
    # In winter (PST, UTC-8): 08:00 UTC.
    assert next_pacific_midnight(datetime(2026, 1, 10, 12, 0, tzinfo=UTC)) == datetime(2026, 1, 11, 8, 5, tzinfo=UTC)


# --- LinkedIn --------------------------------------------------------------------------------


async def test_linkedin_reads_a_pages_share_statistics() -> None:
    with FakeLinkedIn() as fake:
        member = fake.member("Herald Fake")
        page = fake.add_page(member.sub)
        token = fake.grant_access(member.sub, ("openid", "profile", "w_member_social", "rw_organization_admin"))
        account = Account("acme-li", platform_user_id=page)
        shares = fake.seed_posts(page, 19)
        (ugc,) = fake.seed_posts(page, 1, kind="ugcPost")
        fake.share_statistics[shares[0]] = {
            "impressionCount": 2000,
            "uniqueImpressionsCount": 1500,
            "clickCount": 60,
            "likeCount": 45,
            "commentCount": 6,
            "shareCount": 3,
        }
        fake.share_statistics[ugc] = {"likeCount": 7}
        fake.delete_post(shares[18])
        async with Runner(LinkedInConnector(), token, {"api.linkedin.com": fake.base_url}) as run:
            got = await read(run, items(account, *shares, ugc))
    assert got[0].values == {
        "impressions": 2000,
        "reach": 1500,
        "link_clicks": 60,
        "likes": 45,
        "replies": 6,
        "reposts": 3,
    }
    assert got[19].values["likes"] == 7 and got[18].gone and not got[17].gone
    (call,) = fake.seen("GET", "/rest/organizationalEntityShareStatistics")
    assert call.headers["linkedin-version"] and call.headers["x-restli-protocol-version"] == "2.0.0"
    assert call.query["organizationalEntity"] == page and call.query["ugcPosts"] == f"List({ugc})"


async def test_linkedin_member_posts_and_a_page_without_admin_are_unavailable() -> None:
    with FakeLinkedIn() as fake:
        member = fake.member("Herald Fake")
        page = fake.add_page(member.sub)
        token = fake.grant_access(member.sub, ("openid", "profile", "w_member_social"))
        async with Runner(LinkedInConnector(), token, {"api.linkedin.com": fake.base_url}) as run:
            with pytest.raises(MetricsUnavailable, match="r_member_postAnalytics"):
                await read(run, items(Account("acme-li", platform_user_id=member.sub), "urn:li:share:1"))
            with pytest.raises(MetricsUnavailable, match="403"):
                await read(run, items(Account("acme-li", platform_user_id=page), "urn:li:share:1"))
        assert len(fake.seen("GET", "/rest/organizationalEntityShareStatistics")) == 1  # the member's: no call


# --- followers -------------------------------------------------------------------------------


async def followers(connector_key: str, token: str, overrides: dict[str, str], account: Account) -> Any:
    connector = CONNECTORS[connector_key]
    async with Runner(connector, token, overrides) as run:
        return await connector.account_metrics(account, api_of(run))


class ThreadsWithFollowers(ThreadsFollowers, FakeThreads):
    def __init__(self) -> None:
        self.followers: dict[str, int] = {}
        super().__init__()

    def routes(self) -> list[Any]:
        return self.followers_routes() + super().routes()


async def test_each_platforms_followers_are_what_it_served() -> None:
    read: dict[str, int] = {}
    with FakeX() as fake:
        user = fake.user("herald_fake")
        fake.followers[user.id] = 1001
        token = fake.grant_access(user.id, X_SCOPES, lifetime=3600)
        got = await followers("x", token, {"api.x.com": fake.base_url}, Account("a", platform_user_id=user.id))
        read["x"] = got.values["followers"]
        assert got.raw["data"]["public_metrics"]["followers_count"] == 1001
    with FakeBlueskyProfiles() as fake:
        fake.add("did:plc:heraldfake", "herald.bsky.social", 1002)
        got = await followers(
            "bluesky",
            "unused",
            {"public.api.bsky.app": fake.base_url},
            Account("a", platform_user_id="did:plc:heraldfake"),
        )
        read["bluesky"] = got.values["followers"]
        assert fake.seen("GET", r"/xrpc/app\.bsky\.actor\.getProfile")[0].bearer is None
    with FakeMastodon() as fake:
        account = fake.account("herald")
        token = fake.grant_access(account.id, ("read:accounts",))
        got = await followers(
            "mastodon", token, {}, Account("a", platform_user_id=account.id, instance_url=fake.base_url)
        )
        read["mastodon"] = got.values["followers"]  # the fake serves 0 for every account
        assert got.raw["followers_count"] == 0
    with ThreadsWithFollowers() as fake:
        user = fake.user("herald_fake")
        fake.followers[user.id] = 1004
        token = fake.grant_access(user.id, fake.scopes, lifetime=LONG_LIVED, long_lived=True)
        got = await followers(
            "threads", token, {"graph.threads.net": fake.base_url}, Account("a", platform_user_id=user.id)
        )
        read["threads"] = got.values["followers"]
    with FakeInstagram() as fake:
        user = fake.user("herald_fake")
        fake.followers[user.id] = 1005
        token = fake.grant_access(user.id, fake.scopes, lifetime=LONG_LIVED, long_lived=True)
        got = await followers("instagram", token, {"graph.instagram.com": fake.base_url}, Account("a"))
        read["instagram"] = got.values["followers"]
    with FakeTikTok() as fake:
        user = fake.user("herald.fake")
        fake.followers[user.open_id] = 1006
        token = fake.grant_access(user.open_id, TIKTOK_SCOPES, lifetime=3600)
        got = await followers("tiktok", token, {"open.tiktokapis.com": fake.base_url}, Account("a"))
        read["tiktok"] = got.values["followers"]
    with FakeYouTube() as fake:
        channel = fake.channel("@heraldfake")
        fake.subscribers[channel.id] = 1007
        token = fake.grant_access(channel.id, YOUTUBE_SCOPES, lifetime=3600)
        got = await followers("youtube", token, {"www.googleapis.com": fake.base_url}, Account("a"))
        read["youtube"] = got.values["followers"]
        assert got.raw["items"][0]["statistics"]["subscriberCount"] == "1007"
    with FakeLinkedIn() as fake:
        member = fake.member("Herald Fake")
        page = fake.add_page(member.sub)
        fake.page_followers[page] = 1008
        token = fake.grant_access(member.sub, ("openid", "profile", "w_member_social", "rw_organization_admin"))
        got = await followers(
            "linkedin", token, {"api.linkedin.com": fake.base_url}, Account("a", platform_user_id=page)
        )
        read["linkedin"] = got.values["followers"]
        # A member's count needs r_member_profileAnalytics, which Herald does not ask for: refused.
        with pytest.raises(DeliveryError, match="403"):
            await followers(
                "linkedin", token, {"api.linkedin.com": fake.base_url}, Account("a", platform_user_id=member.sub)
            )
    assert read == {
        "x": 1001,
        "bluesky": 1002,
        "mastodon": 0,
        "threads": 1004,
        "instagram": 1005,
        "tiktok": 1006,
        "youtube": 1007,
        "linkedin": 1008,
    }
    assert set(read) == set(CONNECTORS)


async def test_a_followers_count_the_platform_withholds_is_a_refusal_not_zero() -> None:
    with FakeTikTok() as fake:
        user = fake.user("herald.fake")
        token = fake.grant_access(user.open_id, ("user.info.basic", "video.publish"), lifetime=3600)
        started = time.monotonic()
        with pytest.raises(DeliveryError, match="did not authorize the scope"):
            await followers("tiktok", token, {"open.tiktokapis.com": fake.base_url}, Account("a"))
        assert time.monotonic() - started < 5
