"""Bluesky (AT Protocol): blobs and videos up first, then one app.bsky.feed.post record with a
record key of our own (docs/live-publishing.md, "What Bluesky receives")."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from core.connectors import bluesky_metrics
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
from core.connectors.bluesky_richtext import created_at, links, mentioned_handles, page_card, text_facets, tid
from core.connectors.common import JSON, base_url, dig, ok, poll, refusal, required, status_class
from core.connectors.readings import MetricsItem, MetricsReading
from core.db.types import utcnow

DEFAULT_PDS = "https://bsky.social"
VIDEO_SERVICE = "https://video.bsky.app/xrpc"
POST = "app.bsky.feed.post"
PAGE_BYTES = 1_000_000  # a link card's page: its <head> is all we read
THUMB_BYTES = 1_000_000  # the largest blob app.bsky.embed.external's thumb takes
SERVICE_AUTH_SECONDS = 30 * 60
_REAUTH_ERRORS = ("ExpiredToken", "InvalidToken", "AuthenticationRequired")
_EXTENSIONS = {
    "video/mp4": "mp4",
    "video/quicktime": "mov",
    "video/webm": "webm",
    "video/mpeg": "mpeg",
    "image/gif": "gif",
}


class BlueskyConnector(Connector):
    """Requests go to the account's PDS (`Account.instance_url`), in its repo (the DID). Images are
    uploaded with uploadBlob; videos (and GIFs, which the app posts as video) go to the video
    service with a service-auth token, then its job is polled until it answers the blob. A post
    without media gets a link card when its first link's page has one.

    Exactly once: the record's key is a TID made from the time the record was first to be sent
    and the delivery key, saved before createRecord; every attempt sends that same key, so a
    resend cannot make a second post and getRecord tells whether it exists. `createdAt` is the
    time of the attempt that sends the record (an attempt refused or cut off before the PDS
    wrote anything must not date the post minutes early), and the request as sent is saved with
    the key (`create_request`): when a later attempt finds the record, the publisher records that
    request in the outbox with the lookup.

    A thread item or a first comment is a post record with `reply: {root, parent}`, each a
    strong ref (uri and cid); the Delivery of every record carries its cid for the next one."""

    key = "bluesky"
    # Metrics (app.bsky.feed.getPosts, 25 URIs a call; no views): docs/analytics.md, "Each platform".
    post_metric_names = ("likes", "reposts", "replies", "quotes", "bookmarks")
    metrics_batch_size = 25
    metrics_limit_scope = "app"  # the public AppView, no token: its limits are per client address
    threads = True
    first_comment = True  # a self-reply, with the same app password
    language_field = "langs"

    async def post_metrics(self, items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
        return await bluesky_metrics.read(items, api)

    async def deliver(self, post: OutgoingPost, api: PlatformAPI) -> Delivery:
        images = [m for m in post.media if m.kind == "image"]
        videos = [m for m in post.media if m.kind != "image"]
        if len(images) > 4 or len(videos) > 1 or (images and videos):
            raise refusal("a Bluesky post holds up to 4 images or one video")
        blobs = [await self._blob(post, media, api) for media in post.media]
        embed: dict[str, Any] | None = None
        if videos:
            alt = {"alt": videos[0].alt_text} if videos[0].alt_text else {}
            embed = {"$type": "app.bsky.embed.video", "video": blobs[0]} | alt | _ratio(videos[0])
        elif images:
            pictures = [{"image": blob, "alt": m.alt_text} | _ratio(m) for m, blob in zip(images, blobs, strict=True)]
            embed = {"$type": "app.bsky.embed.images", "images": pictures}
        elif card := await self._card(post, api):
            embed = {"$type": "app.bsky.embed.external", "external": card}
        facets = text_facets(post.content, await self._dids(post, api))
        fields: dict[str, Any] = {}
        if post.language:  # app.bsky.feed.post `langs`: language feeds and filters read it
            fields["langs"] = [post.language]
        if facets:
            fields["facets"] = facets
        if embed:
            fields["embed"] = embed
        if post.reply_to is not None:
            root = await self._ref(post, post.reply_to.root, api)
            same = post.reply_to.parent.platform_post_id == post.reply_to.root.platform_post_id
            fields["reply"] = {
                "root": root,
                "parent": root if same else await self._ref(post, post.reply_to.parent, api),
            }
        rkey = _record_key(api, post.delivery_key) or tid(utcnow(), post.delivery_key)
        # Stamped now, just before this attempt sends the record: an earlier attempt that wrote
        # nothing (throttled, cut off, crashed) gives the record its key, never its time.
        record = {"$type": POST, "text": post.content, "createdAt": created_at(utcnow())} | fields
        body = {"repo": _did(post), "collection": POST, "rkey": rkey, "record": record}
        request = PlatformRequest(
            "POST", f"{_pds(post)}/xrpc/com.atproto.repo.createRecord", dict(JSON), json=body, creates_post=True
        )
        await api.save(record_key=rkey, create_request=request.as_dict())
        try:
            response = await api.send(request, expect=(200,))
        except DeliveryError as error:
            # A resend of a record that exists is refused: the record is ours (its key is).
            if error.error_class is not ErrorClass.PERMANENT or error.status not in (400, 409):
                raise
            found = await self._lookup(post, api, rkey)
            if found is None:
                raise
            return found
        return self._delivery(post, required(response, "uri"), required(response, "cid"))

    async def reconcile(self, post: OutgoingPost, api: PlatformAPI) -> Delivery | None:
        rkey = _record_key(api, post.delivery_key)
        if rkey is None:
            return None  # no record key was made: createRecord was never sent
        return await self._lookup(post, api, rkey)

    def classify(self, status: int, body: Any) -> ErrorClass:
        # Bluesky answers an expired session with 400 ExpiredToken; 400 InvalidRequest (text too
        # long) and 413 PayloadTooLarge stay permanent; 429 RateLimitExceeded is throttling.
        if status < 500 and status not in (408, 429) and dig(body, "error") in _REAUTH_ERRORS:
            return ErrorClass.NEEDS_REAUTH
        return status_class(status)

    def sandbox_answer(self, request: PlatformRequest, ids: SandboxIds) -> PlatformResponse:
        path = urlsplit(request.url).path.rsplit("/", 1)[-1]
        query = {k: v[0] for k, v in parse_qs(urlsplit(request.url).query).items()}
        if request.creates_post:
            uri = f"at://{request.json['repo']}/{POST}/{request.json['rkey']}"
            return ok({"uri": uri, "cid": f"bafyrei{ids.post}", "validationStatus": "valid"})
        if path == "com.atproto.repo.uploadBlob":
            size = request.content.length if isinstance(request.content, MediaBytes) else len(request.content or b"")
            return ok({"blob": _sandbox_blob(ids, request.headers.get("Content-Type", ""), size)})
        if path == "com.atproto.server.getServiceAuth":
            return ok({"token": "sandbox-service-auth"})
        if path == "app.bsky.video.uploadVideo":
            return ok({"jobStatus": {"jobId": ids.new(), "did": query.get("did", ""), "state": "JOB_STATE_CREATED"}})
        if path == "app.bsky.video.getJobStatus":
            # The sandbox cannot know the upload's size; the service answers the stored blob's.
            blob = _sandbox_blob(ids, "video/mp4", 0)
            job = {"jobId": query.get("jobId", ""), "state": "JOB_STATE_COMPLETED", "progress": 100, "blob": blob}
            return ok({"jobStatus": job})
        if path == "com.atproto.identity.resolveHandle":
            return ok({"did": f"did:plc:sandbox{ids.new()}"})
        if path == "com.atproto.repo.getRecord":
            uri = f"at://{query.get('repo', '')}/{query.get('collection', POST)}/{query.get('rkey', '')}"
            return ok({"uri": uri, "cid": f"bafyrei{ids.post}", "value": {"$type": POST}})
        return ok({})

    def _delivery(self, post: OutgoingPost, uri: str, cid: str) -> Delivery:
        handle = post.account.handle.lstrip("@") or _did(post)
        return Delivery(uri, f"https://bsky.app/profile/{handle}/post/{uri.rsplit('/', 1)[-1]}", cid)

    async def _ref(self, post: OutgoingPost, replied: Delivery, api: PlatformAPI) -> dict[str, str]:
        """The strong ref ({uri, cid}) of a post replied to; a Delivery recorded without its cid
        has it read from the record (getRecord; a record that is gone refuses the reply)."""
        if replied.cid:
            return {"uri": replied.platform_post_id, "cid": replied.cid}
        repo, collection, rkey = _at_uri(replied.platform_post_id)
        query = f"repo={quote(repo, safe=':')}&collection={collection}&rkey={quote(rkey)}"
        request = PlatformRequest("GET", f"{_pds(post)}/xrpc/com.atproto.repo.getRecord?{query}")
        response = await api.send(request, expect=(200,))
        return {"uri": replied.platform_post_id, "cid": required(response, "cid")}

    async def _lookup(self, post: OutgoingPost, api: PlatformAPI, rkey: str) -> Delivery | None:
        """The record with our key, if the repo has it. A refusal (400 RecordNotFound) means it
        does not: sending it again is safe, as that key can only ever be one record."""
        query = f"repo={quote(_did(post), safe=':')}&collection={POST}&rkey={rkey}"
        request = PlatformRequest("GET", f"{_pds(post)}/xrpc/com.atproto.repo.getRecord?{query}")
        try:
            response = await api.send(request, expect=(200,))
        except DeliveryError as error:
            if error.error_class is ErrorClass.PERMANENT:
                return None
            raise
        return self._delivery(post, required(response, "uri"), required(response, "cid"))

    async def _blob(self, post: OutgoingPost, media: OutgoingMedia, api: PlatformAPI) -> dict[str, Any]:
        saved = dig(dict(api.state), "blobs", media.media_id)
        if isinstance(saved, dict):
            return saved
        if media.kind == "image":
            request = PlatformRequest(
                "POST",
                f"{_pds(post)}/xrpc/com.atproto.repo.uploadBlob",
                {"Content-Type": media.mime_type},
                content=MediaBytes(media),
            )
            response = await api.send(request, expect=(200,))
            blob = _blob_in(response, dig(response.body, "blob"))
        else:
            blob = await self._video(post, media, api)
        await _remember(api, "blobs", media.media_id, blob)
        return blob

    async def _video(self, post: OutgoingPost, media: OutgoingMedia, api: PlatformAPI) -> dict[str, Any]:
        job_id = dig(dict(api.state), "jobs", media.media_id)
        if not isinstance(job_id, str):  # not uploaded yet
            pds, did = _pds(post), _did(post)
            # The PDS's own did:web (a port's colon percent-encoded), which the token is for.
            aud = quote(f"did:web:{quote(urlsplit(pds).netloc, safe='')}", safe=":")
            exp = int((utcnow() + timedelta(seconds=SERVICE_AUTH_SECONDS)).timestamp())
            auth = f"{pds}/xrpc/com.atproto.server.getServiceAuth?aud={aud}&lxm=com.atproto.repo.uploadBlob&exp={exp}"
            token = required(await api.send(PlatformRequest("GET", auth), expect=(200,)), "token")
            name = f"{media.media_id}.{_EXTENSIONS.get(media.mime_type, 'mp4')}"
            upload = PlatformRequest(
                "POST",
                f"{VIDEO_SERVICE}/app.bsky.video.uploadVideo?did={quote(did, safe=':')}&name={quote(name)}",
                {"Content-Type": media.mime_type},
                content=MediaBytes(media),
                auth=None,
                bearer=token,
            )
            # 409 already_exists: the service has this video already and answers its job.
            response = await api.send(upload, expect=(200, 409))
            if isinstance(dig(_job(response), "blob"), dict):
                return _blob_in(response, dig(_job(response), "blob"))
            job_id = dig(_job(response), "jobId")
            if not isinstance(job_id, str) or not job_id:
                raise DeliveryError(
                    ErrorClass.RETRYABLE, f"the video service's answer ({response.status}) has no jobId"
                )
            await _remember(api, "jobs", media.media_id, job_id)
        response = await poll(
            self,
            api,
            PlatformRequest("GET", f"{VIDEO_SERVICE}/app.bsky.video.getJobStatus?jobId={quote(job_id)}", auth=None),
            done=lambda r: isinstance(dig(_job(r), "blob"), dict),
            failed=_job_failure,
            what=f"Bluesky's processing of {media.media_id}",
        )
        return _blob_in(response, dig(_job(response), "blob"))

    async def _dids(self, post: OutgoingPost, api: PlatformAPI) -> dict[str, str]:
        """The DIDs of the handles the text mentions; one that cannot be resolved stays text."""
        dids: dict[str, str] = {}
        for handle in mentioned_handles(post.content):
            url = f"{_pds(post)}/xrpc/com.atproto.identity.resolveHandle?handle={quote(handle)}"
            try:
                response = await api.send(PlatformRequest("GET", url), expect=(200,))
            except DeliveryError:
                continue  # a mention without a link is better than no post
            did = dig(response.body, "did")
            if isinstance(did, str) and did.startswith("did:"):
                dids[handle] = did
        return dids

    async def _card(self, post: OutgoingPost, api: PlatformAPI) -> dict[str, Any] | None:
        """The app.bsky.embed.external of the first link's page, made once (saved for retries);
        a page that cannot be had or has no card leaves it out, never the post."""
        saved = api.state.get("card")
        if isinstance(saved, dict):
            return saved or None
        found = links(post.content)
        if not found:
            return None
        card: dict[str, Any] = {}
        page = await api.fetch(found[0], max_bytes=PAGE_BYTES)
        if page is not None and isinstance(page.body, bytes):
            parsed = page_card(page.body, found[0], page.header("content-type"))
            if parsed is not None:
                card = {"uri": found[0], "title": parsed.title, "description": parsed.description}
                thumb = await self._thumb(post, api, parsed.image) if parsed.image else None
                if thumb is not None:
                    card["thumb"] = thumb
        await api.save(card=card)
        return card or None

    async def _thumb(self, post: OutgoingPost, api: PlatformAPI, url: str) -> dict[str, Any] | None:
        """The card's picture, uploaded as a blob of our own (it is small), or None."""
        image = await api.fetch(url, max_bytes=THUMB_BYTES)
        mime = (image.header("content-type") or "").split(";")[0].strip().lower() if image else ""
        if image is None or not isinstance(image.body, bytes) or not image.body or not mime.startswith("image/"):
            return None
        request = PlatformRequest(
            "POST", f"{_pds(post)}/xrpc/com.atproto.repo.uploadBlob", {"Content-Type": mime}, content=image.body
        )
        try:
            response = await api.send(request, expect=(200,))
            return _blob_in(response, dig(response.body, "blob"))
        except DeliveryError:
            return None


