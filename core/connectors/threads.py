"""Threads (graph.threads.net/v1.0): create a container, then publish it (PLATFORMS.md, Threads)."""

from __future__ import annotations

from typing import Any

from core.connectors.base import Connector, ErrorClass, OutgoingMedia, OutgoingPost, PlatformRequest
from core.connectors.common import CREATION_ID, FORM, graph_classify, media_ref, pending_media, user_id

API = "https://graph.threads.net/v1.0"


class ThreadsConnector(Connector):
    """Threads fetches media itself from public URLs, so nothing is uploaded. A carousel's item
    containers (`is_carousel_item`) are its media requests, and their ids are the `children` of
    the CAROUSEL container."""

    key = "threads"
    web_host = "www.threads.net"

    def media_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        if len(post.media) < 2:
            return []
        return [
            PlatformRequest(
                "POST",
                f"{API}/{user_id(post)}/threads",
                dict(FORM),
                form=_media_fields(media) | {"is_carousel_item": "true"},
                note=f"answers id, which is {media_ref(media)}",
            )
            for media in pending_media(post)
        ]

    def publish_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        user = user_id(post)
        if not post.media:
            form: dict[str, str] = {"media_type": "TEXT", "text": post.content}
        elif len(post.media) == 1:
            form = _media_fields(post.media[0])
        else:
            form = {"media_type": "CAROUSEL", "children": ",".join(media_ref(m) for m in post.media)}
        if post.media and post.content:
            form["text"] = post.content
        requests = [
            PlatformRequest(
                "POST", f"{API}/{user}/threads", dict(FORM), form=form, note=f"answers id, which is {CREATION_ID}"
            )
        ]
        if post.media:
            requests.append(
                PlatformRequest(
                    "GET",
                    f"{API}/{CREATION_ID}?fields=status,error_message",
                    note="repeat once a minute, up to 5 minutes, until status is FINISHED",
                )
            )
        requests.append(PlatformRequest("POST", f"{API}/{user}/threads_publish?creation_id={CREATION_ID}"))
        return requests

    def classify(self, status: int, body: Any) -> ErrorClass:
        return graph_classify(status, body)


def _media_fields(media: OutgoingMedia) -> dict[str, str]:
    if media.kind == "video":
        fields = {"media_type": "VIDEO", "video_url": media.url}
    else:
        fields = {"media_type": "IMAGE", "image_url": media.url}
    if media.alt_text:
        fields["alt_text"] = media.alt_text
    return fields
