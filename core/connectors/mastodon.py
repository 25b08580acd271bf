"""Mastodon (per instance): POST /api/v2/media per attachment, then POST /api/v1/statuses
(Mastodon's API, https://docs.joinmastodon.org/methods/statuses/#create)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from core.connectors import mastodon_metrics
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
from core.connectors.common import JSON, base_url, ok, poll, remember_upload, required, sent_at, status_class, uploaded
from core.connectors.readings import MetricsItem, MetricsReading
from core.db.types import utcnow
from core.posts.language import primary_language

DEFAULT_INSTANCE = "https://mastodon.social"
# Mastodon keeps an Idempotency-Key for an hour; resending within this window is safe.
IDEMPOTENCY_WINDOW = timedelta(minutes=55)
# Herald's posts are public; a reply keeps the visibility of the post it answers.
VISIBILITY = "public"


class MastodonConnector(Connector):
    """Requests go to the profile's own instance (`Account.instance_url`). The status carries
    the delivery key as `Idempotency-Key`: the instance keeps it for an hour, so re-sending an
    attempt whose answer was lost returns the first status instead of posting twice. A thread
    item or a first comment is a status with `in_reply_to_id` (the post it answers) and the
    visibility of that post (Herald sends every post public), under its own delivery key.

    The post's language goes as `language`, which Mastodon takes as an ISO 639 code: the tag's
    primary language (`pt` of `pt-BR`). An instance that does not know it uses the account's
    default language, as it does for any status."""

    key = "mastodon"
    # Metrics (GET /api/v1/statuses?id[]=, 20 a call; no views): docs/analytics.md, "Each platform".
    post_metric_names = ("likes", "reposts", "replies", "quotes")
    metrics_batch_size = 20
    metrics_scopes = ("read:statuses",)
    language_field = "language"
    poll_seconds = 1.0
    threads = True
    first_comment = True  # a self-reply; write:statuses covers replies

    async def deliver(self, post: OutgoingPost, api: PlatformAPI) -> Delivery:
        instance = _instance(post)
        media_ids = [await self._upload(instance, media, api) for media in post.media]
        body: dict[str, Any] = {"status": post.content, "visibility": VISIBILITY}
        if media_ids:
            body["media_ids"] = media_ids
        if post.reply_to is not None:
            body["in_reply_to_id"] = post.reply_to.parent.platform_post_id
        if post.language and (language := primary_language(post.language)):
            body["language"] = language
        headers = {**JSON, "Idempotency-Key": post.delivery_key}
        request = PlatformRequest("POST", f"{instance}/api/v1/statuses", headers, json=body, creates_post=True)
        response = await api.send(request)
        status_id = required(response, "id")
        url = response.body.get("url") if isinstance(response.body, dict) else None
        return Delivery(status_id, url or f"{instance}/@{post.account.handle}/{status_id}")

    async def post_metrics(self, items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
        return await mastodon_metrics.read(items, api)

    async def reconcile(self, post: OutgoingPost, api: PlatformAPI) -> Delivery | None:
        sent = sent_at(api)
        if sent is not None and utcnow() - sent < IDEMPOTENCY_WINDOW:
            return None  # the same Idempotency-Key answers the first status, if there was one
        raise DeliveryError(
            ErrorClass.UNCERTAIN, "the attempt's Idempotency-Key has expired on the instance; a human must check"
        )

    def classify(self, status: int, body: Any) -> ErrorClass:
        # 401: the token was revoked (Mastodon tokens never expire); 422: validation failed.
        return status_class(status)

    def sandbox_answer(self, request: PlatformRequest, ids: SandboxIds) -> PlatformResponse:
        if request.creates_post:
            body = request.json
            status = {"id": ids.post, "content": body["status"], "visibility": body.get("visibility", VISIBILITY)}
            return ok(status | {"in_reply_to_id": body.get("in_reply_to_id")})
        if request.method == "GET":
            return ok({"id": request.url.rsplit("/", 1)[-1], "url": "https://files.example/sandbox"})
        return ok({"id": ids.new(), "type": "image", "url": "https://files.example/sandbox"})

    async def _upload(self, instance: str, media: OutgoingMedia, api: PlatformAPI) -> str:
        media_id = uploaded(api, media.media_id)
        processing = media_id is not None and media.kind != "image"  # an earlier attempt's upload
        if media_id is None:
            form: dict[str, str | MediaBytes] = {"file": MediaBytes(media)}
            if media.alt_text:
                form["description"] = media.alt_text[:1500]
            response = await api.send(
                PlatformRequest("POST", f"{instance}/api/v2/media", multipart=form), expect=(200, 202)
            )
            media_id = required(response, "id")
            await remember_upload(api, media.media_id, media_id)
            processing = response.status == 202
        if processing:  # still processing: ready once GET answers 200 (206 until then)
            await poll(
                self,
                api,
                PlatformRequest("GET", f"{instance}/api/v1/media/{media_id}"),
                done=lambda r: r.status == 200,
                failed=lambda r: None,
                what=f"the instance's processing of {media.media_id}",
                expect=(200, 206),
            )
        return media_id


def _instance(post: OutgoingPost) -> str:
    return base_url(post.account.instance_url, DEFAULT_INSTANCE)
