"""TikTok (Content Posting API, direct post): creator info, then a video or photo init that
TikTok completes by pulling the media from its URL (PLATFORMS.md, TikTok)."""

from __future__ import annotations

from typing import Any

from core.connectors.base import Connector, ErrorClass, OutgoingPost, PlatformRequest
from core.connectors.common import JSON_UTF8, PUBLISH_ID, body_text, dig, refusal, status_class

API = "https://open.tiktokapis.com/v2/post/publish"
# Must be among creator_info's privacy_level_options: an unaudited app is offered SELF_ONLY
# only, and then TikTok refuses this value (privacy_level_option_mismatch) until the audit.
PRIVACY_LEVEL = "PUBLIC_TO_EVERYONE"
REAUTH_CODES = frozenset({"access_token_invalid", "scope_not_authorized"})
RETRYABLE_CODES = frozenset({"rate_limit_exceeded", "spam_risk_too_many_posts"})


class TikTokConnector(Connector):
    """Nothing is uploaded: `source_info` is PULL_FROM_URL (the media URL's domain must be
    verified in the TikTok app settings). `post_type` `photo`, or images only, makes a photo
    post (content/init, media_type PHOTO); anything else posts the video."""

    key = "tiktok"
    web_host = "www.tiktok.com"

    def media_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        return []

    def publish_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        if not post.media:
            raise refusal("a TikTok post needs a video or photos", "MEDIA_REQUIRED")
        creator_info = PlatformRequest(
            "POST",
            f"{API}/creator_info/query/",
            dict(JSON_UTF8),
            note="privacy_level below must be among the answer's privacy_level_options",
        )
        photo = post.post_type == "photo" or all(m.kind == "image" for m in post.media)
        init = _photo_init(post) if photo else _video_init(post)
        status = PlatformRequest(
            "POST",
            f"{API}/status/fetch/",
            dict(JSON_UTF8),
            json={"publish_id": PUBLISH_ID},
            note="repeat until status is PUBLISH_COMPLETE (FAILED carries fail_reason)",
        )
        return [creator_info, init, status]

    def classify(self, status: int, body: Any) -> ErrorClass:
        code = dig(body, "error", "code")
        if not isinstance(code, str):
            text = body_text(body)
            code = next((c for c in REAUTH_CODES | RETRYABLE_CODES if c in text), "")
        if code in REAUTH_CODES:
            return ErrorClass.NEEDS_REAUTH
        if code in RETRYABLE_CODES:
            return ErrorClass.RETRYABLE
        return status_class(status)


def _video_init(post: OutgoingPost) -> PlatformRequest:
    video = next((m for m in post.media if m.kind != "image"), None)
    if video is None or len(post.media) > 1:
        raise refusal("a TikTok video post holds exactly one video", "MEDIA_COUNT")
    body = {
        "post_info": {
            "title": post.content,
            "privacy_level": PRIVACY_LEVEL,
            "disable_duet": False,
            "disable_comment": False,
            "disable_stitch": False,
        },
        "source_info": {"source": "PULL_FROM_URL", "video_url": video.url},
    }
    return PlatformRequest(
        "POST", f"{API}/video/init/", dict(JSON_UTF8), json=body, note=f"answers data.publish_id, which is {PUBLISH_ID}"
    )


def _photo_init(post: OutgoingPost) -> PlatformRequest:
    if any(m.kind != "image" for m in post.media):
        raise refusal("a TikTok photo post holds images only", "MEDIA_KIND")
    # A photo post's title is short (90 characters); the text goes in the description.
    post_info: dict[str, Any] = {"description": post.content, "privacy_level": PRIVACY_LEVEL, "disable_comment": False}
    if post.title:
        post_info = {"title": post.title} | post_info
    body = {
        "post_info": post_info,
        "source_info": {"source": "PULL_FROM_URL", "photo_cover_index": 0, "photo_images": [m.url for m in post.media]},
        "post_mode": "DIRECT_POST",
        "media_type": "PHOTO",
    }
    return PlatformRequest(
        "POST",
        f"{API}/content/init/",
        dict(JSON_UTF8),
        json=body,
        note=f"answers data.publish_id, which is {PUBLISH_ID}",
    )
