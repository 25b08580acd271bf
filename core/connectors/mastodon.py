"""Mastodon (per instance): POST /api/v2/media per attachment, then POST /api/v1/statuses
(PLATFORMS.md, Mastodon)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from core.connectors.base import Connector, Delivery, ErrorClass, OutgoingPost, PlatformRequest
from core.connectors.common import JSON, MULTIPART, base_url, media_ref, pending_media, status_class

DEFAULT_INSTANCE = "https://mastodon.social"


class MastodonConnector(Connector):
    """Requests go to the profile's own instance (`Account.instance_url`). The status carries
    the delivery key as `Idempotency-Key`: the instance keeps it for an hour, so re-sending an
    attempt whose answer was lost returns the first status instead of posting twice."""

    key = "mastodon"
    web_host = urlsplit(DEFAULT_INSTANCE).netloc

    def media_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        instance = _instance(post)
        requests: list[PlatformRequest] = []
        for media in pending_media(post):
            form = {"file": media.url}
            if media.alt_text:
                form["description"] = media.alt_text
            requests.append(
                PlatformRequest(
                    "POST",
                    f"{instance}/api/v2/media",
                    dict(MULTIPART),
                    form=form,
                    note=f"answers the attachment; its id is {media_ref(media)}. 202 means still processing",
                )
            )
            if media.kind != "image":
                requests.append(
                    PlatformRequest(
                        "GET",
                        f"{instance}/api/v1/media/{media_ref(media)}",
                        note="only after a 202: repeat until 200 (206 while processing)",
                    )
                )
        return requests

    def publish_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        body: dict[str, Any] = {"status": post.content, "visibility": "public"}
        if post.media:
            body["media_ids"] = [media_ref(m) for m in post.media]
        headers = {**JSON, "Idempotency-Key": post.delivery_key}
        return [PlatformRequest("POST", f"{_instance(post)}/api/v1/statuses", headers, json=body)]

    def classify(self, status: int, body: Any) -> ErrorClass:
        # 401: the token was revoked (Mastodon tokens never expire); 422: validation failed.
        return status_class(status)

    def sandbox_delivery(self, post: OutgoingPost) -> Delivery:
        delivery = super().sandbox_delivery(post)
        host = urlsplit(_instance(post)).netloc
        return Delivery(delivery.platform_post_id, delivery.url.replace(f"//{self.web_host}/", f"//{host}/", 1))


def _instance(post: OutgoingPost) -> str:
    return base_url(post.account.instance_url, DEFAULT_INSTANCE)
