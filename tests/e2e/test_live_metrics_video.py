"""Reading Instagram's, TikTok's, YouTube's and LinkedIn's own metrics, and each account's
followers, end to end (docs/analytics.md, "Each platform", "Collection" and "Account metrics"):
accounts connected through the REST API and a browser's redirects, published posts of theirs (rows
cloned from one scheduled post, pointing at objects the fakes hold) read by a real `herald
worker` and shown by GET /v1/posts/{post_id}/metrics as the fakes served them, with the faults: a
429 with Retry-After, an expired token, a missing permission, a deleted post, and a batch split
in the platform's sizes. Followers are read by the same worker, live, once per profile.

The stack is this module's own: live mode, the four platforms' hosts on their fakes, each post
read 1 s after it went out and again a minute later (a refresh reads sooner)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, insert, select, update

from core.db.models import (
    account_metric_series,
    account_metric_snapshots,
    post_metric_series,
    post_metric_snapshots,
    posts,
    profiles,
)
from harness.fakes.platforms.graph import FakeInstagram, GraphPost
from harness.fakes.platforms.linkedin import FakeLinkedIn
from harness.fakes.platforms.tiktok import FakeTikTok, error_body
from harness.fakes.platforms.youtube import FakeYouTube
from harness.live import Live, connect, marker, profile, profile_row
from harness.live import live_stack as live_stack_of
from harness.stack import Stack

pytestmark = pytest.mark.one_backend("postgresql")

SCHEDULE = "1s,60s"
PLATFORMS = ("tiktok", "youtube", "linkedin", "instagram")
series, snapshots = post_metric_series.c, post_metric_snapshots.c
LATER = (datetime.now(UTC) + timedelta(days=300)).isoformat()  # the template never goes out


@pytest.fixture(scope="module")
def fakes(backend: str) -> Iterator[dict[str, Any]]:
    with (
        FakeTikTok() as tiktok,
        FakeYouTube() as youtube,
        FakeLinkedIn() as linkedin,
        FakeInstagram() as instagram,
    ):
        yield {"tiktok": tiktok, "youtube": youtube, "linkedin": linkedin, "instagram": instagram}


@pytest.fixture(scope="module")
def live_stack(backend: str, fakes: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with live_stack_of(
        backend,
        tmp_path_factory.mktemp(f"live-metrics-video-{backend}"),
        fakes=tuple(fakes.values()),
        HERALD_METRICS_SCHEDULE=SCHEDULE,
        HERALD_METRICS_READ_POLL_SECONDS="0.1",
        HERALD_ACCOUNT_METRICS_POLL_SECONDS="0.2",
    ) as stack:
        yield stack


@pytest.fixture(scope="module")
async def slugs(live_stack: Stack, live: Live, fakes: dict[str, Any]) -> dict[str, str]:
    """Each platform's account, connected over REST (the fake's first user). The LinkedIn one is
    made its page's: its platform id the page's URN, the member the page's administrator with
    `rw_organization_admin` (a page's statistics are LinkedIn's; a member's need a partner scope)."""
    out = {}
    async with httpx.AsyncClient(base_url=live_stack.base_url, timeout=30) as client:
        for platform in PLATFORMS:
            out[platform] = (await connect(client, live.auth, platform=platform)).slug
    linkedin: FakeLinkedIn = fakes["linkedin"]
    member = linkedin.member("Herald Fake")
    page = linkedin.add_page(member.sub)
    linkedin.grant_scope(member.sub, "rw_organization_admin")
    async with live.engine.begin() as conn:
        await conn.execute(
            update(profiles)
            .where(profiles.c.org_id == live.org_id, profiles.c.slug == out["linkedin"])
            .values(platform_account_id=page)
        )
    return out


@pytest.fixture(scope="module")
async def template(slugs: dict[str, str], live: Live, live_stack: Stack) -> dict[str, Any]:
    """A scheduled text post (LinkedIn takes text alone), the row published posts are cloned from."""
    async with httpx.AsyncClient(base_url=live_stack.base_url, timeout=30) as client:
        body = {
            "content": f"Template {marker()}",
            "profiles": [slugs["linkedin"]],
            "schedule_at": LATER,
        }
        made = await client.post("/v1/posts", json=body, headers=live.auth)
    assert made.status_code == 201, made.text
    async with live.engine.connect() as conn:
        return dict(
            (await conn.execute(select(posts).where(posts.c.id == made.json()["posts"][0]["id"]))).one()._mapping
        )


async def published(live: Live, template: dict[str, Any], slug: str, platform: str, ids: list[str]) -> list[str]:
    """Posts of the profile published now as the platform's `ids`, their first read due now."""
    row = await profile_row(live.engine, live.org_id, slug)
    now = datetime.now(UTC)
    word = marker()[:8]
    clones = [
        template
        | {
            "id": f"pst_v{word}{n:05d}",
            "profile_id": row.id,
            "profile_slug": slug,
            "connector": platform,
            "status": "published",
            "platform_post_id": pid,
            "published_at": now,
            "delivery_key": f"dk_v{word}{n:05d}",
        }
        for n, pid in enumerate(ids)
    ]
    async with live.engine.begin() as conn:
        await conn.execute(insert(posts), clones)
        await conn.execute(
            insert(post_metric_series),
            [
                {
                    "post_id": c["id"],
                    "org_id": live.org_id,
                    "published_at": now,
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
    return [c["id"] for c in clones]


async def metrics(api: httpx.AsyncClient, live: Live, post_id: str) -> dict[str, Any]:
    response = await api.get(f"/v1/posts/{post_id}/metrics", headers=live.auth)
    assert response.status_code == 200, response.text
    return response.json()


async def read_after(
    api: httpx.AsyncClient, live: Live, post_id: str, since: str | None, within: float = 20
) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while True:
        found = await metrics(api, live, post_id)
        if found["collected_at"] is not None and found["collected_at"] != since:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"no new reading of {post_id} within {within}s: {found}")
        await asyncio.sleep(0.1)


async def refresh(api: httpx.AsyncClient, live: Live, post_id: str) -> None:
    asked = await api.post(f"/v1/posts/{post_id}/metrics/refresh", headers=live.auth)
    assert asked.status_code == 202 and asked.json()["queued"], asked.text


async def series_row(live: Live, post_id: str) -> Any:
    async with live.engine.connect() as conn:
        return (await conn.execute(select(post_metric_series).where(series.post_id == post_id))).one()


def ig_media(fake: FakeInstagram, media_type: str) -> str:
    user = fake.user("herald_fake").id
    media_id = fake._new_id()
    fake.posts[media_id] = GraphPost(media_id, user, "0", media_type, "", [], "sc", f"https://ig/{media_id}")
    return media_id


async def test_each_platforms_metrics_are_what_it_served(api, live, slugs, template, fakes, live_worker) -> None:
    tiktok: FakeTikTok = fakes["tiktok"]
    youtube: FakeYouTube = fakes["youtube"]
    linkedin: FakeLinkedIn = fakes["linkedin"]
    instagram: FakeInstagram = fakes["instagram"]
    (video,) = tiktok.seed_videos(tiktok.user("herald.fake").open_id, 1)
    tiktok.video_metrics[video] = {"view_count": 5000, "like_count": 300, "comment_count": 21, "share_count": 8}
    (clip,) = youtube.seed_videos(youtube.channel("@heraldfake").id, 1)
    youtube.video_statistics[clip] = {"viewCount": 777, "likeCount": 66, "commentCount": 5}
    youtube.video_analytics[clip] = {"estimatedMinutesWatched": 250, "shares": 7}
    page = (await profile_row(live.engine, live.org_id, slugs["linkedin"])).platform_account_id
    (share,) = linkedin.seed_posts(page, 1)
    linkedin.share_statistics[share] = {
        "impressionCount": 2400,
        "uniqueImpressionsCount": 1900,
        "clickCount": 70,
        "likeCount": 51,
        "commentCount": 4,
        "shareCount": 2,
    }
    reel = ig_media(instagram, "REELS")
    instagram.insights[reel] = {
        "views": 9100,
        "reach": 8000,
        "likes": 410,
        "comments": 33,
        "saved": 12,
        "shares": 9,
        "ig_reels_video_view_total_time": 4_321_000,
    }
    expected = {
        "tiktok": {"video_views": 5000, "likes": 300, "replies": 21, "shares": 8},
        "youtube": {"video_views": 777, "likes": 66, "replies": 5, "watch_time_seconds": 15_000, "shares": 7},
        "linkedin": {"impressions": 2400, "reach": 1900, "link_clicks": 70, "likes": 51, "replies": 4, "reposts": 2},
        "instagram": {
            "impressions": 9100,
            "reach": 8000,
            "likes": 410,
            "replies": 33,
            "bookmarks": 12,
            "shares": 9,
            "watch_time_seconds": 4321,
        },
    }
    objects = {"tiktok": video, "youtube": clip, "linkedin": share, "instagram": reel}
    for platform in PLATFORMS:
        (post_id,) = await published(live, template, slugs[platform], platform, [objects[platform]])
        read = await read_after(api, live, post_id, None)
        assert read["source"] == "platform" and read["metrics"] == expected[platform], platform
        assert objects[platform] in (await series_row(live, post_id)).raw


async def test_a_batch_goes_in_the_platforms_sizes(api, live, slugs, template, fakes, live_worker) -> None:
    """45 TikTok videos due at once: calls of 20, 20 and 5; every post read once, as served."""
    tiktok: FakeTikTok = fakes["tiktok"]
    ids = tiktok.seed_videos(tiktok.user("herald.fake").open_id, 45)
    for n, video in enumerate(ids):
        tiktok.video_metrics[video] = {"like_count": n}
    since = time.time()
    post_ids = await published(live, template, slugs["tiktok"], "tiktok", ids)
    deadline = time.monotonic() + 30
    while True:
        async with live.engine.connect() as conn:
            mine = select(series.id).where(series.post_id.in_(post_ids))
            done = await conn.scalar(
                select(func.count(func.distinct(snapshots.series_id))).where(snapshots.series_id.in_(mine))
            )
            likes = await conn.scalar(select(func.sum(snapshots.likes)).where(snapshots.series_id.in_(mine)))
        if done == 45:
            break
        assert time.monotonic() < deadline, f"{done} of 45 read"
        await asyncio.sleep(0.2)
    assert likes == sum(range(45))
    calls = [r for r in tiktok.seen("POST", "/v2/video/query/") if r.at >= since and r.status == 200]
    sizes = sorted(
        (len(c.json["filters"]["video_ids"]) for c in calls if set(c.json["filters"]["video_ids"]) <= set(ids)),
        reverse=True,
    )
    assert sizes == [20, 20, 5], sizes


async def test_a_429_waits_for_retry_after(api, live, slugs, template, fakes, live_worker) -> None:
    tiktok: FakeTikTok = fakes["tiktok"]
    (video,) = tiktok.seed_videos(tiktok.user("herald.fake").open_id, 1)
    (post_id,) = await published(live, template, slugs["tiktok"], "tiktok", [video])
    first = await read_after(api, live, post_id, None)
    tiktok.video_metrics[video] = {"like_count": 5}
    tiktok.fail(
        "POST",
        "/v2/video/query/",
        429,
        error_body("rate_limit_exceeded", "The API rate limit was exceeded."),
        {"Retry-After": "2"},
        body_contains=video,
    )
    asked_at = time.time()
    await refresh(api, live, post_id)
    read = await read_after(api, live, post_id, first["collected_at"])
    assert read["metrics"]["likes"] == 5
    calls = [r for r in tiktok.seen("POST", "/v2/video/query/", body_contains=video) if r.at >= asked_at]
    assert [c.status for c in calls][:2] == [429, 200]
    assert calls[1].at - calls[0].at >= 1.9
    row = await series_row(live, post_id)
    assert row.failures == 0 and row.last_error == ""


async def test_an_expired_token_is_refreshed_and_the_read_goes_on(
    api, live, slugs, template, fakes, live_worker
) -> None:
    tiktok: FakeTikTok = fakes["tiktok"]
    user = tiktok.user("herald.fake").open_id
    (video,) = tiktok.seed_videos(user, 1)
    (post_id,) = await published(live, template, slugs["tiktok"], "tiktok", [video])
    first = await read_after(api, live, post_id, None)
    refreshes = tiktok.grant_count("refresh_token", user)
    tiktok.expire_access_tokens(user)
    tiktok.video_metrics[video] = {"like_count": 9}
    await refresh(api, live, post_id)
    read = await read_after(api, live, post_id, first["collected_at"])
    assert read["metrics"]["likes"] == 9
    assert tiktok.grant_count("refresh_token", user) == refreshes + 1


async def test_a_missing_permission_marks_the_profile(api, live, slugs, template, fakes, live_worker) -> None:
    """Instagram's insights refused for want of instagram_business_manage_insights: the profile
    says what to grant; connecting the account again clears it."""
    instagram: FakeInstagram = fakes["instagram"]
    user = instagram.user("herald_fake").id
    reel = ig_media(instagram, "REELS")
    for grant in instagram.access_tokens.values():
        if grant.subject == user:
            grant.scopes = tuple(s for s in grant.scopes if s != "instagram_business_manage_insights")
    (post_id,) = await published(live, template, slugs["instagram"], "instagram", [reel])
    deadline = time.monotonic() + 20
    while (await profile(api, live.auth, slugs["instagram"]))["connection"]["metrics_error"] is None:
        assert time.monotonic() < deadline, "the profile was never marked"
        await asyncio.sleep(0.1)
    error = (await profile(api, live.auth, slugs["instagram"]))["connection"]["metrics_error"]
    assert "granting instagram_business_manage_insights" in error and "403" in error
    row = await series_row(live, post_id)
    assert row.failures == 0 and "instagram_business_manage_insights" in row.last_error
    async with httpx.AsyncClient(base_url=live.stack.base_url, timeout=30) as client:
        again = await connect(client, live.auth, platform="instagram")
    assert again.slug == slugs["instagram"]
    assert (await profile(api, live.auth, slugs["instagram"]))["connection"]["metrics_error"] is None


async def test_youtube_without_the_analytics_scope_is_read_without_watch_time(
    api, live, slugs, template, fakes, live_worker
) -> None:
    """A YouTube account whose token lacks yt-analytics.readonly: its statistics are read and
    recorded, watch time and shares are absent, the profile names them and the scope to grant,
    and its reads go on (a refresh reads it again); connecting again clears the mark."""
    youtube: FakeYouTube = fakes["youtube"]
    channel = youtube.channel("@heraldfake").id
    (clip,) = youtube.seed_videos(channel, 1)
    youtube.video_statistics[clip] = {"viewCount": 50, "likeCount": 6, "commentCount": 1}
    youtube.video_analytics[clip] = {"estimatedMinutesWatched": 9, "shares": 2}
    for grant in youtube.access_tokens.values():
        if grant.subject == channel:
            grant.scopes = tuple(s for s in grant.scopes if "yt-analytics" not in s)
    (post_id,) = await published(live, template, slugs["youtube"], "youtube", [clip])
    first = await read_after(api, live, post_id, None)
    assert first["metrics"] == {"video_views": 50, "likes": 6, "replies": 1}
    deadline = time.monotonic() + 20
    while (connection := (await profile(api, live.auth, slugs["youtube"]))["connection"])["metrics_error"] is None:
        assert time.monotonic() < deadline, "the profile was never marked"
        await asyncio.sleep(0.1)
    assert connection["metrics_unavailable"] == ["watch_time_seconds", "shares"]
    assert "403" in connection["metrics_error"]
    assert "granting https://www.googleapis.com/auth/yt-analytics.readonly" in connection["metrics_error"]
    youtube.video_statistics[clip] = {"viewCount": 60, "likeCount": 6, "commentCount": 1}
    await refresh(api, live, post_id)
    again = await read_after(api, live, post_id, first["collected_at"])
    assert again["metrics"] == {"video_views": 60, "likes": 6, "replies": 1}
    row = await series_row(live, post_id)
    assert row.failures == 0 and row.last_error == "" and "analytics_error" in row.raw
    async with httpx.AsyncClient(base_url=live.stack.base_url, timeout=30) as client:
        assert (await connect(client, live.auth, platform="youtube")).slug == slugs["youtube"]
    connection = (await profile(api, live.auth, slugs["youtube"]))["connection"]
    assert connection["metrics_error"] is None and connection["metrics_unavailable"] == []
    youtube.video_statistics[clip] = {"viewCount": 70, "likeCount": 6, "commentCount": 1}
    since, deadline = again["collected_at"], time.monotonic() + 20
    while True:  # a read under way with the old token may land first
        await api.post(f"/v1/posts/{post_id}/metrics/refresh", headers=live.auth)
        third = await read_after(api, live, post_id, since)
        if "watch_time_seconds" in third["metrics"]:
            break
        assert time.monotonic() < deadline, third
        since = third["collected_at"]
    assert third["metrics"] == {"video_views": 70, "likes": 6, "replies": 1, "watch_time_seconds": 540, "shares": 2}


async def test_a_deleted_video_ends_its_series(api, live, slugs, template, fakes, live_worker) -> None:
    youtube: FakeYouTube = fakes["youtube"]
    (clip,) = youtube.seed_videos(youtube.channel("@heraldfake").id, 1)
    youtube.video_statistics[clip] = {"likeCount": 4}
    (post_id,) = await published(live, template, slugs["youtube"], "youtube", [clip])
    first = await read_after(api, live, post_id, None)
    assert first["metrics"]["likes"] == 4
    youtube.delete_video(clip)
    await refresh(api, live, post_id)
    deadline = time.monotonic() + 20
    while (row := await series_row(live, post_id)).gone_at is None:
        assert time.monotonic() < deadline, "the video was never found gone"
        await asyncio.sleep(0.1)
    assert row.due_at is None
    shown = await metrics(api, live, post_id)
    assert shown["metrics"]["likes"] == 4 and shown["next_read_at"] is None


async def test_followers_are_read_live_once_per_profile(api, live, slugs, fakes, live_worker) -> None:
    """Each profile's followers as its platform served them, `sandbox` false."""
    tiktok, youtube, linkedin, instagram = (fakes[p] for p in PLATFORMS)
    tiktok.followers[tiktok.user("herald.fake").open_id] = 3001
    youtube.subscribers[youtube.channel("@heraldfake").id] = 3002
    page = (await profile_row(live.engine, live.org_id, slugs["linkedin"])).platform_account_id
    linkedin.page_followers[page] = 3003
    instagram.followers[instagram.user("herald_fake").id] = 3004
    expected = {"tiktok": 3001, "youtube": 3002, "linkedin": 3003, "instagram": 3004}
    ids = {p: (await profile_row(live.engine, live.org_id, slugs[p])).id for p in PLATFORMS}
    async with live.engine.begin() as conn:  # read now, with the numbers just set
        await conn.execute(
            update(account_metric_series)
            .where(account_metric_series.c.profile_id.in_(list(ids.values())))
            .values(due_at=datetime.now(UTC), lease_owner=None)
        )
    deadline = time.monotonic() + 30
    while True:
        async with live.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(account_metric_snapshots).where(
                        account_metric_snapshots.c.profile_id.in_(list(ids.values()))
                    )
                )
            ).all()
        got = {p: max((r.followers for r in rows if r.profile_id == pid), default=None) for p, pid in ids.items()}
        if got == expected:
            break
        assert time.monotonic() < deadline, got
        await asyncio.sleep(0.2)
    assert not any(r.sandbox for r in rows)
    assert tiktok.seen("GET", "/v2/user/info/")[-1].query["fields"] == "open_id,follower_count"


async def test_a_429_on_followers_waits_for_retry_after_and_counts_no_failure(
    api, live, slugs, fakes, live_worker
) -> None:
    """TikTok refuses the followers read 429 with Retry-After 2: read again 2 s later, not after
    a failure's minute, and the profile's series counts no failure."""
    tiktok: FakeTikTok = fakes["tiktok"]
    tiktok.followers[tiktok.user("herald.fake").open_id] = 4100
    profile_id = (await profile_row(live.engine, live.org_id, slugs["tiktok"])).id
    tiktok.fail(
        "GET",
        "/v2/user/info/",
        429,
        error_body("rate_limit_exceeded", "The API rate limit was exceeded."),
        {"Retry-After": "2"},
    )
    asked_at = time.time()
    async with live.engine.begin() as conn:
        await conn.execute(
            update(account_metric_series)
            .where(account_metric_series.c.profile_id == profile_id)
            .values(due_at=datetime.now(UTC), lease_owner=None)
        )
    deadline = time.monotonic() + 30
    while True:
        async with live.engine.connect() as conn:
            followers = await conn.scalar(
                select(account_metric_snapshots.c.followers)
                .where(account_metric_snapshots.c.profile_id == profile_id)
                .order_by(account_metric_snapshots.c.collected_at.desc())
                .limit(1)
            )
        if followers == 4100:
            break
        assert time.monotonic() < deadline, "the followers were never read again"
        await asyncio.sleep(0.2)
    calls = [r for r in tiktok.seen("GET", "/v2/user/info/") if r.at >= asked_at]
    assert [c.status for c in calls][:2] == [429, 200], [c.status for c in calls]
    assert calls[1].at - calls[0].at >= 1.9  # Retry-After was honoured
    async with live.engine.connect() as conn:
        row = (
            await conn.execute(select(account_metric_series).where(account_metric_series.c.profile_id == profile_id))
        ).one()
    assert row.failures == 0 and row.last_error == ""
    assert row.due_at > datetime.now(UTC) + timedelta(hours=23)  # the next read a day after this one
