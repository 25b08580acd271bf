"""TikTok (Content Posting API, direct post): creator info, a video or photo init that TikTok
completes by pulling the media from its URL, then a status poll (TikTok's Content Posting API,
https://developers.tiktok.com/doc/content-posting-api-reference-direct-post)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.connectors import tiktok_metrics
from core.connectors.base import (
    Connector,
    Delivery,
    DeliveryError,
    ErrorClass,
    OutgoingPost,
    PlatformAPI,
    PlatformRequest,
    PlatformResponse,
    SandboxIds,
    TikTokOptions,
)
from core.connectors.common import JSON_UTF8, body_text, dig, ok, poll, refusal, required, status_class
from core.connectors.readings import MetricsItem, MetricsReading

API = "https://open.tiktokapis.com/v2/post/publish"
# Most private first: a post that names no level gets the first the creator is offered (an
# unaudited app is offered SELF_ONLY only, and its posts stay private).
PRIVACY_LEVELS = ("SELF_ONLY", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "PUBLIC_TO_EVERYONE")
# The interactions each kind of post has (a photo post has no duets or stitches).
VIDEO_INTERACTIONS = ("comment", "duet", "stitch")
PHOTO_INTERACTIONS = ("comment",)
MAX_PHOTOS = 35
# Photo posts take JPEG and WebP only (content-posting-api-media-transfer-guide); a PNG would be
# pulled, then fail `file_format_check_failed` after the post was charged and waited for.
PHOTO_MIME_TYPES = frozenset({"image/jpeg", "image/webp"})
REAUTH_CODES = frozenset({"access_token_invalid", "scope_not_authorized", "scope_permission_missed"})
# The daily caps (the creator's posts, the app's pending shares and active users) clear with time.
RETRYABLE_CODES = frozenset(
    {
        "rate_limit_exceeded",
        "spam_risk_too_many_posts",
        "spam_risk_too_many_pending_share",
        "reached_active_user_cap",
        "internal_error",
    }
)
_COMPLETE = "PUBLISH_COMPLETE"
_FAILED = "FAILED"


class TikTokConnector(Connector):
    """Nothing is uploaded: `source_info` is PULL_FROM_URL, so TikTok fetches `media.url` itself
    (the storage domain must be verified in the TikTok app settings, else
    `url_ownership_unverified`); FILE_UPLOAD would stream the video in 5-64 MB chunks to an
    upload URL instead, for nothing more. One video makes a video post; 1-35 images a photo post.

    Who sees the post and what others may do with it are the post's own choice (`post.tiktok`),
    checked against what creator_info offers this creator: a privacy level it does not offer, or
    an interaction the creator has turned off in the app, fails the post before anything is sent
    (TikTok's content sharing guidelines: the user chooses, among the values creator_info gives,
    https://developers.tiktok.com/doc/content-sharing-guidelines). Nothing chosen means the most
    private level offered, every interaction off and no music added: TikTok wants a user to opt
    in to each of them, and a post nobody chose to make public must not be.

    TikTok answers some failures with 200 and `error.code` other than "ok": those are classified
    like any error. The init's `publish_id` is saved at once and the post is polled by it, so an
    attempt that finds one never sends the init again: `reconcile` asks its status once (the
    post when published) and otherwise answers None, which lets `deliver` resume the poll. Only an
    init whose answer was lost (no `publish_id`) cannot be looked up: UNCERTAIN. There are no
    threads and no first comments: the API has no comment endpoint."""

    key = "tiktok"
    # Metrics (POST /v2/video/query/, 20 ids a call): docs/analytics.md, "Each platform".
    post_metric_names = ("video_views", "likes", "replies", "shares")
    metrics_batch_size = 20
    metrics_scopes = ("video.list",)
    poll_seconds = 3.0  # the status endpoint allows 30 requests a minute per token

    async def deliver(self, post: OutgoingPost, api: PlatformAPI) -> Delivery:
        photos = _is_photo_post(post)
        publish_id = api.state.get("publish_id")
        if not isinstance(publish_id, str) or not publish_id:
            publish_id = await self._init(post, photos, api)
        response = await poll(
            self,
            api,
            _status_request(publish_id),
            done=lambda r: dig(r.body, "data", "status") == _COMPLETE,
            failed=self._failure,
            what=f"TikTok's publishing of {publish_id}",
        )
        return self._delivery(post, photos, response, publish_id)

    async def deliver_comment(self, comment: OutgoingPost, api: PlatformAPI) -> Delivery:
        raise refusal("TikTok's Content Posting API has no comment endpoint", "COMMENTS_UNSUPPORTED")

    async def reconcile(self, post: OutgoingPost, api: PlatformAPI) -> Delivery | None:
        publish_id = api.state.get("publish_id")
        if not isinstance(publish_id, str) or not publish_id:
            raise DeliveryError(
                ErrorClass.UNCERTAIN,
                "TikTok's answer to the post's init was lost and TikTok has no lookup without its publish_id; "
                "a human must check the account",
            )
        response = await api.send(_status_request(publish_id), expect=(200,))
        if reason := self._failure(response):
            raise DeliveryError(ErrorClass.PERMANENT, f"TikTok's publishing of {publish_id} failed: {reason}")
        if dig(response.body, "data", "status") == _COMPLETE:
            return self._delivery(post, _is_photo_post(post), response, publish_id)
        return None  # still processing: deliver resumes the poll from the saved publish_id

    async def post_metrics(self, items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
        return await tiktok_metrics.read(items, api)

    def classify(self, status: int, body: Any) -> ErrorClass:
        # Documented: access_token_invalid / scope_not_authorized 401, rate_limit_exceeded 429,
        # invalid_params 400, the spam_risk_* and app-status refusals 403, internal_error 500.
        # A banned account, privacy_level_option_mismatch, an unaudited app posting publicly and
        # an unverified media domain cannot be fixed by retrying (status_class: permanent).
        if status == 429 or status >= 500:
            return ErrorClass.RETRYABLE
        code = dig(body, "error", "code")
        if not isinstance(code, str):
            text = body_text(body)
            code = next((c for c in sorted(REAUTH_CODES | RETRYABLE_CODES) if c in text), "")
        if code in REAUTH_CODES:
            return ErrorClass.NEEDS_REAUTH
        if code in RETRYABLE_CODES:
            return ErrorClass.RETRYABLE
        return status_class(status)

    def sandbox_answer(self, request: PlatformRequest, ids: SandboxIds) -> PlatformResponse:
        if request.creates_post:
            prefix = "p_pub_url" if request.url.endswith("/content/init/") else "v_pub_url"
            return ok({"data": {"publish_id": f"{prefix}~v2.{ids.new()}"}, "error": _OK})
        if request.url.endswith("/status/fetch/"):
            post_id: int | str = int(ids.post) if ids.post.isdigit() else ids.post
            data = {"status": _COMPLETE, "publicaly_available_post_id": [post_id], "uploaded_bytes": 0}
            return ok({"data": data, "error": _OK})
        creator = {
            "creator_username": "sandbox",
            "creator_nickname": "Sandbox",
            # The sandbox's creator is offered every level and has turned nothing off, so any
            # choice a post makes shows in the outbox as it would be sent.
            "privacy_level_options": list(reversed(PRIVACY_LEVELS)),
            "comment_disabled": False,
            "duet_disabled": False,
            "stitch_disabled": False,
            "max_video_post_duration_sec": 600,
        }
        return ok({"data": creator, "error": _OK})

    async def _init(self, post: OutgoingPost, photos: bool, api: PlatformAPI) -> str:
        info_request = PlatformRequest("POST", f"{API}/creator_info/query/", dict(JSON_UTF8))
        creator = self._checked(await api.send(info_request, expect=(200,)), "creator_info").body
        settings = post_settings(post.tiktok or TikTokOptions(), photos, creator)
        body = _photo_body(post, settings) if photos else _video_body(post, settings)
        url = f"{API}/content/init/" if photos else f"{API}/video/init/"
        response = await api.send(
            PlatformRequest("POST", url, dict(JSON_UTF8), json=body, creates_post=True), expect=(200,)
        )
        try:
            self._checked(response, "the post's init")
        except DeliveryError:
            await api.save(create_sent_at=None)  # a definite refusal: no post was made
            raise
        publish_id = required(response, "data", "publish_id")
        await api.save(publish_id=publish_id)
        return publish_id

    def _checked(self, response: PlatformResponse, what: str) -> PlatformResponse:
        """The answer, unless its envelope names an error (TikTok does so even with 200)."""
        code = dig(response.body, "error", "code")
        if code is None or code == "ok":
            return response
        message = dig(response.body, "error", "message")
        raise DeliveryError(
            self.classify(response.status, response.body),
            f"TikTok refused {what}: {code} {message if isinstance(message, str) else ''}".strip(),
            status=response.status,
            code=str(code)[:64],
        )

    def _failure(self, response: PlatformResponse) -> str | None:
        self._checked(response, "the status fetch")
        if dig(response.body, "data", "status") != _FAILED:
            return None
        return str(dig(response.body, "data", "fail_reason") or "FAILED")

    def _delivery(self, post: OutgoingPost, photos: bool, response: PlatformResponse, publish_id: str) -> Delivery:
        handle = post.account.handle.lstrip("@")
        public_id = dig(response.body, "data", "publicaly_available_post_id", 0)
        if isinstance(public_id, bool) or not isinstance(public_id, str | int) or public_id == "":
            # A private (SELF_ONLY) post has no public id: the publish_id stands for it, and the
            # link goes to the profile, as no post page can be named.
            return Delivery(publish_id, f"https://www.tiktok.com/@{handle}")
        kind = "photo" if photos else "video"
        return Delivery(str(public_id), f"https://www.tiktok.com/@{handle}/{kind}/{public_id}")


_OK = {"code": "ok", "message": "", "log_id": "sandbox"}


def _is_photo_post(post: OutgoingPost) -> bool:
    """Whether the post goes out as photos (1-35 images) rather than one video; refuses the rest."""
    kinds = [m.kind for m in post.media]
    if not kinds:
        raise refusal("a TikTok post needs a video or photos", "MEDIA_REQUIRED")
    if kinds == ["video"] and post.post_type != "photo":
        return False
    if any(kind != "image" for kind in kinds):
        raise refusal("a TikTok post is one video or 1-35 images, not a mix", "MEDIA_KIND")
    if len(kinds) > MAX_PHOTOS:
        raise refusal(f"a TikTok photo post holds at most {MAX_PHOTOS} images", "MEDIA_COUNT")
    if any(m.mime_type not in PHOTO_MIME_TYPES for m in post.media):
        raise refusal("TikTok photo posts take JPEG or WebP images only", "MEDIA_FORMAT")
    return True


def goes_out_as_photos(post_type: str, kinds: list[str] | None) -> bool:
    """Whether a post of this type and these attachment kinds is a photo post (None: the kinds
    are not known, so the type decides)."""
    if kinds is None:
        return post_type == "photo"
    return bool(kinds) and all(kind == "image" for kind in kinds)


def post_settings(chosen: TikTokOptions, photos: bool, creator: Any) -> dict[str, Any]:
    """post_info's privacy and interaction fields: what the post chose, checked against what
    creator_info offers, and the defaults (module docstring) for what it did not choose."""
    options = dig(creator, "data", "privacy_level_options")
    offered = [level for level in options if isinstance(level, str)] if isinstance(options, list) else []
    if chosen.privacy_level is not None and chosen.privacy_level not in offered:
        raise refusal(
            f"TikTok does not offer this account the privacy level {chosen.privacy_level} "
            f"(it offers {', '.join(offered) or 'none'}): choose one of those in tiktok.privacy_level",
            "PRIVACY_LEVEL_UNAVAILABLE",
        )
    privacy = chosen.privacy_level or next((level for level in PRIVACY_LEVELS if level in offered), None)
    if privacy is None:
        raise refusal("TikTok offers this account no privacy level to post with", "PRIVACY_LEVEL_UNAVAILABLE")
    settings: dict[str, Any] = {"privacy_level": privacy}
    for name in PHOTO_INTERACTIONS if photos else VIDEO_INTERACTIONS:
        disable = getattr(chosen, f"disable_{name}")
        if disable is False and dig(creator, "data", f"{name}_disabled") is True:
            raise refusal(
                f"the creator has turned {name}s off in the TikTok app, so this post cannot allow them "
                f"(send tiktok.disable_{name} true, or leave it out)",
                "INTERACTION_UNAVAILABLE",
            )
        settings[f"disable_{name}"] = True if disable is None else disable
    if photos:
        settings["auto_add_music"] = chosen.auto_add_music is True
    return settings


def _video_body(post: OutgoingPost, settings: dict[str, Any]) -> dict[str, Any]:
    post_info = {"title": _clip(post.content, 2200), **settings}
    return {"post_info": post_info, "source_info": {"source": "PULL_FROM_URL", "video_url": post.media[0].url}}


def _photo_body(post: OutgoingPost, settings: dict[str, Any]) -> dict[str, Any]:
    # A photo post's title is short (90 units): the text goes in the description.
    post_info: dict[str, Any] = {"title": _clip(post.title, 90)} if post.title else {}
    post_info |= {"description": _clip(post.content, 4000), **settings}
    source = {"source": "PULL_FROM_URL", "photo_images": [m.url for m in post.media], "photo_cover_index": 0}
    return {"post_info": post_info, "source_info": source, "post_mode": "DIRECT_POST", "media_type": "PHOTO"}


def _status_request(publish_id: str) -> PlatformRequest:
    return PlatformRequest("POST", f"{API}/status/fetch/", dict(JSON_UTF8), json={"publish_id": publish_id})


def _clip(text: str, units: int) -> str:
    """`text` cut to `units` UTF-16 code units (TikTok's count), never inside a character."""
    encoded = text.encode("utf-16-le")
    return text if len(encoded) <= 2 * units else encoded[: 2 * units].decode("utf-16-le", "ignore")
