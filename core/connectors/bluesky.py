"""Bluesky (AT Protocol): blobs and videos up first, then one app.bsky.feed.post record
(PLATFORMS.md, Bluesky)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

from core.connectors.base import Connector, ErrorClass, OutgoingMedia, OutgoingPost, PlatformRequest
from core.connectors.common import (
    CREATED_AT,
    EXPIRES_AT,
    JSON,
    PLATFORM_USER_ID,
    base_url,
    body_text,
    dig,
    media_ref,
    pending_media,
    placeholder,
    raw_body,
    status_class,
)

DEFAULT_PDS = "https://bsky.social"
VIDEO_SERVICE = "https://video.bsky.app/xrpc"
# The app's own detection: a link starts at the text's start, after whitespace or "(".
_LINK = re.compile(r"(?<![^\s(])https?://\S+")
_TAG = re.compile(r"(?<!\S)#(\w+)")
_TRAILING = ".,;:!?\"'"
_EXTENSIONS = {
    "video/mp4": "mp4",
    "video/quicktime": "mov",
    "video/webm": "webm",
    "video/mpeg": "mpeg",
    "image/gif": "gif",
}


class BlueskyConnector(Connector):
    """Images are uploaded with uploadBlob to the account's PDS; videos (and GIFs, which the app
    posts as video) go through the video service with a service-auth token. The record's
    `createdAt` is the placeholder {created_at}, set when the record is actually sent, so an
    outbox entry stays the same however often it is rebuilt."""

    key = "bluesky"
    web_host = "bsky.app"

    def media_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        pds = _pds(post)
        requests: list[PlatformRequest] = []
        for media in pending_media(post):
            if media.kind == "image":
                requests.append(
                    PlatformRequest(
                        "POST",
                        f"{pds}/xrpc/com.atproto.repo.uploadBlob",
                        {"Content-Type": media.mime_type},
                        form=raw_body(media),
                        note=f"answers blob; its ref.$link is {media_ref(media)}",
                    )
                )
            else:
                requests.extend(_video_upload(post, pds, media))
        return requests

    def publish_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        record: dict[str, Any] = {"$type": "app.bsky.feed.post", "text": post.content, "createdAt": CREATED_AT}
        facets = text_facets(post.content)
        if facets:
            record["facets"] = facets
        if post.media:
            record["embed"] = _embed(post.media)
        body = {"repo": _did(post), "collection": "app.bsky.feed.post", "record": record}
        return [PlatformRequest("POST", f"{_pds(post)}/xrpc/com.atproto.repo.createRecord", dict(JSON), json=body)]

    def classify(self, status: int, body: Any) -> ErrorClass:
        error = dig(body, "error")
        if error in ("ExpiredToken", "InvalidToken", "AuthenticationRequired") or (
            error is None and "expiredtoken" in body_text(body)
        ):
            return ErrorClass.NEEDS_REAUTH
        if error == "RateLimitExceeded":
            return ErrorClass.RETRYABLE
        # 400 InvalidRequest (too long) and 413 PayloadTooLarge stay permanent.
        return status_class(status)


def text_facets(text: str) -> list[dict[str, Any]]:
    """Link and hashtag facets; offsets are UTF-8 byte offsets, end exclusive. Mentions need a
    DID lookup, so they are left as plain text."""
    facets: list[tuple[int, dict[str, Any]]] = []
    for match in _LINK.finditer(text):
        uri = match.group().rstrip(_TRAILING)
        if uri.endswith(")") and uri.count("(") < uri.count(")"):
            uri = uri[:-1]
        facets.append(_facet(text, match.start(), uri, {"$type": "app.bsky.richtext.facet#link", "uri": uri}))
    for match in _TAG.finditer(text):
        tag = match.group(1)
        if tag.isdigit() or len(tag) > 64:
            continue
        facets.append(_facet(text, match.start(), "#" + tag, {"$type": "app.bsky.richtext.facet#tag", "tag": tag}))
    return [facet for _, facet in sorted(facets, key=lambda pair: pair[0])]


def _facet(text: str, start: int, matched: str, feature: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    byte_start = len(text[:start].encode("utf-8"))
    byte_end = byte_start + len(matched.encode("utf-8"))
    return byte_start, {"index": {"byteStart": byte_start, "byteEnd": byte_end}, "features": [feature]}


def _embed(media: tuple[OutgoingMedia, ...]) -> dict[str, Any]:
    # A post holds one embed: a video wins over images (validation refuses mixing them anyway).
    video = next((m for m in media if m.kind != "image"), None)
    if video is not None:
        embed: dict[str, Any] = {"$type": "app.bsky.embed.video", "video": _blob(video)}
        if video.alt_text:
            embed["alt"] = video.alt_text
        return embed | _aspect_ratio(video)
    images = [{"image": _blob(m), "alt": m.alt_text} | _aspect_ratio(m) for m in media]
    return {"$type": "app.bsky.embed.images", "images": images}


def _blob(media: OutgoingMedia) -> dict[str, Any]:
    return {"$type": "blob", "ref": {"$link": media_ref(media)}, "mimeType": media.mime_type, "size": media.size_bytes}


def _aspect_ratio(media: OutgoingMedia) -> dict[str, Any]:
    if media.width and media.height:
        return {"aspectRatio": {"width": media.width, "height": media.height}}
    return {}


def _video_upload(post: OutgoingPost, pds: str, media: OutgoingMedia) -> list[PlatformRequest]:
    did = _did(post)
    name = f"{media.media_id}.{_EXTENSIONS.get(media.mime_type, 'mp4')}"
    job = placeholder("job", media)
    aud = quote(f"did:web:{urlsplit(pds).hostname}", safe=":")
    return [
        PlatformRequest(
            "GET",
            f"{pds}/xrpc/com.atproto.server.getServiceAuth?aud={aud}&lxm=com.atproto.repo.uploadBlob&exp={EXPIRES_AT}",
            note="answers token, which authorises the upload below in place of the session token",
        ),
        PlatformRequest(
            "POST",
            f"{VIDEO_SERVICE}/app.bsky.video.uploadVideo?did={quote(did, safe=':{}')}&name={quote(name)}",
            {"Content-Type": media.mime_type},
            form=raw_body(media),
            note=f"answers jobStatus; its jobId is {job}",
        ),
        PlatformRequest(
            "GET",
            f"{VIDEO_SERVICE}/app.bsky.video.getJobStatus?jobId={job}",
            note=f"repeat until jobStatus.blob is set (also on already_exists); its ref.$link is {media_ref(media)}",
        ),
    ]


def _pds(post: OutgoingPost) -> str:
    return base_url(post.account.instance_url, DEFAULT_PDS)


def _did(post: OutgoingPost) -> str:
    return post.account.platform_user_id or PLATFORM_USER_ID
