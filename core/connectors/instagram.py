"""Instagram (Instagram Login, graph.instagram.com): a media container, its status, then
media_publish (docs/platforms.md, "Instagram")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from core.connectors import instagram_metrics
from core.connectors.base import (
    Delivery,
    DeliveryError,
    ErrorClass,
    OutgoingMedia,
    OutgoingPost,
    PlatformAPI,
    PlatformRequest,
)
from core.connectors.common import dig, refusal, required, same_text
from core.connectors.graph import GraphConnector, read_lookup
from core.connectors.readings import MetricsItem, MetricsReading

API = "https://graph.instagram.com/v25.0"
MANAGE_COMMENTS = "instagram_business_manage_comments"
COMMENT_PAGE = 50  # comments read per lookup of a comment whose answer was lost
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
    publish answer was lost stays uncertain.

    A first comment goes on the published media (`POST /{ig-media-id}/comments` with `message`,
    which needs `instagram_business_manage_comments`); one whose answer was lost is looked up
    among the media's comments (one page of them) by its text and the account's username."""

    key = "instagram"
    # Metrics (media insights in Graph batches of 50): docs/analytics.md, "Each platform".
    post_metric_names = ("impressions", "reach", "likes", "replies", "bookmarks", "shares", "watch_time_seconds")
    metrics_batch_size = 50
    metrics_scopes = ("instagram_business_manage_insights",)
    web_host = "www.instagram.com"
    api = API
    create_edge = "media"
    publish_edge = "media_publish"
    status_field = "status_code"
    message_field = "status"
    text_field = "caption"
    retryable = RETRYABLE
    first_comment = True
    comment_scopes = (MANAGE_COMMENTS,)

    async def deliver_comment(self, comment: OutgoingPost, api: PlatformAPI) -> Delivery:
        media_id = _commented(comment)
        if not comment.content.strip():
            raise refusal("an Instagram comment needs text", "TEXT_REQUIRED")
        request = PlatformRequest(
            "POST", f"{self.api}/{media_id}/comments", form={"message": comment.content}, creates_post=True
        )
        return self._comment(comment, required(await api.send(request), "id"))

    async def post_metrics(self, items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
        return await instagram_metrics.read(items, api)

    async def reconcile(self, post: OutgoingPost, api: PlatformAPI) -> Delivery | None:
        if post.reply_to is None:
            return await super().reconcile(post, api)
        fields = "id,text,username,timestamp"
        url = f"{self.api}/{_commented(post)}/comments?fields={fields}&limit={COMMENT_PAGE}"
        response = await read_lookup(api, PlatformRequest("GET", url))
        handle = post.account.handle.lstrip("@")
        for item in dig(response.body, "data") or []:
            comment_id, text = dig(item, "id"), dig(item, "text")
            ours = not handle or dig(item, "username") == handle
            if isinstance(comment_id, str | int) and isinstance(text, str) and same_text(text, post.content) and ours:
                return self._comment(post, str(comment_id))
        if dig(response.body, "paging", "next"):
            raise DeliveryError(
                ErrorClass.UNCERTAIN, "the media has more comments than one page holds; a human must check it"
            )
        return None  # not there: commenting again is safe

    def _comment(self, comment: OutgoingPost, comment_id: str) -> Delivery:
        # A comment has no page of its own: its URL is the media's.
        root = comment.reply_to.root if comment.reply_to else None
        return Delivery(comment_id, root.url if root and root.url else self.fallback_url(comment, comment_id))

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


def _commented(comment: OutgoingPost) -> str:
    """The media a first comment goes on: the main post (Instagram has no threads)."""
    if comment.reply_to is None or not comment.reply_to.root.platform_post_id:
        raise refusal("a first comment needs the Instagram media it comments on", "NO_PARENT")
    return comment.reply_to.root.platform_post_id


def _url_field(media: OutgoingMedia) -> str:
    return "video_url" if media.kind == "video" else "image_url"
