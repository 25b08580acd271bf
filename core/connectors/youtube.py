"""YouTube (Data API v3): a resumable upload session carrying the metadata, then the PUT of the
video's bytes (https://developers.google.com/youtube/v3/docs/videos/insert)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from core.connectors import youtube_metrics
from core.connectors.base import (
    Connector,
    Delivery,
    DeliveryError,
    ErrorClass,
    MediaBytes,
    OutgoingMedia,
    OutgoingPost,
    PlatformAPI,
    PlatformRequest,
    PlatformResponse,
    SandboxIds,
)
from core.connectors.common import JSON_UTF8, dig, ok, refusal, required, same_text, status_class
from core.connectors.readings import MetricsItem, MetricsReading

UPLOAD = "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status"
COMMENT_THREADS = "https://www.googleapis.com/youtube/v3/commentThreads"
FORCE_SSL = "https://www.googleapis.com/auth/youtube.force-ssl"  # comments; youtube.upload does not cover them
COMMENT_PAGE = 100  # the newest comment threads read to find a comment whose answer was lost
CATEGORY_PEOPLE_AND_BLOGS = "22"
# Requested as public; YouTube locks uploads from unverified API projects to private whatever
# is asked, so a project must pass Google's audit before these posts become visible.
PRIVACY_STATUS = "public"
MAX_TITLE_CHARS = 100
MAX_DESCRIPTION_BYTES = 5000
# The upload limit is a rolling per-channel cap, so it clears with time like the quota.
RETRYABLE_REASONS = frozenset({"quotaExceeded", "uploadLimitExceeded", "rateLimitExceeded", "userRateLimitExceeded"})
_RANGE = re.compile(r"bytes=(\d+)-(\d+)")


class YouTubeConnector(Connector):
    """The upload is the post: the session is started with the video's metadata, then the PUT of
    its bytes makes the video. The title is the post's `title`, else the content's first line; the
    post's language is `snippet.defaultLanguage`, the language of the title and description.
    The session URI is saved as soon as YouTube gives it, so an attempt after a lost answer asks
    the session how far it got (`Content-Range: bytes */size`): a finished upload answers the
    video, an unfinished one says where to resume, an expired one (no video made) starts over.

    A first comment is a comment thread on the video (`commentThreads.insert`, scope
    youtube.force-ssl, 50 quota units); one whose answer was lost is looked up among the video's
    newest comment threads (one page, 1 unit) by its text and the channel that wrote it."""

    key = "youtube"
    # Metrics (videos.list statistics, 50 ids a call, and YouTube Analytics): docs/analytics.md, "Each platform".
    post_metric_names = ("video_views", "likes", "replies", "watch_time_seconds", "shares")
    metrics_batch_size = 50
    metrics_scopes = ("https://www.googleapis.com/auth/youtube.readonly",)
    first_comment = True
    comment_scopes = (FORCE_SSL,)
    language_field = "snippet.defaultLanguage"

    async def deliver_comment(self, comment: OutgoingPost, api: PlatformAPI) -> Delivery:
        video_id, channel_id = _commented(comment)
        if not comment.content.strip():
            raise refusal("a YouTube comment needs text", "TEXT_REQUIRED")
        top = {"snippet": {"textOriginal": comment.content}}
        thread = {"snippet": {"channelId": channel_id, "videoId": video_id, "topLevelComment": top}}
        request = PlatformRequest(
            "POST", f"{COMMENT_THREADS}?part=snippet", dict(JSON_UTF8), json=thread, creates_post=True
        )
        response = await api.send(request, expect=(200,))
        return _comment(video_id, required(response, "id"))

    async def deliver(self, post: OutgoingPost, api: PlatformAPI) -> Delivery:
        video = _the_video(post)
        offset = 0
        upload_url = api.state.get("upload_url")
        if isinstance(upload_url, str):
            response = await self._session_status(video, upload_url, api)
            if response.status in (200, 201):
                return _uploaded(response)
            if response.status == 308:
                offset = _next_byte(response)
            else:
                upload_url = None
                await api.save(upload_url=None)
        if not isinstance(upload_url, str):
            upload_url = await self._start(post, video, api)
        if offset >= video.size_bytes > 0:
            raise DeliveryError(ErrorClass.RETRYABLE, "YouTube holds every byte but has not answered with the video")
        headers = {"Content-Type": video.mime_type}
        if offset:
            headers["Content-Range"] = f"bytes {offset}-{video.size_bytes - 1}/{video.size_bytes}"
        request = PlatformRequest("PUT", upload_url, headers, content=MediaBytes(video, offset), creates_post=True)
        response = await api.send(request, expect=(200, 201, 308, 404, 410))
        if response.status == 308:  # YouTube kept only part of the bytes: the next attempt resumes
            raise DeliveryError(ErrorClass.RETRYABLE, "YouTube took only part of the upload", status=308)
        if response.status in (404, 410):
            await api.save(upload_url=None)
            raise DeliveryError(ErrorClass.RETRYABLE, "YouTube's upload session expired", status=response.status)
        return _uploaded(response)

    async def reconcile(self, post: OutgoingPost, api: PlatformAPI) -> Delivery | None:
        if post.reply_to is not None:
            return await self._find_comment(post, api)
        upload_url = api.state.get("upload_url")
        if not isinstance(upload_url, str):
            return None  # no session, so no upload that could have made a video
        response = await self._session_status(_the_video(post), upload_url, api)
        if response.status in (200, 201):
            return _uploaded(response)
        if response.status != 308:
            await api.save(upload_url=None)  # the session expired without a video: start over
        return None  # unfinished: `deliver` resumes the same session

    async def post_metrics(self, items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
        return await youtube_metrics.read(items, api)

    def classify(self, status: int, body: Any) -> ErrorClass:
        # Google's errors name a reason in error.errors[].reason; the token endpoint answers
        # {"error": "invalid_grant"} once the refresh token is revoked or expired.
        if status in (408, 429) or status >= 500:
            return ErrorClass.RETRYABLE
        if dig(body, "error") == "invalid_grant":
            return ErrorClass.NEEDS_REAUTH
        errors = dig(body, "error", "errors")
        reasons = [dig(e, "reason") for e in errors] if isinstance(errors, list) else []
        if any(isinstance(r, str) and r in RETRYABLE_REASONS for r in reasons):
            return ErrorClass.RETRYABLE
        return status_class(status)

    def sandbox_answer(self, request: PlatformRequest, ids: SandboxIds) -> PlatformResponse:
        if request.creates_post and request.url.startswith(COMMENT_THREADS):
            return ok(_sandbox_thread(request.json["snippet"], f"Ugz{ids.post}"))
        if request.method == "GET" and request.url.startswith(COMMENT_THREADS):
            return ok({"kind": "youtube#commentThreadListResponse", "pageInfo": {"totalResults": 0}, "items": []})
        if request.creates_post:
            resource = {
                "kind": "youtube#video",
                "id": ids.post,
                "status": {"uploadStatus": "uploaded", "privacyStatus": PRIVACY_STATUS},
            }
            return ok(resource)
        if request.method == "PUT":  # a status query of a session that has received nothing yet
            return ok(None, 308)
        return ok(None, 200, location=f"{UPLOAD}&upload_id=sandbox{ids.new()}")

    async def _find_comment(self, comment: OutgoingPost, api: PlatformAPI) -> Delivery | None:
        """The comment among the video's newest threads; None when the page holds all of them
        and not it (commenting again is safe); UNCERTAIN when it may be further on."""
        video_id, channel_id = _commented(comment)
        query = f"part=snippet&videoId={video_id}&order=time&maxResults={COMMENT_PAGE}&textFormat=plainText"
        try:
            response = await api.send(PlatformRequest("GET", f"{COMMENT_THREADS}?{query}"), expect=(200,))
        except DeliveryError as error:
            if error.error_class is not ErrorClass.PERMANENT:
                raise
            raise DeliveryError(ErrorClass.UNCERTAIN, f"cannot tell whether the comment is out: {error}") from None
        for item in dig(response.body, "items") or []:
            top = dig(item, "snippet", "topLevelComment", "snippet") or {}
            text = top.get("textOriginal") or top.get("textDisplay") or ""
            author = dig(top, "authorChannelId", "value")
            thread_id = dig(item, "id")
            if isinstance(thread_id, str) and author == channel_id and same_text(str(text), comment.content):
                return _comment(video_id, thread_id)
        if dig(response.body, "nextPageToken"):
            raise DeliveryError(
                ErrorClass.UNCERTAIN, "the video has more comments than one page holds; a human must check"
            )
        return None

    async def _start(self, post: OutgoingPost, video: OutgoingMedia, api: PlatformAPI) -> str:
        title = (post.title or post.content.strip().split("\n", 1)[0]).strip()[:MAX_TITLE_CHARS]
        if not title:
            raise refusal("a YouTube video needs a title", "TITLE_REQUIRED")
        if any(c in title + post.content for c in "<>"):
            raise refusal("YouTube titles and descriptions may not contain < or >")
        if len(post.content.encode()) > MAX_DESCRIPTION_BYTES:
            raise refusal(f"a YouTube description is at most {MAX_DESCRIPTION_BYTES} UTF-8 bytes")
        snippet = {"title": title, "description": post.content, "categoryId": CATEGORY_PEOPLE_AND_BLOGS}
        if post.language:
            snippet["defaultLanguage"] = post.language
        metadata = {
            "snippet": snippet,
            "status": {"privacyStatus": PRIVACY_STATUS, "selfDeclaredMadeForKids": False},
        }
        headers = {
            **JSON_UTF8,
            "X-Upload-Content-Length": str(video.size_bytes),
            "X-Upload-Content-Type": video.mime_type,
        }
        response = await api.send(PlatformRequest("POST", UPLOAD, headers, json=metadata), expect=(200,))
        upload_url = response.header("location")
        if not upload_url:
            raise DeliveryError(ErrorClass.RETRYABLE, "YouTube started no upload session (no Location)")
        await api.save(upload_url=upload_url)
        return upload_url

    async def _session_status(self, video: OutgoingMedia, upload_url: str, api: PlatformAPI) -> PlatformResponse:
        """How far the session got: 200/201 with the video, 308 unfinished, 404/410 expired."""
        request = PlatformRequest(
            "PUT", upload_url, {"Content-Length": "0", "Content-Range": f"bytes */{video.size_bytes}"}
        )
        return await api.send(request, expect=(200, 201, 308, 404, 410))


def _the_video(post: OutgoingPost) -> OutgoingMedia:
    if len(post.media) != 1 or post.media[0].kind != "video":
        raise refusal("a YouTube post is exactly one video", "MEDIA_REQUIRED")
    return post.media[0]


def _commented(comment: OutgoingPost) -> tuple[str, str]:
    """The video a first comment goes on (the main post) and the channel it is on (the account's)."""
    if comment.reply_to is None or not comment.reply_to.root.platform_post_id:
        raise refusal("a first comment needs the YouTube video it comments on", "NO_PARENT")
    if not comment.account.platform_user_id:
        raise refusal("the YouTube profile has no channel id; connect it again", "PROFILE_INCOMPLETE")
    return comment.reply_to.root.platform_post_id, comment.account.platform_user_id


def _comment(video_id: str, thread_id: str) -> Delivery:
    return Delivery(thread_id, f"https://www.youtube.com/watch?v={video_id}&lc={thread_id}")


def _sandbox_thread(snippet: dict[str, Any], thread_id: str) -> dict[str, Any]:
    """commentThreads.insert's answer: the thread, its top-level comment with the same id."""
    text = dig(snippet, "topLevelComment", "snippet", "textOriginal") or ""
    comment = {
        "kind": "youtube#comment",
        "id": thread_id,
        "snippet": {
            "channelId": snippet.get("channelId"),
            "videoId": snippet.get("videoId"),
            "textDisplay": text,
            "textOriginal": text,
            "authorChannelId": {"value": snippet.get("channelId")},
            "canRate": True,
            "viewerRating": "none",
            "likeCount": 0,
        },
    }
    thread_snippet = {
        "channelId": snippet.get("channelId"),
        "videoId": snippet.get("videoId"),
        "topLevelComment": comment,
        "canReply": True,
        "totalReplyCount": 0,
        "isPublic": True,
    }
    return {"kind": "youtube#commentThread", "id": thread_id, "snippet": thread_snippet}


def _next_byte(response: PlatformResponse) -> int:
    """The first byte YouTube still needs: after the `Range: bytes=0-N` it holds (0 without one)."""
    found = _RANGE.search(response.header("range") or "")
    return int(found.group(2)) + 1 if found else 0


def _uploaded(response: PlatformResponse) -> Delivery:
    status = dig(response.body, "status", "uploadStatus")
    if status in ("failed", "rejected"):
        reason = dig(response.body, "status", "failureReason") or dig(response.body, "status", "rejectionReason")
        raise DeliveryError(ErrorClass.PERMANENT, f"YouTube {status} the upload: {reason or 'no reason given'}")
    video_id = required(response, "id")
    return Delivery(video_id, f"https://www.youtube.com/watch?v={video_id}")
