"""Video metrics and followers on the fake TikTok, as its Display API documents them
(developers.tiktok.com: tiktok-api-v2-video-query, tiktok-api-v2-get-user-info).

`POST /v2/video/query/?fields=id,view_count,…` with `{"filters": {"video_ids": [...]}}` (1 to
20) needs `video.list` (else 401 `scope_not_authorized`) and answers `{"data": {"videos":
[...], "cursor", "has_more"}, "error"}` with each of the caller's public videos asked for, the
fields asked; a video that is not there (deleted, private, another creator's) is left out. The
numbers are a test's (`video_metrics`), zeros otherwise. Calls are limited per token's user
(`metrics_limit`, TikTok's 600 a minute), 429 `rate_limit_exceeded` over it.

`GET /v2/user/info/?fields=follower_count` (needs `user.info.stats`) gives `followers`, a test's."""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.metrics_limits import MetricsLimit

VIDEO_FIELDS = (
    "id",
    "create_time",
    "title",
    "video_description",
    "duration",
    "share_url",
    "view_count",
    "like_count",
    "comment_count",
    "share_count",
)
MAX_IDS = 20


class TikTokVideoQuery:
    """FakeTikTok's video query and follower counts (see the module docstring)."""

    publishes: dict[str, Any]
    users: dict[str, Any]
    lock: Any

    def init_metrics(self) -> None:
        self.video_metrics: dict[str, dict[str, int]] = {}
        self.followers: dict[str, int] = {}
        self.seeded: dict[str, tuple[str, float]] = {}  # video id -> (open id, created)
        self.deleted: set[str] = set()
        self.metrics_limit = MetricsLimit(limit=600, window=60)

    def metrics_routes(self) -> list[Route]:
        return [("POST", re.compile(r"/v2/video/query/"), self.video_query)]

    def seed_videos(self, open_id: str, count: int) -> list[str]:
        """`count` public videos of the user made at once (a test's many published posts)."""
        with self.lock:
            made = []
            for _ in range(count):
                self._ids += 1  # type: ignore[has-type]
                self.seeded[str(self._ids)] = (open_id, time.time())
                made.append(str(self._ids))
            return made

    def delete_video(self, video_id: str) -> None:
        with self.lock:
            self.deleted.add(str(video_id))

    def _videos_of(self, open_id: str) -> dict[str, float]:
        out = {vid: at for vid, (owner, at) in self.seeded.items() if owner == open_id}
        for publish in self.publishes.values():
            if publish.open_id == open_id and publish.post_id is not None and publish.status == "PUBLISH_COMPLETE":
                out[str(publish.post_id)] = publish.created_at
        return {vid: at for vid, at in out.items() if vid not in self.deleted}

    def video_query(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "video.list")  # type: ignore[attr-defined]
        if isinstance(user, Answer):
            return user
        if not self.metrics_limit.take(user.open_id).allowed:
            return _error(429, "rate_limit_exceeded", "The API rate limit was exceeded. Please try again later.")
        fields = [f for f in request.query.get("fields", "").split(",") if f]
        ids = ((request.json or {}).get("filters") or {}).get("video_ids")
        if not fields or any(f not in VIDEO_FIELDS for f in fields):
            return _error(400, "invalid_params", "Invalid fields.")
        if not isinstance(ids, list) or not 1 <= len(ids) <= MAX_IDS:
            return _error(400, "invalid_params", f"filters.video_ids holds 1 to {MAX_IDS} ids.")
        own = self._videos_of(user.open_id)
        videos = []
        for video_id in dict.fromkeys(str(i) for i in ids):
            if video_id not in own:
                continue
            numbers = self.video_metrics.get(video_id, {})
            values: dict[str, Any] = {
                "id": video_id,
                "create_time": int(own[video_id]),
                "title": "",
                "video_description": "",
                "duration": 10,
                "share_url": f"https://www.tiktok.com/@{user.username}/video/{video_id}",
            } | {name: numbers.get(name, 0) for name in ("view_count", "like_count", "comment_count", "share_count")}
            videos.append({f: values[f] for f in fields if f in values} | {"id": video_id})
        return _ok({"videos": videos, "cursor": 0, "has_more": False})


def _envelope(code: str, message: str) -> dict[str, Any]:
    return {"code": code, "message": message, "log_id": time.strftime("%Y%m%d%H%M%S") + secrets.token_hex(10).upper()}


def _ok(data: dict[str, Any]) -> Answer:
    return answer(200, {"data": data, "error": _envelope("ok", "")})


def _error(status: int, code: str, message: str) -> Answer:
    return answer(status, {"data": {}, "error": _envelope(code, message)})
