"""A fake TikTok on loopback: Login Kit for the web (`client_key`, comma-separated scopes, no
PKCE, rotating refresh tokens), the user info call, and the Content Posting API's direct post
of a video or photos pulled from a URL, with its status (developers.tiktok.com:
oauth-user-access-token-management, tiktok-api-v2-get-user-info,
content-posting-api-reference-direct-post, -photo-post, -get-video-status).

Both hosts, `www.tiktok.com` (the authorization page) and `open.tiktokapis.com` (everything
else), map to this one server. The authorization page approves at once as `sign_in_as`;
refresh tokens rotate, and revoking a token ends all of the user's (the grant is oauth.py's).

Every API answer is TikTok's envelope `{"data": {...}, "error": {"code", "message", "log_id"}}`,
`error.code` being "ok" on success; a refused token is 401 `access_token_invalid`, a field or
call the user did not grant the scope of is 401 `scope_not_authorized` (user info's `username`
needs `user.info.profile`, which Herald does not ask for). Token endpoint errors are OAuth's
`{error, error_description, log_id}`.

`PULL_FROM_URL`: the init fetches every URL (urllib, as TikTok's servers would) and keeps its
size and SHA-256, so a test sees that the signed storage URL Herald sent works; a URL outside
`verified_url_prefixes` is refused `url_ownership_unverified`. A publish then answers
`PROCESSING_DOWNLOAD` to `processing_polls` status fetches and `PUBLISH_COMPLETE` after, or
`FAILED` with a `fail_reason` (a pull that failed, a format TikTok does not take, or
`fail_next_publish`). Public posts get a post id (`publicaly_available_post_id`, TikTok's
spelling); `SELF_ONLY` ones do not.

Video metrics (`/v2/video/query/`) and the follower count are tiktok_metrics.py's.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.oauth import CLIENT, CODE, GRANT_TYPE, REDIRECT_URI, Code, OAuthPlatform
from harness.fakes.platforms.tiktok_metrics import TikTokVideoQuery

SCOPES = ("user.info.basic", "video.publish", "video.list", "user.info.stats")  # what Herald asks
KNOWN_SCOPES = (*SCOPES, "user.info.profile", "video.upload")
# GET /v2/user/info/: the scope each field needs (since the 2024 scope migration).
FIELD_SCOPES = {
    "open_id": "user.info.basic",
    "union_id": "user.info.basic",
    "avatar_url": "user.info.basic",
    "avatar_url_100": "user.info.basic",
    "avatar_large_url": "user.info.basic",
    "display_name": "user.info.basic",
    "bio_description": "user.info.profile",
    "profile_deep_link": "user.info.profile",
    "is_verified": "user.info.profile",
    "username": "user.info.profile",
    "follower_count": "user.info.stats",
    "following_count": "user.info.stats",
    "likes_count": "user.info.stats",
    "video_count": "user.info.stats",
}
PRIVACY_LEVELS = ("PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY")
MAX_TITLE_UNITS = 2200
MAX_PHOTO_TITLE_UNITS = 90
MAX_DESCRIPTION_UNITS = 4000
MAX_PHOTOS = 35
CODE_LIFETIME = 600.0


@dataclass
class TikTokUser:
    open_id: str
    union_id: str
    username: str
    display_name: str
    privacy_level_options: list[str] = field(default_factory=lambda: list(PRIVACY_LEVELS[:2]) + ["SELF_ONLY"])
    # What the creator has turned off in the TikTok app (creator_info's *_disabled).
    comment_disabled: bool = False
    duet_disabled: bool = False
    stitch_disabled: bool = True

    @property
    def avatar_url(self) -> str:
        return f"https://p16-sign.tiktokcdn-us.com/tos-useast5-avt-0068-tx/{self.open_id}~c5_168x168.jpeg"


@dataclass
class Pulled:
    """One media file TikTok fetched from a URL Herald gave it."""

    url: str
    status: int | None  # the HTTP status of the fetch (None: no answer)
    size: int
    sha256: str
    head: bytes  # the first bytes, to tell the format


@dataclass
class Publish:
    publish_id: str
    open_id: str
    media_type: str  # VIDEO or PHOTO
    post_info: dict[str, Any]
    pulled: list[Pulled]
    polls_left: int
    fail_reason: str | None = None
    post_id: int | None = None  # the public post id once published (None for SELF_ONLY)
    created_at: float = field(default_factory=time.time)
    status_fetches: int = 0

    @property
    def title(self) -> str:
        return str(self.post_info.get("title") or "")

    @property
    def text(self) -> str:
        """What the post says: a video's title, or a photo post's description."""
        return str(self.post_info.get("description" if self.media_type == "PHOTO" else "title") or "")

    @property
    def privacy_level(self) -> str:
        return str(self.post_info.get("privacy_level") or "")

    @property
    def status(self) -> str:
        if self.fail_reason:
            return "FAILED"
        return "PROCESSING_DOWNLOAD" if self.polls_left > 0 else "PUBLISH_COMPLETE"


class FakeTikTok(TikTokVideoQuery, OAuthPlatform):
    name = "tiktok"
    hosts = ("open.tiktokapis.com", "www.tiktok.com")
    settings_name = "TIKTOK"
    client_id_param = "client_key"
    code_lifetime = CODE_LIFETIME
    scope_separator = ","
    rotate_refresh_tokens = True
    revoke_ends_every_grant = True
    denial = {"error": "access_denied", "error_description": "User cancelled"}

    def __init__(
        self,
        *,
        client_key: str = "fake-tiktok-client-key",
        client_secret: str = "fake-tiktok-client-secret",
        access_token_lifetime: int = 86400,
        processing_polls: int = 1,
        verified_url_prefixes: tuple[str, ...] = (),
    ) -> None:
        self.client_key = self.client_id = client_key
        self.client_secret = client_secret
        self.access_token_lifetime = access_token_lifetime
        self.processing_polls = processing_polls
        self.verified_url_prefixes = verified_url_prefixes
        self.users: dict[str, TikTokUser] = {}
        self.publishes: dict[str, Publish] = {}
        self._fail_next: str | None = None
        self._ids = 7_310_000_000_000_000_000
        self.init_metrics()  # video metrics and followers: tiktok_metrics.py
        super().__init__()
        self.add_user("herald.fake", "Herald Fake")

    # --- test controls -------------------------------------------------------------------------

    def add_user(self, username: str, display_name: str = "") -> TikTokUser:
        with self.lock:
            user = TikTokUser(f"-000{secrets.token_hex(14)}", secrets.token_hex(16), username, display_name or username)
            self.users[user.open_id] = user
            self.sign_in_as = self.sign_in_as or user.open_id
            return user

    def user(self, username: str) -> TikTokUser:
        return next(u for u in self.users.values() if u.username == username)

    def fail_next_publish(self, reason: str) -> None:
        """The next init's publish ends FAILED with this `fail_reason`."""
        with self.lock:
            self._fail_next = reason

    def published(self, open_id: str, containing: str = "") -> list[Publish]:
        """The user's publishes that TikTok completed, whose text contains `containing`."""
        with self.lock:
            return [
                p
                for p in self.publishes.values()
                if p.open_id == open_id and p.fail_reason is None and containing in p.text
            ]

    def publishes_by(self, open_id: str, containing: str = "") -> list[Publish]:
        with self.lock:
            return [p for p in self.publishes.values() if p.open_id == open_id and containing in p.text]

    # --- routes --------------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        def r(method: str, path: str, handle) -> Route:
            return (method, re.compile(path), handle)

        return [
            r("GET", r"/v2/auth/authorize/?", self.authorize),
            r("POST", r"/v2/oauth/token/", self.token),
            r("POST", r"/v2/oauth/revoke/", self.revoke),
            r("GET", r"/v2/user/info/", self.user_info),
            r("POST", r"/v2/post/publish/creator_info/query/", self.creator_info),
            r("POST", r"/v2/post/publish/video/init/", self.video_init),
            r("POST", r"/v2/post/publish/content/init/", self.content_init),
            r("POST", r"/v2/post/publish/status/fetch/", self.status_fetch),
            *self.metrics_routes(),
        ]

    def not_found(self, request: Request) -> Answer:
        return _error(404, "invalid_params", "The requested path does not exist.")

    # --- Login Kit (the grant is oauth.py's) -------------------------------------------------

    def authorization_refused(self, q: dict[str, str], scopes: tuple[str, ...]) -> Answer | None:
        redirect_uri = q.get("redirect_uri", "")
        if q.get("client_key") != self.client_key or not redirect_uri.startswith(("http://", "https://")):
            return answer(400, "<html><body>Something went wrong: client_key or redirect_uri.</body></html>")
        state = q.get("state", "")
        if q.get("response_type") != "code":
            return self.back_to_client(redirect_uri, error="unsupported_response_type", state=state)
        if not scopes or not set(scopes) <= set(KNOWN_SCOPES):
            return self.back_to_client(redirect_uri, error="invalid_scope", state=state)
        return None

    def approved_params(self, code: str, state: str, scopes: tuple[str, ...]) -> dict[str, str]:
        return {"code": code, "scopes": ",".join(scopes), "state": state}

    def new_code(self) -> str:
        return secrets.token_urlsafe(48) + "*0!" + str(secrets.randbelow(10000))

    def new_access_token(self) -> str:
        return "act." + secrets.token_urlsafe(48)

    def new_refresh_token(self) -> str:
        return "rft." + secrets.token_urlsafe(48)

    def token_refused(self, problem: str) -> Answer:
        if problem == CLIENT:
            return _oauth_error("invalid_client", "Client key or secret is incorrect.")
        if problem == CODE:
            return _oauth_error("invalid_grant", "Authorization code is expired.")
        if problem == REDIRECT_URI:
            return _oauth_error("invalid_grant", "Redirect URI does not match the authorization request.")
        if problem == GRANT_TYPE:
            return _oauth_error("unsupported_grant_type", "The grant type is not supported.")
        return _oauth_error("invalid_grant", "Refresh token is invalid or expired.")

    def token_issued(self, grant_type: str, subject: str, scopes: tuple[str, ...], code: Code | None) -> Answer:
        access = self.grant_access(subject, scopes, lifetime=self.access_token_lifetime)
        body = {
            "access_token": access,
            "expires_in": self.access_token_lifetime,
            "open_id": subject,
            "refresh_expires_in": 15_552_000,
            "refresh_token": self.grant_refresh(subject, scopes),
            "scope": ",".join(scopes),
            "token_type": "Bearer",
        }
        return answer(200, body, cache_control="no-store")

    def revoke_refused(self) -> Answer:
        return _oauth_error("invalid_client", "Client key or secret is incorrect.")

    # --- API -----------------------------------------------------------------------------------

    def _caller(self, request: Request, *scopes: str) -> TikTokUser | Answer:
        grant = self.access_tokens.get(request.bearer or "")
        if grant is None or grant.revoked or grant.expired():
            return _error(401, "access_token_invalid", "The access token is invalid or not found in the request.")
        if not set(scopes) <= set(grant.scopes):
            return _error(
                401,
                "scope_not_authorized",
                "The user did not authorize the scope required for completing this request.",
            )
        return self.users[grant.subject]

    def user_info(self, request: Request, match: re.Match[str]) -> Answer:
        fields = [f for f in request.query.get("fields", "").split(",") if f]
        unknown = [f for f in fields if f not in FIELD_SCOPES]
        if not fields or unknown:
            return _error(400, "invalid_params", f"Invalid fields: {','.join(unknown) or 'none requested'}")
        user = self._caller(request, *sorted({FIELD_SCOPES[f] for f in fields}))
        if isinstance(user, Answer):
            return user
        values: dict[str, Any] = {
            "open_id": user.open_id,
            "union_id": user.union_id,
            "avatar_url": user.avatar_url,
            "avatar_url_100": user.avatar_url,
            "avatar_large_url": user.avatar_url,
            "display_name": user.display_name,
            "bio_description": "",
            "profile_deep_link": f"https://vm.tiktok.com/{user.open_id[-8:]}/",
            "is_verified": False,
            "username": user.username,
            "follower_count": self.followers.get(user.open_id, 0),
            "following_count": 0,
            "likes_count": 0,
            "video_count": len(self.published(user.open_id)),
        }
        return _ok({"user": {f: values[f] for f in fields}})

    def creator_info(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "video.publish")
        if isinstance(user, Answer):
            return user
        return _ok(
            {
                "creator_avatar_url": user.avatar_url,
                "creator_username": user.username,
                "creator_nickname": user.display_name,
                "privacy_level_options": list(user.privacy_level_options),
                "comment_disabled": user.comment_disabled,
                "duet_disabled": user.duet_disabled,
                "stitch_disabled": user.stitch_disabled,
                "max_video_post_duration_sec": 600,
            }
        )

    def video_init(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "video.publish")
        if isinstance(user, Answer):
            return user
        body = self._json_body(request)
        if isinstance(body, Answer):
            return body
        post_info, source = body.get("post_info"), body.get("source_info")
        if not isinstance(post_info, dict) or not isinstance(source, dict):
            return _error(400, "invalid_params", "post_info and source_info are required.")
        if refused := self._check_post_info(user, post_info, MAX_TITLE_UNITS):
            return refused
        if source.get("source") != "PULL_FROM_URL" or not isinstance(source.get("video_url"), str):
            return _error(400, "invalid_params", "This fake takes source PULL_FROM_URL with a video_url.")
        if refused := self._check_ownership([source["video_url"]]):
            return refused
        return self._start(user, "VIDEO", "v_pub_url", post_info, [source["video_url"]])

    def content_init(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "video.publish")
        if isinstance(user, Answer):
            return user
        body = self._json_body(request)
        if isinstance(body, Answer):
            return body
        post_info, source = body.get("post_info"), body.get("source_info")
        if body.get("media_type") != "PHOTO" or body.get("post_mode") not in ("DIRECT_POST", "MEDIA_UPLOAD"):
            return _error(400, "invalid_params", "media_type must be PHOTO and post_mode DIRECT_POST or MEDIA_UPLOAD.")
        if not isinstance(post_info, dict) or not isinstance(source, dict):
            return _error(400, "invalid_params", "post_info and source_info are required.")
        if refused := self._check_post_info(user, post_info, MAX_PHOTO_TITLE_UNITS):
            return refused
        if _utf16_units(str(post_info.get("description") or "")) > MAX_DESCRIPTION_UNITS:
            return _error(400, "invalid_params", "description is too long.")
        images = source.get("photo_images")
        if (
            source.get("source") != "PULL_FROM_URL"
            or not isinstance(images, list)
            or not 1 <= len(images) <= MAX_PHOTOS
            or not all(isinstance(u, str) and u for u in images)
        ):
            return _error(400, "invalid_params", f"photo_images must list 1-{MAX_PHOTOS} URLs (PULL_FROM_URL).")
        cover = source.get("photo_cover_index", 0)
        if not isinstance(cover, int) or not 0 <= cover < len(images):
            return _error(400, "invalid_params", "photo_cover_index is out of range.")
        if refused := self._check_ownership(images):
            return refused
        return self._start(user, "PHOTO", "p_pub_url", post_info, images)

    def status_fetch(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "video.publish")
        if isinstance(user, Answer):
            return user
        body = self._json_body(request)
        if isinstance(body, Answer):
            return body
        publish = self.publishes.get(str(body.get("publish_id", "")))
        if publish is None or publish.open_id != user.open_id:
            return _error(400, "invalid_params", "publish_id is invalid.")
        publish.status_fetches += 1
        status = publish.status
        data: dict[str, Any] = {"status": status}
        if status == "FAILED":
            data["fail_reason"] = publish.fail_reason
        elif status == "PROCESSING_DOWNLOAD":
            publish.polls_left -= 1
            data["downloaded_bytes"] = sum(p.size for p in publish.pulled) // 2
        else:
            data["downloaded_bytes"] = sum(p.size for p in publish.pulled)
            data["publicaly_available_post_id"] = [publish.post_id] if publish.post_id is not None else []
        return _ok(data)

    # --- helpers -------------------------------------------------------------------------------

    def _json_body(self, request: Request) -> dict[str, Any] | Answer:
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return _error(400, "invalid_params", "Content-Type must be application/json; charset=UTF-8.")
        if not isinstance(request.json, dict):
            return _error(400, "invalid_params", "The request body is not a JSON object.")
        return request.json

    def _check_post_info(self, user: TikTokUser, post_info: dict[str, Any], max_title: int) -> Answer | None:
        level = post_info.get("privacy_level")
        if level not in PRIVACY_LEVELS:
            return _error(400, "invalid_params", "privacy_level is required.")
        if level not in user.privacy_level_options:
            return _error(403, "privacy_level_option_mismatch", "privacy_level is not one of the creator's options.")
        if _utf16_units(str(post_info.get("title") or "")) > max_title:
            return _error(400, "invalid_params", "title is too long.")
        return None

    def _check_ownership(self, urls: list[str]) -> Answer | None:
        if self.verified_url_prefixes and not all(u.startswith(self.verified_url_prefixes) for u in urls):
            return _error(
                403,
                "url_ownership_unverified",
                "The domain or URL prefix of the media URL is not verified for this app.",
            )
        return None

    def _start(
        self, user: TikTokUser, media_type: str, prefix: str, post_info: dict[str, Any], urls: list[str]
    ) -> Answer:
        pulled = [_pull(url) for url in urls]
        fail_reason = self._fail_next
        self._fail_next = None
        pull_failure = "video_pull_failed" if media_type == "VIDEO" else "photo_pull_failed"
        if fail_reason is None and any(p.status != 200 or p.size == 0 for p in pulled):
            fail_reason = pull_failure
        if fail_reason is None and not all(_format_ok(media_type, p.head) for p in pulled):
            fail_reason = "file_format_check_failed"
        self._ids += 1 + secrets.randbelow(1000)
        publish = Publish(
            publish_id=f"{prefix}~v2.{self._ids}",
            open_id=user.open_id,
            media_type=media_type,
            post_info=dict(post_info),
            pulled=pulled,
            polls_left=self.processing_polls,
            fail_reason=fail_reason,
            post_id=self._ids if post_info.get("privacy_level") != "SELF_ONLY" else None,
        )
        self.publishes[publish.publish_id] = publish
        return _ok({"publish_id": publish.publish_id})


