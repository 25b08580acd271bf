"""Instagram (Instagram Login, graph.instagram.com): a media container, its status, then
media_publish (PLATFORMS.md, Instagram)."""

from __future__ import annotations

from typing import Literal

from core.connectors.base import OutgoingMedia, OutgoingPost
from core.connectors.common import refusal
from core.connectors.graph import GraphConnector

API = "https://graph.instagram.com/v25.0"
# (code, subcode) pairs that clear with time: the daily publishing limit, a container not ready.
RETRYABLE = frozenset({(9, 2207042), (9007, 2207027)})
MAX_CAROUSEL = 10

Shape = Literal["image", "reel", "story", "carousel"]


class InstagramConnector(GraphConnector):
    """Instagram fetches media itself from the media's URL. `post_type` picks the shape: `story`
    (STORIES, one item, no caption), `reel` (REELS, one video); otherwise one image is a feed
    post, one video a reel (Instagram publishes every feed video as a reel), and 2-10 items a
    carousel. There are no text-only posts. The container flow and how a lost publish is told
    are GraphConnector's; a story is not among the account's listed media, so a story whose
    publish answer was lost stays uncertain."""

    key = "instagram"
    web_host = "www.instagram.com"
    api = API
    create_edge = "media"
    publish_edge = "media_publish"
    status_field = "status_code"
    message_field = "status"
    text_field = "caption"
    retryable = RETRYABLE

    def container_form(self, post: OutgoingPost) -> dict[str, str]:
        shape = _shape(post)
        media = post.media[0]
        if shape == "carousel":
            form = {"media_type": "CAROUSEL"}
        elif shape == "story":
            form = {"media_type": "STORIES", _url_field(media): media.url}
        elif shape == "reel":
            form = {"media_type": "REELS", "video_url": media.url}
        else:
            form = self.item_form(media)
        if post.content and shape != "story":
            form["caption"] = post.content
        return form

    def item_form(self, media: OutgoingMedia) -> dict[str, str]:
        """A feed image or a carousel item (carousel videos are media_type VIDEO)."""
        if media.kind == "video":
            return {"media_type": "VIDEO", "video_url": media.url}
        form = {"image_url": media.url}
        if media.alt_text:
            form["alt_text"] = media.alt_text
        return form

    def fallback_url(self, post: OutgoingPost, post_id: str) -> str:
        handle = post.account.handle.lstrip("@")
        return f"https://{self.web_host}/{handle}/" if handle else f"https://{self.web_host}/"


def _shape(post: OutgoingPost) -> Shape:
    if not post.media:
        raise refusal("Instagram has no text-only posts", "MEDIA_REQUIRED")
    if post.post_type in ("story", "reel"):
        if len(post.media) != 1:
            raise refusal(f"an Instagram {post.post_type} holds exactly one item", "MEDIA_COUNT")
        if post.post_type == "reel" and post.media[0].kind != "video":
            raise refusal("an Instagram reel is a video", "MEDIA_KIND")
        return "story" if post.post_type == "story" else "reel"
    if len(post.media) > MAX_CAROUSEL:
        raise refusal(f"an Instagram carousel holds at most {MAX_CAROUSEL} items", "MEDIA_COUNT")
    if len(post.media) > 1:
        return "carousel"
    return "reel" if post.media[0].kind == "video" else "image"


def _url_field(media: OutgoingMedia) -> str:
    return "video_url" if media.kind == "video" else "image_url"