def _record_key(api: PlatformAPI, delivery_key: str) -> str | None:
    """The record key an earlier attempt chose, if one did. A delivery begun before the key was
    saved as such saved the time it was made from (`record_time`): the same key comes of it."""
    saved = api.state.get("record_key")
    if isinstance(saved, str) and saved:
        return saved
    value = api.state.get("record_time")
    try:
        return tid(datetime.fromisoformat(value), delivery_key) if isinstance(value, str) else None
    except ValueError:
        return None


async def _remember(api: PlatformAPI, key: str, media_id: str, value: Any) -> None:
    saved = dict(api.state.get(key) or {})
    saved[media_id] = value
    await api.save(**{key: saved})


def _blob_in(response: PlatformResponse, blob: Any) -> dict[str, Any]:
    """A blob the platform answered; a malformed one is retryable, like a missing id."""
    if not isinstance(dig(blob, "ref", "$link"), str):
        raise DeliveryError(ErrorClass.RETRYABLE, f"the platform's answer ({response.status}) has no blob")
    return dict(blob)


def _job(response: PlatformResponse) -> Any:
    """The video job's status: the lexicon wraps it in `jobStatus`; the service may not."""
    body = response.body
    return dig(body, "jobStatus") if isinstance(dig(body, "jobStatus"), dict) else body


