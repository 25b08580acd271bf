"""Video statistics and subscribers on the fake YouTube, as the Data API documents them
(developers.google.com/youtube/v3/docs/videos/list, channels/list).

`GET /youtube/v3/videos?part=statistics&id=a,b,…` (up to 50 ids; a read scope) answers a
`youtube#videoListResponse` whose `items` are the videos found, each with `statistics` whose
counts are strings (`viewCount`, `likeCount`, `favoriteCount`, `commentCount`); an id not found
(deleted) is left out. The numbers are a test's (`video_statistics`), zeros otherwise. Each call
costs one unit of the project's daily quota (`quota`, 10,000 unless a test says): spent, it is
403 `quotaExceeded` (domain youtube.quota).

`channels.list?part=statistics&mine=true` gives the channel's `subscriberCount` (a string;
`subscribers`, a test's, 0 otherwise)."""

from __future__ import annotations

import re
import secrets
from typing import Any

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.google import google_error
from harness.fakes.platforms.metrics_limits import MetricsLimit
from harness.fakes.platforms.youtube_comments import FORCE_SSL_SCOPE, MANAGE_SCOPE, READONLY_SCOPE

MAX_IDS = 50
QUOTA_MESSAGE = (
    "The request cannot be completed because you have exceeded your "
    '<a href="/youtube/v3/getting-started#quota">quota</a>.'
)


class YouTubeStatistics:
    """FakeYouTube's video statistics and subscriber counts (see the module docstring)."""

    videos: list[Any]
    lock: Any

    def init_statistics(self) -> None:
        self.video_statistics: dict[str, dict[str, int]] = {}
        self.subscribers: dict[str, int] = {}
        self.seeded: dict[str, str] = {}  # video id -> channel id
        # Units a day per project; the key is the project (the fake serves one).
        self.quota = MetricsLimit(limit=10_000, window=86_400)

    def statistics_routes(self) -> list[Route]:
        return [("GET", re.compile(r"/youtube/v3/videos"), self.videos_list)]

    def seed_videos(self, channel_id: str, count: int) -> list[str]:
        """`count` videos of the channel made at once (a test's many published posts)."""
        with self.lock:
            made = ["v" + secrets.token_urlsafe(8)[:10] for _ in range(count)]
            self.seeded.update(dict.fromkeys(made, channel_id))
            return made

    def delete_video(self, video_id: str) -> None:
        with self.lock:
            self.videos[:] = [v for v in self.videos if v.id != video_id]
            self.seeded.pop(video_id, None)

    def channel_statistics(self, channel_id: str) -> dict[str, Any]:
        return {
            "viewCount": "0",
            "subscriberCount": str(self.subscribers.get(channel_id, 0)),
            "hiddenSubscriberCount": False,
            "videoCount": str(sum(1 for v in self.videos if v.channel_id == channel_id)),
        }

    def videos_list(self, request: Request, match: re.Match[str]) -> Answer:
        channel = self._caller(request, READONLY_SCOPE, FORCE_SSL_SCOPE, MANAGE_SCOPE)  # type: ignore[attr-defined]
        if isinstance(channel, Answer):
            return channel
        if not self.quota.take("project").allowed:
            return google_error(403, "quotaExceeded", QUOTA_MESSAGE, domain="youtube.quota")
        q = request.query
        parts = [p for p in q.get("part", "").split(",") if p]
        ids = [i for i in q.get("id", "").split(",") if i]
        if not parts or not ids:
            return google_error(400, "missingRequiredParameter", "No filter selected. Expected one of: id, myRating")
        if len(ids) > MAX_IDS:
            return google_error(400, "invalidFilters", f"The id filter takes at most {MAX_IDS} ids.")
        known = {v.id for v in self.videos} | set(self.seeded)
        items = []
        for video_id in dict.fromkeys(ids):
            if video_id not in known:
                continue
            item: dict[str, Any] = {"kind": "youtube#video", "etag": secrets.token_urlsafe(20), "id": video_id}
            if "statistics" in parts:
                numbers = self.video_statistics.get(video_id, {})
                item["statistics"] = {
                    name: str(numbers.get(name, 0))
                    for name in ("viewCount", "likeCount", "favoriteCount", "commentCount")
                }
            items.append(item)
        return answer(
            200,
            {
                "kind": "youtube#videoListResponse",
                "etag": secrets.token_urlsafe(20),
                "items": items,
                "pageInfo": {"totalResults": len(items), "resultsPerPage": len(items)},
            },
        )
