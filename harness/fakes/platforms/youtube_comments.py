"""Comments on the fake YouTube: `commentThreads.insert` and `commentThreads.list` of the Data API
(docs/platforms.md, "YouTube"; developers.google.com/youtube/v3/docs/commentThreads).

`POST /youtube/v3/commentThreads?part=snippet` with `{snippet: {channelId, videoId,
topLevelComment: {snippet: {textOriginal}}}}` needs `youtube.force-ssl` (403
insufficientPermissions otherwise: `youtube.upload` does not cover comments). The video must
exist (404 videoNotFound) and `channelId` be its channel; the text is required and at most
10,000 characters. It answers the thread resource (its top-level comment has the thread's id).
`GET /youtube/v3/commentThreads?part=snippet&videoId=` lists a video's threads newest first
(`maxResults` 1-100, `pageToken`, `nextPageToken` when there are more); `textOriginal` is given
to the comment's author only, as YouTube does.
"""

from __future__ import annotations

import re
import secrets
import string
import time
from dataclasses import dataclass, field
from typing import Any

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.google import google_error

FORCE_SSL_SCOPE = "https://www.googleapis.com/auth/youtube.force-ssl"
READONLY_SCOPE = "https://www.googleapis.com/auth/youtube.readonly"
MANAGE_SCOPE = "https://www.googleapis.com/auth/youtube"
COMMENT_THREADS = "/youtube/v3/commentThreads"
MAX_COMMENT = 10_000


@dataclass
class CommentThread:
    id: str
    video_id: str
    channel_id: str  # the video's channel
    author_channel_id: str
    text: str
    published_at: float = field(default_factory=time.time)


class YouTubeComments:
    """FakeYouTube's comment threads (see the module docstring)."""

    videos: list[Any]
    channels: dict[str, Any]
    lock: Any

    def __init__(self, **kwargs: Any) -> None:
        self.comment_threads: list[CommentThread] = []
        super().__init__(**kwargs)

    def comment_routes(self) -> list[Route]:
        path = re.compile(COMMENT_THREADS)
        return [("POST", path, self.insert_comment_thread), ("GET", path, self.list_comment_threads)]

    def comments_on(self, video_id: str) -> list[CommentThread]:
        """The video's comment threads, oldest first."""
        with self.lock:
            return [t for t in self.comment_threads if t.video_id == video_id]

    def insert_comment_thread(self, request: Request, match: re.Match[str]) -> Answer:
        caller = self._caller(request, FORCE_SSL_SCOPE)
        if isinstance(caller, Answer):
            return caller
        if "snippet" not in request.query.get("part", "").split(","):
            return google_error(400, "badRequest", "The part parameter must name snippet.")
        snippet = (request.json or {}).get("snippet") if isinstance(request.json, dict) else None
        snippet = snippet if isinstance(snippet, dict) else {}
        channel_id, video_id = snippet.get("channelId"), snippet.get("videoId")
        text = ((snippet.get("topLevelComment") or {}).get("snippet") or {}).get("textOriginal")
        if not channel_id or not video_id:
            return google_error(400, "channelOrVideoIdMissing", "The comment thread must name a channel and a video.")
        video = next((v for v in self.videos if v.id == video_id), None)
        if video is None:
            return google_error(
                404, "videoNotFound", "The video identified by the videoId parameter could not be found."
            )
        if channel_id != video.channel_id:
            return google_error(400, "invalidChannelId", "snippet.channelId is not the channel of the video.")
        if not isinstance(text, str) or not text.strip():
            return google_error(400, "commentTextRequired", "The comment resource must contain a snippet.textOriginal.")
        if len(text) > MAX_COMMENT:
            return google_error(400, "commentTextTooLong", "The comment's text is too long.")
        thread = CommentThread("Ugz" + _random(22), video.id, video.channel_id, caller.id, text)
        self.comment_threads.append(thread)
        return answer(200, self._thread_resource(thread, caller.id))

    def list_comment_threads(self, request: Request, match: re.Match[str]) -> Answer:
        caller = self._caller(request, FORCE_SSL_SCOPE, READONLY_SCOPE, MANAGE_SCOPE)
        if isinstance(caller, Answer):
            return caller
        q = request.query
        if "snippet" not in q.get("part", "").split(",") or not q.get("videoId"):
            return google_error(400, "missingRequiredParameter", "part=snippet and videoId are required here.")
        if not any(v.id == q["videoId"] for v in self.videos):
            return google_error(
                404, "videoNotFound", "The video identified by the videoId parameter could not be found."
            )
        size = int(q["maxResults"]) if q.get("maxResults", "").isdigit() else 20
        if not 1 <= size <= 100:
            return google_error(400, "invalidParameter", "maxResults must be between 1 and 100.")
        offset = int(q["pageToken"]) if q.get("pageToken", "").isdigit() else 0
        newest = sorted(self.comments_on(q["videoId"]), key=lambda t: t.published_at, reverse=True)
        page = newest[offset : offset + size]
        body: dict[str, Any] = {
            "kind": "youtube#commentThreadListResponse",
            "pageInfo": {"totalResults": len(page), "resultsPerPage": size},
            "items": [self._thread_resource(t, caller.id) for t in page],
        }
        if offset + size < len(newest):
            body["nextPageToken"] = str(offset + size)
        return answer(200, body)

    def _thread_resource(self, thread: CommentThread, viewer: str) -> dict[str, Any]:
        published = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(thread.published_at))
        author = self.channels[thread.author_channel_id]
        comment: dict[str, Any] = {
            "channelId": thread.channel_id,
            "videoId": thread.video_id,
            "textDisplay": thread.text,
            "authorDisplayName": author.custom_url,
            "authorChannelId": {"value": thread.author_channel_id},
            "canRate": True,
            "viewerRating": "none",
            "likeCount": 0,
            "publishedAt": published,
            "updatedAt": published,
        }
        if viewer == thread.author_channel_id:
            comment["textOriginal"] = thread.text
        top = {"kind": "youtube#comment", "id": thread.id, "snippet": comment}
        snippet = {
            "channelId": thread.channel_id,
            "videoId": thread.video_id,
            "topLevelComment": top,
            "canReply": True,
            "totalReplyCount": 0,
            "isPublic": True,
        }
        return {"kind": "youtube#commentThread", "id": thread.id, "snippet": snippet}


def _random(n: int) -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits + "-_") for _ in range(n))
