"""Threads (graph.threads.net/v1.0): a container, its status, then threads_publish (PLATFORMS.md, Threads)."""

from __future__ import annotations

from core.connectors.base import OutgoingMedia, OutgoingPost
from core.connectors.common import refusal
from core.connectors.graph import GraphConnector

API = "https://graph.threads.net/v1.0"


class ThreadsConnector(GraphConnector):
    """A TEXT, IMAGE or VIDEO container, or a CAROUSEL of item containers, each fetched by
    Threads from the media's URL, then published; the post's URL is its permalink, read once
    it is out (see GraphConnector for the container flow and how a lost publish is told)."""

    key = "threads"
    web_host = "www.threads.net"
    api = API
    create_edge = "threads"
    publish_edge = "threads_publish"
    status_field = "status"
    message_field = "error_message"
    text_field = "text"

    def container_form(self, post: OutgoingPost) -> dict[str, str]:
        if not post.media:
            if not post.content.strip():
                raise refusal("a Threads post needs text or media", "TEXT_REQUIRED")
            return {"media_type": "TEXT", "text": post.content}
        form = self.item_form(post.media[0]) if len(post.media) == 1 else {"media_type": "CAROUSEL"}
        if post.content:
            form["text"] = post.content
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
