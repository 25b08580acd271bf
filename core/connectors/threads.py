"""Threads (graph.threads.net/v1.0): a container, its status, then threads_publish (docs/platforms.md,
"Threads")."""

from __future__ import annotations

from collections.abc import Sequence

from core.connectors import threads_metrics
from core.connectors.base import Delivery, DeliveryError, ErrorClass, OutgoingMedia, OutgoingPost, PlatformAPI
from core.connectors.common import refusal
from core.connectors.graph import GraphConnector
from core.connectors.readings import MetricsItem, MetricsReading

API = "https://graph.threads.net/v1.0"
MANAGE_REPLIES = "threads_manage_replies"


class ThreadsConnector(GraphConnector):
    """A TEXT, IMAGE or VIDEO container, or a CAROUSEL of item containers, each fetched by
    Threads from the media's URL, then published; the post's URL is its permalink, read once
    it is out (see GraphConnector for the container flow and how a lost publish is told).

    A thread item or a first comment is a container with `reply_to_id` (the post it answers),
    published like any post; replying needs `threads_manage_replies`. Threads lists replies only
    with `threads_read_replies`, which Herald does not ask for: a reply whose publish answer was
    lost after its container was PUBLISHED cannot be looked up (UNCERTAIN); one whose container
    is not published yet is published again safely, as a post is."""

    key = "threads"
    # Metrics (a media object's insights, one a call): docs/analytics.md, "Each platform".
    post_metric_names = ("impressions", "likes", "replies", "reposts", "quotes", "shares")
    metrics_batch_size = 1
    metrics_scopes = ("threads_manage_insights",)
    web_host = "www.threads.net"
    api = API
    create_edge = "threads"
    publish_edge = "threads_publish"
    status_field = "status"
    message_field = "error_message"
    text_field = "text"
    threads = True
    first_comment = True  # a self-reply to the last thread item
    reply_scopes = (MANAGE_REPLIES,)
    comment_scopes = (MANAGE_REPLIES,)

    async def post_metrics(self, items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
        return await threads_metrics.read(items, api)

    def container_form(self, post: OutgoingPost) -> dict[str, str]:
        if not post.media:
            if not post.content.strip():
                raise refusal("a Threads post needs text or media", "TEXT_REQUIRED")
            form = {"media_type": "TEXT", "text": post.content}
        else:
            form = self.item_form(post.media[0]) if len(post.media) == 1 else {"media_type": "CAROUSEL"}
            if post.content:
                form["text"] = post.content
        if post.reply_to is not None:
            form["reply_to_id"] = post.reply_to.parent.platform_post_id
        return form

    def item_form(self, media: OutgoingMedia) -> dict[str, str]:
        if media.kind == "video":
            form = {"media_type": "VIDEO", "video_url": media.url}
        else:
            form = {"media_type": "IMAGE", "image_url": media.url}
        if media.alt_text:
            form["alt_text"] = media.alt_text
        return form

    def fallback_url(self, post: OutgoingPost, post_id: str) -> str:
        # Threads links posts by a shortcode the id does not give: the profile is the next best.
        handle = post.account.handle.lstrip("@")
        return f"https://{self.web_host}/@{handle}" if handle else f"https://{self.web_host}/"

    async def _find(self, post: OutgoingPost, api: PlatformAPI) -> Delivery:
        if post.reply_to is None:
            return await super()._find(post, api)
        raise DeliveryError(
            ErrorClass.UNCERTAIN,
            "Threads published the reply's container, and lists replies only with threads_read_replies, "
            "which Herald does not ask for; a human must check the thread",
        )
