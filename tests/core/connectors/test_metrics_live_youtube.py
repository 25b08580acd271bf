"""YouTube's watch time and shares from its Analytics report (docs/analytics.md, "Each
platform"; core/connectors/youtube_analytics.py), run live against the fake YouTube after the
statistics call: the values as the report served them, a video the report has no row for
without either metric (never 0), one report for the batch's videos, an account without
`yt-analytics.readonly` keeping its statistics, and the Analytics API's limit a wait. The workers'
side (the profile's mark, reads going on) runs end to end in tests/e2e/test_live_metrics_video.py."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.connectors.base import DeliveryError, ErrorClass
from core.connectors.readings import MetricsItem
from core.connectors.youtube import YouTubeConnector
from core.connectors.youtube_metrics import PACIFIC
from core.db.types import utcnow
from harness.fakes.platforms.youtube import SCOPES as YOUTUBE_SCOPES
from harness.fakes.platforms.youtube import FakeYouTube
from tests.core.connectors.live_fakes import Runner
from tests.core.connectors.test_metrics_live_video import items, read, youtube, youtube_hosts


async def test_youtube_reads_watch_time_and_shares_from_one_analytics_report() -> None:
    with FakeYouTube() as fake:
        account, token = youtube(fake)
        videos = fake.seed_videos(account.platform_user_id, 50)
        fake.video_statistics[videos[0]] = {"viewCount": 900, "likeCount": 30, "commentCount": 2}
        fake.video_analytics[videos[0]] = {"estimatedMinutesWatched": 1234, "shares": 17}
        fake.video_analytics[videos[1]] = {"estimatedMinutesWatched": 0, "shares": 0}
        fake.delete_video(videos[49])
        wanted = items(account, *videos)
        wanted[3] = MetricsItem("pst_v", 2, videos[3], datetime(2026, 3, 15, 3, 0, tzinfo=UTC), account)
        async with Runner(YouTubeConnector(), token, youtube_hosts(fake)) as run:
            got = await read(run, wanted)
    assert got[0].values == {"video_views": 900, "likes": 30, "replies": 2, "watch_time_seconds": 74_040, "shares": 17}
    assert got[0].raw["analytics"] == {"video": videos[0], "estimatedMinutesWatched": 1234, "shares": 17}
    assert got[1].values["watch_time_seconds"] == 0 and got[1].values["shares"] == 0  # YouTube's zeros
    # No row for a video without data in the range: both absent, never 0.
    assert got[2].values == {"video_views": 0, "likes": 0, "replies": 0} and "analytics" not in got[2].raw
    assert got[49].gone and all(r.refused is None for r in got)
    (call,) = fake.seen("GET", "/v2/reports")
    q = call.query
    # The batch's videos still there in one filter, from the earliest publish date (Pacific).
    assert q["filters"] == "video==" + ",".join(videos[:49])
    assert q["ids"] == "channel==MINE" and q["dimensions"] == "video"
    assert q["metrics"] == "estimatedMinutesWatched,shares"
    assert q["startDate"] == "2026-03-14" and q["endDate"] == utcnow().astimezone(PACIFIC).date().isoformat()
    assert call.bearer == token


async def test_youtube_without_the_analytics_scope_keeps_its_statistics() -> None:
    """An account connected before Herald asked for yt-analytics.readonly: the report is refused
    (403), the statistics stand, and the reading names the two metrics and the scope to grant."""
    with FakeYouTube() as fake:
        account, token = youtube(fake, YOUTUBE_SCOPES[:3])
        (video,) = fake.seed_videos(account.platform_user_id, 1)
        fake.video_statistics[video] = {"viewCount": 40, "likeCount": 4, "commentCount": 1}
        fake.video_analytics[video] = {"estimatedMinutesWatched": 10, "shares": 1}
        async with Runner(YouTubeConnector(), token, youtube_hosts(fake)) as run:
            (got,) = await read(run, items(account, video))
    assert got.values == {"video_views": 40, "likes": 4, "replies": 1} and not got.gone
    assert got.refused is not None and got.refused.metrics == ("watch_time_seconds", "shares")
    assert "403" in str(got.refused) and "granting https://www.googleapis.com/auth/yt-analytics.readonly" in str(
        got.refused
    )
    assert "insufficient" in got.raw["analytics_error"]
    assert [r.status for r in fake.seen("GET", "/v2/reports")] == [403]


async def test_youtube_analytics_limit_is_a_wait() -> None:
    with FakeYouTube() as fake:
        account, token = youtube(fake)
        (video,) = fake.seed_videos(account.platform_user_id, 1)
        fake.analytics_quota.reset_counts(limit=0)
        async with Runner(YouTubeConnector(), token, youtube_hosts(fake)) as run:
            with pytest.raises(DeliveryError) as caught:
                await read(run, items(account, video))
    assert caught.value.status == 429 and caught.value.error_class is ErrorClass.RETRYABLE