def _pull(url: str) -> Pulled:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # the URL Herald gave
            data = response.read()
            return Pulled(url, response.status, len(data), hashlib.sha256(data).hexdigest(), data[:16])
    except urllib.error.HTTPError as error:
        return Pulled(url, error.code, 0, "", b"")
    except (urllib.error.URLError, OSError, ValueError):
        return Pulled(url, None, 0, "", b"")


def _format_ok(media_type: str, head: bytes) -> bool:
    """TikTok takes MP4/WebM/MOV videos and JPEG/WebP photos."""
    if media_type == "VIDEO":
        return head[4:8] == b"ftyp" or head.startswith(b"\x1a\x45\xdf\xa3")
    return head.startswith(b"\xff\xd8\xff") or (head.startswith(b"RIFF") and head[8:12] == b"WEBP")


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _log_id() -> str:
    return time.strftime("%Y%m%d%H%M%S", time.gmtime()) + secrets.token_hex(10).upper()


def error_body(code: str, message: str) -> dict[str, Any]:
    """TikTok's envelope of a refusal (for a test's `fail`, e.g. with HTTP 200 or 429)."""
    return {"data": {}, "error": {"code": code, "message": message, "log_id": _log_id()}}


def _ok(data: dict[str, Any]) -> Answer:
    return answer(200, {"data": data, "error": {"code": "ok", "message": "", "log_id": _log_id()}})


def _error(status: int, code: str, message: str) -> Answer:
    return answer(status, error_body(code, message))


def _oauth_error(error: str, description: str) -> Answer:
    # TikTok's token endpoint answers its OAuth errors in the body, with HTTP 200 (⚠ observed,
    # not documented): a client must read `error`, not only the status.
    return answer(200, {"error": error, "error_description": description, "log_id": _log_id()})
