"""Instagram (Graph API, Facebook Login host): create a media container, then publish it
(PLATFORMS.md, Instagram)."""

from __future__ import annotations

from typing import Any, Literal

from core.connectors.base import Connector, ErrorClass, OutgoingMedia, OutgoingPost, PlatformRequest
from core.connectors.common import (
    CREATION_ID,
    FORM,
    graph_classify,
    media_ref,
    pending_media,
    refusal,
    user_id,
)

API = "https://graph.facebook.com/v25.0"
# (code, subcode) pairs that clear with time: the daily publishing limit, a container not ready.
RETRYABLE = frozenset({(9, 2207042), (9007, 2207027)})

Shape = Literal["image", "reel", "story", "carousel"]


class InstagramConnector(Connector):
    """Instagram fetches media itself from public URLs. `post_type` picks the shape: `story`
    (STORIES, one item, no caption), `reel` (REELS, one video); otherwise one image is a feed
    post, one video a reel (Instagram publishes every feed video as a reel), and several items a
    carousel whose item containers are the media requests. There are no text-only posts."""

    key = "instagram"
    web_host = "www.instagram.com"

    def media_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        if _shape(post) != "carousel":
            return []
        return [
            PlatformRequest(
                "POST",
                f"{API}/{user_id(post)}/media",
                dict(FORM),
                form=_item_fields(media) | {"is_carousel_item": "true"},
                note=f"answers id, which is {media_ref(media)}",
            )
            for media in pending_media(post)
        ]

    def publish_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        shape = _shape(post)
        user = user_id(post)
        if shape == "carousel":
            form = {"media_type": "CAROUSEL", "children": ",".join(media_ref(m) for m in post.media)}
        elif shape == "story":
            media = post.media[0]
            form = {"media_type": "STORIES", _url_field(media): media.url}
        elif shape == "reel":
            form = {"media_type": "REELS", "video_url": post.media[0].url}
        else:
            form = _item_fields(post.media[0])
        if post.content and shape != "story":
            form["caption"] = post.content
        return [
            PlatformRequest(
                "POST", f"{API}/{user}/media", dict(FORM), form=form, note=f"answers id, which is {CREATION_ID}"
            ),
            PlatformRequest(
                "GET", f"{API}/{CREATION_ID}?fields=status_code", note="repeat until status_code is FINISHED"
            ),
            PlatformRequest("POST", f"{API}/{user}/media_publish?creation_id={CREATION_ID}"),
        ]

    def classify(self, status: int, body: Any) -> ErrorClass:
        return graph_classify(status, body, RETRYABLE)


def _shape(post: OutgoingPost) -> Shape:
    if not post.media:
        raise refusal("Instagram has no text-only posts", "MEDIA_REQUIRED")
    if post.post_type in ("story", "reel"):
        if len(post.media) != 1:
            raise refusal(f"an Instagram {post.post_type} holds exactly one item", "MEDIA_COUNT")
        if post.post_type == "reel" and post.media[0].kind != "video":
            raise refusal("an Instagram reel is a video", "MEDIA_KIND")
        return "story" if post.post_type == "story" else "reel"
    if len(post.media) > 1:
        return "carousel"
    return "reel" if post.media[0].kind == "video" else "image"


def _url_field(media: OutgoingMedia) -> str:
    return "video_url" if media.kind == "video" else "image_url"


def _item_fields(media: OutgoingMedia) -> dict[str, str]:
    """A single feed image or a carousel item (carousel videos are media_type VIDEO)."""
    if media.kind == "video":
        return {"media_type": "VIDEO", "video_url": media.url}
    fields = {"image_url": media.url}
    if media.alt_text:
        fields["alt_text"] = media.alt_text
    return fields
