"""X (API v2): media upload at /2/media/upload, then POST /2/tweets (docs/platforms.md, "X")."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

from core.connectors import x_metrics
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
    dig,
    ok,
    poll,
    remember_upload,
    required,
    same_text,
    sent_at,
    status_class,
    uploaded,
)
from core.connectors.readings import MetricsItem, MetricsReading
from core.db.types import utcnow

API = "https://api.x.com/2"
UPLOAD = f"{API}/media/upload"
SEGMENT_BYTES = 5 * 1024 * 1024  # the largest append segment X accepts
# Looking a post up after a lost answer: the account's posts from 2 minutes before the attempt
# sent it to 15 minutes after (X answers newest first, 100 per page).
LOOKUP_WINDOW = timedelta(minutes=17)
LOOKUP_PAGES = 10
_PROCESSING_DONE = "succeeded"


class XConnector(Connector):
    """Images go up in one multipart request; videos and GIFs through initialize/append/finalize,
    then a status poll until processing succeeds. Alt text is set with /2/media/metadata.
    X honours no idempotency key; a post that may have gone out is looked up in the account's
    recent posts (its t.co links expanded back) before anything is sent again."""

    key = "x"
    # Metrics (GET /2/tweets?ids=, 100 a call): docs/analytics.md, "Each platform".
    post_metric_names = ("impressions", "likes", "reposts", "replies", "quotes", "bookmarks", "link_clicks")
    metrics_batch_size = 100
    metrics_scopes = ("tweet.read", "users.read")
    threads = True
    first_comment = True  # a self-reply; tweet.write covers replies

    async def deliver(self, post: OutgoingPost, api: PlatformAPI) -> Delivery:
        media_ids = [await self._upload(media, api) for media in post.media]
        body: dict[str, Any] = {"text": post.content}
        if media_ids:
            body["media"] = {"media_ids": media_ids}
        if post.reply_to is not None:  # a thread item or a first comment: a reply in the chain
            body["reply"] = {"in_reply_to_tweet_id": post.reply_to.parent.platform_post_id}
        response = await api.send(
            PlatformRequest("POST", f"{API}/tweets", dict(JSON), json=body, creates_post=True), expect=(200, 201)
        )
        return self._delivery(post, required(response, "data", "id"))

    async def reconcile(self, post: OutgoingPost, api: PlatformAPI) -> Delivery | None:
        """Looks through the account's posts made between just before the attempt sent the post
        and a while after (an answer lost in flight lands within the request deadline), newest
        first, page by page; a busy account that posted more than LOOKUP_PAGES pages in that
        window cannot be told apart. The account's posts include its replies: a reply (a thread
        item, a first comment) must also answer the post it was sent in reply to."""
        user = post.account.platform_user_id
        start = (sent_at(api) or utcnow()) - timedelta(minutes=2)
        end = start + LOOKUP_WINDOW
        fields = "created_at,entities,referenced_tweets"
        query = f"max_results=100&tweet.fields={fields}&start_time={quote(_rfc3339(start))}"
        if end < utcnow() - timedelta(minutes=1):  # a window wholly past; else up to now
            query += f"&end_time={quote(_rfc3339(end))}"
        token = ""
        for _ in range(LOOKUP_PAGES):
            page = f"&pagination_token={quote(token)}" if token else ""
            response = await api.send(PlatformRequest("GET", f"{API}/users/{user}/tweets?{query}{page}"))
            for tweet in dig(response.body, "data") or []:
                if isinstance(tweet, dict) and same_text(_expanded(tweet), post.content) and _answers(tweet, post):
                    return self._delivery(post, str(tweet.get("id")))
            token = dig(response.body, "meta", "next_token") or ""
            if not isinstance(token, str) or not token:
                return None
        raise DeliveryError(
            ErrorClass.UNCERTAIN, f"the account posted over {LOOKUP_PAGES * 100} times around the attempt"
        )

    async def post_metrics(self, items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
        return await x_metrics.read(items, api)

    def classify(self, status: int, body: Any) -> ErrorClass:
        # 401 is an expired token; 403 covers the duplicate-content refusal and videos over the
        # account's length cap, which no retry can fix; 429 is throttling.
        return status_class(status)

    def sandbox_answer(self, request: PlatformRequest, ids: SandboxIds) -> PlatformResponse:
        if request.creates_post:
            return ok({"data": {"id": ids.post, "text": request.json["text"]}}, 201)
        if request.method == "GET" and "command=STATUS" in request.url:
            return ok({"data": {"processing_info": {"state": _PROCESSING_DONE, "progress_percent": 100}}})
        if request.url.endswith("/finalize"):
            return ok({"data": {"processing_info": {"state": _PROCESSING_DONE}}})
        if request.url.endswith("/append") or request.url.endswith("/media/metadata"):
            return ok({})
        if request.method == "GET":
            return ok({"data": [], "meta": {"result_count": 0}})
        media_id = ids.new()
        return ok({"data": {"id": media_id, "media_key": f"3_{media_id}", "expires_after_secs": 86400}})

    def _delivery(self, post: OutgoingPost, tweet_id: str) -> Delivery:
        handle = post.account.handle.lstrip("@") or "i/web"
        return Delivery(tweet_id, f"https://x.com/{handle}/status/{tweet_id}")

    async def _upload(self, media: OutgoingMedia, api: PlatformAPI) -> str:
        media_id = uploaded(api, media.media_id)
        if media_id is None:
            if media.kind == "image":
                form = {"media": MediaBytes(media), "media_category": "tweet_image"}
                response = await api.send(PlatformRequest("POST", UPLOAD, multipart=form))
                media_id = required(response, "data", "id")
                await remember_upload(api, media.media_id, media_id)
            else:
                media_id = await self._chunked_upload(media, api)
        elif media.kind != "image":  # an earlier attempt uploaded it; processing may go on
            await self._processed(media, media_id, api)
        if media.alt_text and media.kind != "video" and not uploaded(api, media.media_id, "alt"):
            metadata = {"id": media_id, "metadata": {"alt_text": {"text": media.alt_text[:1000]}}}
            await api.send(PlatformRequest("POST", f"{API}/media/metadata", dict(JSON), json=metadata))
            await remember_upload(api, media.media_id, "set", "alt")
        return media_id

    async def _chunked_upload(self, media: OutgoingMedia, api: PlatformAPI) -> str:
        category = "tweet_gif" if media.kind == "gif" else "tweet_video"
        init = {"media_type": media.mime_type, "total_bytes": media.size_bytes, "media_category": category}
        response = await api.send(PlatformRequest("POST", f"{UPLOAD}/initialize", dict(JSON), json=init))
        media_id = required(response, "data", "id")
        for index, first in enumerate(range(0, max(media.size_bytes, 1), SEGMENT_BYTES)):
            segment = MediaBytes(media, first, min(media.size_bytes, first + SEGMENT_BYTES))
            form = {"media": segment, "segment_index": str(index)}
            await api.send(PlatformRequest("POST", f"{UPLOAD}/{media_id}/append", multipart=form), expect=(200, 204))
        response = await api.send(PlatformRequest("POST", f"{UPLOAD}/{media_id}/finalize"))
        if reason := _failure(response):
            raise DeliveryError(ErrorClass.PERMANENT, f"X's processing of {media.media_id} failed: {reason}")
        await remember_upload(api, media.media_id, media_id)
        if _state(response) not in (None, _PROCESSING_DONE):
            await self._processed(media, media_id, api)
        return media_id

    async def _processed(self, media: OutgoingMedia, media_id: str, api: PlatformAPI) -> None:
        await poll(
            self,
            api,
            PlatformRequest("GET", f"{UPLOAD}?command=STATUS&media_id={media_id}"),
            done=lambda r: _state(r) in (None, _PROCESSING_DONE),
            failed=_failure,
            what=f"X's processing of {media.media_id}",
        )


def _rfc3339(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _state(response: PlatformResponse) -> str | None:
    return dig(response.body, "data", "processing_info", "state")


def _failure(response: PlatformResponse) -> str | None:
    if _state(response) != "failed":
        return None
    return str(dig(response.body, "data", "processing_info", "error", "message") or "processing failed")


def _answers(tweet: dict[str, Any], post: OutgoingPost) -> bool:
    """Whether the tweet replies to what `post` replies to (a post that is no reply: to nothing)."""
    replied = {
        str(ref.get("id"))
        for ref in dig(tweet, "referenced_tweets") or []
        if isinstance(ref, dict) and ref.get("type") == "replied_to"
    }
    if post.reply_to is None:
        return not replied
    return replied == {post.reply_to.parent.platform_post_id}


def _expanded(tweet: dict[str, Any]) -> str:
    """The tweet's text as we sent it: X's t.co links replaced by the URLs they stand for, and the
    link X appends for the post's own media (an entity with a `media_key`, shown as pic.x.com)
    removed."""
    text = str(tweet.get("text", ""))
    for url in dig(tweet, "entities", "urls") or []:
        if not isinstance(url, dict) or not url.get("url"):
            continue
        if url.get("media_key") or str(url.get("display_url", "")).startswith(("pic.x.com/", "pic.twitter.com/")):
            text = text.replace(str(url["url"]), "")
        elif url.get("expanded_url"):
            text = text.replace(str(url["url"]), str(url["expanded_url"]))
    return text.strip()
