"""YouTube (Data API v3): a resumable upload session carrying the metadata, then the PUT of the
video's bytes (PLATFORMS.md, YouTube)."""

from __future__ import annotations

from typing import Any

from core.connectors.base import Connector, ErrorClass, OutgoingPost, PlatformRequest
from core.connectors.common import JSON_UTF8, body_text, placeholder, raw_body, refusal, status_class

UPLOAD = "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status"
CATEGORY_PEOPLE_AND_BLOGS = "22"
# Requested as public; YouTube locks uploads from unverified API projects to private whatever
# is asked, so a project must pass Google's audit before these posts become visible.
PRIVACY_STATUS = "public"
RETRYABLE_REASONS = ("quotaexceeded", "ratelimitexceeded", "userratelimitexceeded", "uploadlimitexceeded")


class YouTubeConnector(Connector):
    """The upload is the post: both requests are publish requests and there is no separate media
    step. The title is the post's `title`, else the content's first line (at most 100 chars)."""

    key = "youtube"
    web_host = "www.youtube.com"

    def media_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        return []

    def publish_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        videos = [m for m in post.media if m.kind == "video"]
        if len(videos) != 1 or len(post.media) != 1:
            raise refusal("a YouTube post is exactly one video", "MEDIA_REQUIRED")
        video = videos[0]
        title = post.title or post.content.strip().split("\n", 1)[0][:100]
        session = placeholder("upload_url", video)
        start = PlatformRequest(
            "POST",
            UPLOAD,
            {**JSON_UTF8, "X-Upload-Content-Length": str(video.size_bytes), "X-Upload-Content-Type": video.mime_type},
            json={
                "snippet": {"title": title, "description": post.content, "categoryId": CATEGORY_PEOPLE_AND_BLOGS},
                "status": {"privacyStatus": PRIVACY_STATUS},
            },
            note=f"answers 200 with the session URI in Location, which is {session}",
        )
        upload = PlatformRequest(
            "PUT",
            session,
            {"Content-Type": video.mime_type, "Content-Length": str(video.size_bytes)},
            form=raw_body(video),
            note="answers 200/201 with the video resource; after an interruption, PUT with "
            f"Content-Range: bytes */{video.size_bytes} and resume from the answer's Range",
        )
        return [start, upload]

    def classify(self, status: int, body: Any) -> ErrorClass:
        # Google's errors name a reason in error.errors[].reason; the token endpoint answers
        # {"error": "invalid_grant"} once the refresh token is revoked or expired. The upload
        # limit is a rolling per-channel cap, so it clears with time like the quota.
        text = body_text(body)
        if "invalid_grant" in text:
            return ErrorClass.NEEDS_REAUTH
        if status in (400, 403) and any(reason in text for reason in RETRYABLE_REASONS):
            return ErrorClass.RETRYABLE
        return status_class(status)
