"""X (API v2): media upload at /2/media/upload, then POST /2/tweets (PLATFORMS.md, X)."""

from __future__ import annotations

from typing import Any

from core.connectors.base import Connector, ErrorClass, OutgoingMedia, OutgoingPost, PlatformRequest
from core.connectors.common import JSON, MULTIPART, media_ref, pending_media, status_class

API = "https://api.x.com/2"
UPLOAD = f"{API}/media/upload"
SEGMENT_BYTES = 5 * 1024 * 1024  # the largest append segment X accepts


class XConnector(Connector):
    """Images go up in one multipart request; videos and GIFs through initialize/append/finalize,
    then a status poll until processing succeeds. Alt text is set with /2/media/metadata."""

    key = "x"
    web_host = "x.com"

    def media_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        requests: list[PlatformRequest] = []
        for media in pending_media(post):
            if media.kind == "image":
                requests.append(
                    PlatformRequest(
                        "POST", UPLOAD, dict(MULTIPART), form={"media": media.url, "media_category": "tweet_image"}
                    )
                )
            else:
                requests.extend(_chunked_upload(media))
            if media.alt_text and media.kind != "video":
                requests.append(
                    PlatformRequest(
                        "POST",
                        f"{API}/media/metadata",
                        dict(JSON),
                        json={"id": media_ref(media), "metadata": {"alt_text": {"text": media.alt_text}}},
                    )
                )
        return requests

    def publish_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        body: dict[str, Any] = {"text": post.content}
        if post.media:
            body["media"] = {"media_ids": [media_ref(m) for m in post.media]}
        return [PlatformRequest("POST", f"{API}/tweets", dict(JSON), json=body)]

    def classify(self, status: int, body: Any) -> ErrorClass:
        # 401 is an expired token; 403 covers the duplicate-content refusal and videos over the
        # account's length cap, which no retry can fix; 429 is throttling.
        return status_class(status)


def _chunked_upload(media: OutgoingMedia) -> list[PlatformRequest]:
    media_id = media_ref(media)
    category = "tweet_gif" if media.kind == "gif" else "tweet_video"
    requests = [
        PlatformRequest(
            "POST",
            f"{UPLOAD}/initialize",
            dict(JSON),
            json={"media_type": media.mime_type, "total_bytes": media.size_bytes, "media_category": category},
            note=f"answers data.id, which is {media_id}",
        )
    ]
    segments = max(1, -(-media.size_bytes // SEGMENT_BYTES))
    for index in range(segments):
        first = index * SEGMENT_BYTES
        last = min(media.size_bytes, first + SEGMENT_BYTES) - 1
        requests.append(
            PlatformRequest(
                "POST",
                f"{UPLOAD}/{media_id}/append",
                dict(MULTIPART),
                form={"media": media.url, "segment_index": index},
                note=f"media holds bytes {first}-{last} of the file",
            )
        )
    requests.append(PlatformRequest("POST", f"{UPLOAD}/{media_id}/finalize"))
    requests.append(
        PlatformRequest(
            "GET",
            f"{UPLOAD}?command=STATUS&media_id={media_id}",
            note="repeat after processing_info.check_after_secs until state is succeeded (failed is final)",
        )
    )
    return requests