def _job_failure(response: PlatformResponse) -> str | None:
    if dig(_job(response), "state") != "JOB_STATE_FAILED":
        return None
    return str(dig(_job(response), "message") or dig(_job(response), "error") or "processing failed")


def _ratio(media: OutgoingMedia) -> dict[str, Any]:
    if media.width and media.height:
        return {"aspectRatio": {"width": media.width, "height": media.height}}
    return {}


def _sandbox_blob(ids: SandboxIds, mime: str, size: int) -> dict[str, Any]:
    return {"$type": "blob", "ref": {"$link": f"bafkrei{ids.new()}"}, "mimeType": mime, "size": size}


def _at_uri(uri: str) -> tuple[str, str, str]:
    """(repo, collection, rkey) of `at://repo/collection/rkey`; refuses anything else."""
    parts = uri.removeprefix("at://").split("/") if uri.startswith("at://") else []
    if len(parts) != 3 or not all(parts):
        raise refusal(f"{uri!r} is not the at:// uri of a Bluesky post to reply to", "NO_PARENT")
    return parts[0], parts[1], parts[2]


def _pds(post: OutgoingPost) -> str:
    return base_url(post.account.instance_url, DEFAULT_PDS)


def _did(post: OutgoingPost) -> str:
    """The repo: the account's DID (a profile not connected yet, in the sandbox, has its handle,
    which the repo endpoints take too)."""
    return post.account.platform_user_id or post.account.handle.lstrip("@")
