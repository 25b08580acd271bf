"""LinkedIn (versioned REST Posts API): images and videos uploaded first, then POST /rest/posts
(docs/live-publishing.md, "What LinkedIn receives")."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote, unquote

import regex

from core.connectors import linkedin_metrics
from core.connectors.base import (
    Connector,
    Delivery,
    DeliveryError,
    ErrorClass,
    MediaBytes,
    OutgoingMedia,
    OutgoingPost,
    PlatformAPI,
    PlatformRequest,
    PlatformResponse,
    SandboxIds,
)
from core.connectors.common import (
    JSON,
    as_int,
    dig,
    ok,
    poll,
    refusal,
    remember_upload,
    required,
    sent_at,
    status_class,
    uploaded,
)
from core.connectors.readings import MetricsItem, MetricsReading

REST = "https://api.linkedin.com/rest"
# Each monthly version lives about a year, and a sunset one answers 426: 202607 (July 2026)
# rather than 202601, which sunsets on 15 January 2027.
VERSION = "202607"
HEADERS = {**JSON, "LinkedIn-Version": VERSION, "X-Restli-Protocol-Version": "2.0.0"}
READ_HEADERS = {k: v for k, v in HEADERS.items() if k != "Content-Type"}
# The Posts API reads `commentary` as LinkedIn's "little text" format (learn.microsoft.com,
# "little Text Format"): these characters are its syntax, and one left unescaped silently cuts
# the post there. Escaped (a backslash before each), LinkedIn shows the character itself.
_RESERVED = re.compile(r"([\\|{}@\[\]()<>#*_~])")
# A hashtag, as LinkedIn's composer makes one: `#` (or the full-width `＃`) not inside a word,
# then letters and digits (LinkedIn ends a hashtag at punctuation, `_` included), not only digits.
_HASHTAG = regex.compile(r"(?<![\p{L}\p{M}\p{N}_&])([#＃])([\p{L}\p{M}\p{N}]*[\p{L}\p{M}][\p{L}\p{M}\p{N}]*)")
# A link: a `#` in it is its fragment, never a hashtag.
_LINK = regex.compile(r"(?i:https?://|www\.)\S+")
_POST_URN = re.compile(r"urn:li:(?:share|ugcPost):\d+")
SANDBOX_PART_BYTES = 4 * 1024 * 1024  # the part size LinkedIn's upload instructions use


def commentary(text: str) -> str:
    """A post's text as the Posts API's `commentary`: hashtags as little's hashtag template
    (`{hashtag|\\#|tag}`, so LinkedIn shows a hashtag, not the text "#tag"), every other reserved
    character escaped, links included: LinkedIn takes the escape away before it shows the text
    and finds its links, so `_`, `(` and `)` in a URL come out as they went in."""
    out, cursor = [], 0
    links = [match.span() for match in _LINK.finditer(text)]
    for match in _HASHTAG.finditer(text):
        if any(start <= match.start() < end for start, end in links):
            continue
        sign = "\\#" if match.group(1) == "#" else match.group(1)
        out += [_escape(text[cursor : match.start()]), f"{{hashtag|{sign}|{match.group(2)}}}"]
        cursor = match.end()
    out.append(_escape(text[cursor:]))
    return "".join(out)


def _escape(text: str) -> str:
    return _RESERVED.sub(r"\\\1", text)


class LinkedInConnector(Connector):
    """Posts as the member `urn:li:person:<platform_user_id>` (or the organization URN when the
    profile's platform id is one). One item goes in `content.media`, several images in
    `content.multiImage`. A video goes up in the parts LinkedIn's upload instructions name; the
    ETag of each part is saved as it comes, so a retry uploads only the parts still missing.
    LinkedIn refuses a post duplicating a recent one with 422 `DUPLICATE_POST` naming that post,
    so resending after a lost answer is safe: the refusal names the post the first send made.

    A first comment goes on the post (`POST /rest/socialActions/{post URN}/comments`, actor the
    post's author, `w_member_social` as for posting). LinkedIn lists comments only with
    `r_member_social`, which it grants to select developers, and refuses no duplicate comment:
    a comment whose answer was lost cannot be told (UNCERTAIN)."""

    key = "linkedin"
    # Metrics (share statistics, 20 URNs a call): docs/analytics.md, "Each platform".
    post_metric_names = ("impressions", "reach", "likes", "replies", "reposts", "link_clicks")
    metrics_batch_size = 20
    metrics_scopes = ("rw_organization_admin",)
    first_comment = True

    async def deliver_comment(self, comment: OutgoingPost, api: PlatformAPI) -> Delivery:
        if comment.reply_to is None or not comment.reply_to.root.platform_post_id:
            raise refusal("a first comment needs the LinkedIn post it comments on", "NO_PARENT")
        if not comment.content.strip():
            raise refusal("a LinkedIn comment needs text", "TEXT_REQUIRED")
        post_urn = comment.reply_to.root.platform_post_id
        body = {"actor": _author(comment), "object": post_urn, "message": {"text": comment.content}}
        url = f"{REST}/socialActions/{quote(post_urn, safe='')}/comments"
        response = await api.send(PlatformRequest("POST", url, dict(HEADERS), json=body, creates_post=True))
        urn = dig(response.body, "commentUrn")
        if not isinstance(urn, str) or not urn:  # the comment's id alone (x-restli-id) names it too
            comment_id = dig(response.body, "id") or response.header("x-restli-id")
            if not isinstance(comment_id, str | int) or not str(comment_id):
                raise DeliveryError(ErrorClass.RETRYABLE, "LinkedIn answered the comment without its id")
            urn = f"urn:li:comment:({post_urn},{comment_id})"
        link = f"https://www.linkedin.com/feed/update/{post_urn}/?commentUrn={quote(urn, safe='')}"
        return Delivery(urn, link)

    async def deliver(self, post: OutgoingPost, api: PlatformAPI) -> Delivery:
        owner = _author(post)
        if len(post.media) > 1 and any(m.kind == "video" for m in post.media):
            raise refusal("a LinkedIn post carries one video, or images only", "MEDIA_KIND")
        items = [_content_item(media, await self._upload(owner, media, api)) for media in post.media]
        body: dict[str, Any] = {
            "author": owner,
            "commentary": commentary(post.content),
            "visibility": "PUBLIC",
            "distribution": {
                "feedDistribution": "MAIN_FEED",
                "targetEntities": [],
                "thirdPartyDistributionChannels": [],
            },
            "lifecycleState": "PUBLISHED",
            "isReshareDisabledByAuthor": False,
        }
        if len(items) == 1:
            body["content"] = {"media": items[0]}
        elif items:
            body["content"] = {"multiImage": {"images": items}}
        # Read before this send saves its own mark: was the post perhaps created already?
        resend = sent_at(api) is not None or api.state.get("resending") is True
        request = PlatformRequest("POST", f"{REST}/posts", dict(HEADERS), json=body, creates_post=True)
        response = await api.send(request, expect=(201, 422) if resend else (201,))
        if response.status == 422:
            urn = _duplicate_of(response.body)
            if urn is None:
                await api.save(create_sent_at=None)  # a definite refusal: nothing was posted
                raise DeliveryError(
                    self.classify(422, response.body),
                    f"422 from POST /rest/posts: {_text(response.body)[:300]}",
                    status=422,
                )
            return _delivery(urn)  # the earlier send's post, which this resend duplicates
        urn = response.header("x-restli-id")
        if not urn:
            raise DeliveryError(ErrorClass.RETRYABLE, "LinkedIn answered 201 without the post's x-restli-id")
        return _delivery(urn)

    async def reconcile(self, post: OutgoingPost, api: PlatformAPI) -> Delivery | None:
        if post.reply_to is not None:
            raise DeliveryError(
                ErrorClass.UNCERTAIN,
                "LinkedIn offers no way to look a comment up (r_member_social); a human must check the post",
            )
        # The publisher drops `create_sent_at` before resending; this mark keeps telling `deliver`
        # that a DUPLICATE_POST refusal names our own post.
        await api.save(resending=True)
        return None

    async def post_metrics(self, items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
        return await linkedin_metrics.read(items, api, READ_HEADERS)

    def classify(self, status: int, body: Any) -> ErrorClass:
        # 401: the token expired (serviceErrorCode 65601) or was revoked; 422 DUPLICATE_POST and
        # 426 (a sunset LinkedIn-Version) refuse the post as it is; 429 is the daily throttle.
        return status_class(status)

    def sandbox_answer(self, request: PlatformRequest, ids: SandboxIds) -> PlatformResponse:
        if request.creates_post and "/socialActions/" in request.url:
            return ok(_sandbox_comment(request.json, ids.post.rsplit(":", 1)[-1]), 201)
        if request.creates_post:
            return ok(None, 201, **{"x-restli-id": ids.post})
        if request.method == "PUT":
            return ok(None, 201, etag=f"/ambry-video/signedId/{ids.new()}")
        if request.method == "GET":
            urn = unquote(request.url.rsplit("/", 1)[-1])
            return ok({"id": urn, "status": "AVAILABLE"})
        if request.url.endswith("action=finalizeUpload"):
            return ok(None)
        n = ids.new()
        upload = f"https://www.linkedin.com/dms-uploads/sp/sandbox{n}"
        if request.url.startswith(f"{REST}/images"):
            return ok({"value": {"uploadUrl": upload, "image": f"urn:li:image:{n}"}})
        size = as_int(dig(request.json, "initializeUploadRequest", "fileSizeBytes")) or 0
        firsts = range(0, max(size, 1), SANDBOX_PART_BYTES)
        parts = [
            {"uploadUrl": f"{upload}/part{i}", "firstByte": f, "lastByte": min(size, f + SANDBOX_PART_BYTES) - 1}
            for i, f in enumerate(firsts)
        ]
        return ok({"value": {"video": f"urn:li:video:{n}", "uploadToken": "", "uploadInstructions": parts}})

    def sandbox_post_id(self, post: OutgoingPost) -> str:
        return f"urn:li:share:{super().sandbox_post_id(post)}"

    async def _upload(self, owner: str, media: OutgoingMedia, api: PlatformAPI) -> str:
        urn = uploaded(api, media.media_id)
        if media.kind != "video":
            if urn is None:
                init = {"initializeUploadRequest": {"owner": owner}}
                response = await api.send(
                    PlatformRequest("POST", f"{REST}/images?action=initializeUpload", dict(HEADERS), json=init)
                )
                upload_url, urn = required(response, "value", "uploadUrl"), required(response, "value", "image")
                put = PlatformRequest("PUT", upload_url, {"Content-Type": media.mime_type}, content=MediaBytes(media))
                await api.send(put, expect=(200, 201))
                await remember_upload(api, media.media_id, urn)
            return urn
        if urn is None:
            urn = await self._upload_video(owner, media, api)
            await remember_upload(api, media.media_id, urn)
            await api.save(video_upload=None)
        await poll(
            self,
            api,
            PlatformRequest("GET", f"{REST}/videos/{quote(urn, safe='')}", dict(READ_HEADERS)),
            done=lambda r: dig(r.body, "status") == "AVAILABLE",
            failed=_processing_failure,
            what=f"LinkedIn's processing of {media.media_id}",
        )
        return urn

    async def _upload_video(self, owner: str, media: OutgoingMedia, api: PlatformAPI) -> str:
        progress = api.state.get("video_upload")
        if not (isinstance(progress, dict) and progress.get("media_id") == media.media_id):
            init = {
                "initializeUploadRequest": {
                    "owner": owner,
                    "fileSizeBytes": media.size_bytes,
                    "uploadCaptions": False,
                    "uploadThumbnail": False,
                }
            }
            response = await api.send(
                PlatformRequest("POST", f"{REST}/videos?action=initializeUpload", dict(HEADERS), json=init)
            )
            progress = {
                "media_id": media.media_id,
                "video": required(response, "value", "video"),
                "upload_token": str(dig(response.body, "value", "uploadToken") or ""),
                "parts": _parts(response),
                "etags": [],
            }
            await api.save(video_upload=progress)
        etags = list(progress["etags"])
        for url, first, last in progress["parts"][len(etags) :]:
            put = PlatformRequest(
                "PUT", url, {"Content-Type": "application/octet-stream"}, content=MediaBytes(media, first, last + 1)
            )
            response = await api.send(put, expect=(200, 201))
            etag = response.header("etag")
            if not etag:
                raise DeliveryError(ErrorClass.RETRYABLE, f"LinkedIn answered a part of {media.media_id} without ETag")
            etags.append(etag)
            await api.save(video_upload={**progress, "etags": etags})
        finalize = {"video": progress["video"], "uploadToken": progress["upload_token"], "uploadedPartIds": etags}
        await api.send(
            PlatformRequest(
                "POST", f"{REST}/videos?action=finalizeUpload", dict(HEADERS), json={"finalizeUploadRequest": finalize}
            )
        )
        return str(progress["video"])


def _author(post: OutgoingPost) -> str:
    platform_id = post.account.platform_user_id
    if not platform_id:
        raise refusal("the LinkedIn profile has no member id; connect it again", "PROFILE_INCOMPLETE")
    return platform_id if platform_id.startswith("urn:li:") else f"urn:li:person:{platform_id}"


def _content_item(media: OutgoingMedia, urn: str) -> dict[str, str]:
    item = {"id": urn}
    if media.alt_text and media.kind != "video":
        item["altText"] = media.alt_text[:4086]
    return item


def _sandbox_comment(body: dict[str, Any], comment_id: str) -> dict[str, Any]:
    """The comment LinkedIn answers a create with (201): its URN names the post and its id."""
    post_urn = str(body.get("object", ""))
    return {
        "actor": body.get("actor"),
        "commentUrn": f"urn:li:comment:({post_urn},{comment_id})",
        "id": comment_id,
        "object": post_urn,
        "message": {"text": dig(body, "message", "text"), "attributes": []},
        "created": {"actor": body.get("actor"), "time": 0},
    }


def _delivery(urn: str) -> Delivery:
    return Delivery(urn, f"https://www.linkedin.com/feed/update/{urn}/")


def _parts(response: PlatformResponse) -> list[list[Any]]:
    """The upload instructions as [uploadUrl, firstByte, lastByte] (saved with the progress)."""
    parts = []
    for item in dig(response.body, "value", "uploadInstructions") or []:
        url, first, last = dig(item, "uploadUrl"), as_int(dig(item, "firstByte")), as_int(dig(item, "lastByte"))
        if isinstance(url, str) and url and first is not None and last is not None:
            parts.append([url, first, last])
    if not parts:
        raise DeliveryError(ErrorClass.RETRYABLE, "LinkedIn's video upload answer has no uploadInstructions")
    return parts


def _processing_failure(response: PlatformResponse) -> str | None:
    if dig(response.body, "status") != "PROCESSING_FAILED":
        return None
    return str(dig(response.body, "processingFailureReason") or "PROCESSING_FAILED")


def _text(body: Any) -> str:
    if isinstance(body, str):
        return body
    try:
        return json.dumps(body, default=str)
    except (TypeError, ValueError):
        return ""


def _duplicate_of(body: Any) -> str | None:
    """The post a 422 DUPLICATE_POST refusal names ("Content is a duplicate of urn:li:share:…")."""
    text = _text(body)
    found = _POST_URN.search(text) if "DUPLICATE_POST" in text else None
    return found.group(0) if found else None
