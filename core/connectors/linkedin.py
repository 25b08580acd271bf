"""LinkedIn (versioned REST Posts API): images and videos uploaded first, then POST /rest/posts
(PLATFORMS.md, LinkedIn)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from core.connectors.base import Connector, ErrorClass, OutgoingMedia, OutgoingPost, PlatformRequest
from core.connectors.common import (
    JSON,
    media_ref,
    pending_media,
    placeholder,
    raw_body,
    status_class,
    user_id,
)

REST = "https://api.linkedin.com/rest"
# Each monthly version lives about a year, and a sunset one answers 426: 202607 (July 2026)
# rather than 202601, which sunsets on 15 January 2027.
VERSION = "202607"
HEADERS = {**JSON, "LinkedIn-Version": VERSION, "X-Restli-Protocol-Version": "2.0.0"}
# Reserved characters of LinkedIn's "little text" format; unescaped, they silently cut the post.
_RESERVED = re.compile(r"([\\|{}@\[\]()<>#*_~])")


def escape_commentary(text: str) -> str:
    return _RESERVED.sub(r"\\\1", text)


class LinkedInConnector(Connector):
    """Posts as the member `urn:li:person:<platform_user_id>` (or the organization URN when the
    profile's platform id is one). One item goes in `content.media`, several images in
    `content.multiImage`."""

    key = "linkedin"
    web_host = "www.linkedin.com"

    def media_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        owner = _author(post)
        requests: list[PlatformRequest] = []
        for media in pending_media(post):
            if media.kind == "video":
                requests.extend(_video_upload(owner, media))
            else:
                requests.extend(_image_upload(owner, media))
        return requests

    def publish_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        body: dict[str, Any] = {
            "author": _author(post),
            "commentary": escape_commentary(post.content),
            "visibility": "PUBLIC",
            "distribution": {
                "feedDistribution": "MAIN_FEED",
                "targetEntities": [],
                "thirdPartyDistributionChannels": [],
            },
            "lifecycleState": "PUBLISHED",
        }
        if len(post.media) == 1:
            body["content"] = {"media": _content_item(post.media[0])}
        elif post.media:
            body["content"] = {"multiImage": {"images": [_content_item(m) for m in post.media]}}
        return [
            PlatformRequest(
                "POST", f"{REST}/posts", dict(HEADERS), json=body, note="answers 201; the post URN is in x-restli-id"
            )
        ]

    def classify(self, status: int, body: Any) -> ErrorClass:
        # 401: token expired; 422 DUPLICATE_POST and 426 (sunset LinkedIn-Version) are permanent.
        return status_class(status)


def _author(post: OutgoingPost) -> str:
    platform_id = user_id(post)
    return platform_id if platform_id.startswith("urn:li:") else f"urn:li:person:{platform_id}"


def _content_item(media: OutgoingMedia) -> dict[str, str]:
    item = {"id": media_ref(media)}
    if media.alt_text and media.kind != "video":
        item["altText"] = media.alt_text
    return item


def _image_upload(owner: str, media: OutgoingMedia) -> list[PlatformRequest]:
    upload_url = placeholder("upload_url", media)
    return [
        PlatformRequest(
            "POST",
            f"{REST}/images?action=initializeUpload",
            dict(HEADERS),
            json={"initializeUploadRequest": {"owner": owner}},
            note=f"answers value.uploadUrl, which is {upload_url}, and value.image, which is {media_ref(media)}",
        ),
        PlatformRequest("PUT", upload_url, {"Content-Type": media.mime_type}, form=raw_body(media)),
    ]


def _video_upload(owner: str, media: OutgoingMedia) -> list[PlatformRequest]:
    video = media_ref(media)
    return [
        PlatformRequest(
            "POST",
            f"{REST}/videos?action=initializeUpload",
            dict(HEADERS),
            json={
                "initializeUploadRequest": {
                    "owner": owner,
                    "fileSizeBytes": media.size_bytes,
                    "uploadCaptions": False,
                    "uploadThumbnail": False,
                }
            },
            note=f"answers value.video ({video}), value.uploadToken "
            f"({placeholder('upload_token', media)}) and value.uploadInstructions",
        ),
        PlatformRequest(
            "PUT",
            placeholder("upload_url", media),
            {"Content-Type": "application/octet-stream"},
            form=raw_body(media),
            note="one PUT per uploadInstructions entry (its uploadUrl, bytes firstByte..lastByte), in order; "
            f"the answers' ETag headers, in order, are {placeholder('part_ids', media)}",
        ),
        PlatformRequest(
            "POST",
            f"{REST}/videos?action=finalizeUpload",
            dict(HEADERS),
            json={
                "finalizeUploadRequest": {
                    "video": video,
                    "uploadToken": placeholder("upload_token", media),
                    "uploadedPartIds": placeholder("part_ids", media),
                }
            },
        ),
        PlatformRequest(
            "GET",
            f"{REST}/videos/{quote(video, safe='{}')}",
            {k: v for k, v in HEADERS.items() if k != "Content-Type"},
            note="repeat until status is AVAILABLE",
        ),
    ]
