"""A fake X (API v2) on loopback: OAuth 2.0 with PKCE for a confidential client, media uploads
(simple and chunked) and posts, as X's API reference documents them (docs.x.com: OAuth 2.0
Authorization Code Flow with PKCE, media upload, manage posts).

Both of X's hosts, `x.com` (the authorization page) and `api.x.com` (everything else), map to
this one server (HERALD_PLATFORM_HOST_OVERRIDES). The authorization page approves at once, as
the user `sign_in_as` (the first user by default), and sends the browser to the redirect URI
with `code` and `state`. The token endpoint checks HTTP Basic client authentication, the code,
its redirect URI and the PKCE S256 verifier; refresh tokens rotate (each works once); revoking a
token ends all of the user's (the grant itself is oauth.py's). Every API call needs a live Bearer
token (401 otherwise).

Posted text is stored as X stores it: each URL becomes a t.co link (`entities.urls` says what it
stands for), and a post with media gets the media's t.co link appended, whose `expanded_url`
is the post's photo or video page (`media_links_in_text`).

A reply (`reply: {in_reply_to_tweet_id}`) must name a post that exists (403 otherwise, as X
answers a reply to a deleted post); it is kept as `Tweet.in_reply_to` (`replies_to` lists them)
and listed with `referenced_tweets: [{type: replied_to, id}]`.

Metrics: `GET /2/tweets?ids=` (up to 100) answers `public_metrics` for every post and
`non_public_metrics` (`impression_count`, `url_link_clicks`, `user_profile_clicks`) for the
caller's own posts of the last 30 days, with a `Field Authorization Error` for the others; a
deleted post is in `errors` as `resource-not-found`. The numbers are a test's (`set_metrics`),
zeros otherwise. The endpoint's limit is per user per window (`metrics_limit`, 900 a 15 minutes
unless a test says), with X's `x-rate-limit-*` headers; over it, 429. A user in
`metrics_forbidden` is refused 403, as a token without the read scopes is.
"""

from __future__ import annotations

import re
import secrets
import string
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.metrics_limits import MetricsLimit
from harness.fakes.platforms.oauth import CLIENT, GRANT_TYPE, REFRESH_TOKEN, Code, OAuthPlatform

SCOPES = ("tweet.read", "tweet.write", "users.read", "media.write", "offline.access")
CODE_LIFETIME = 30.0  # X's authorization codes are valid for 30 seconds
_URL = re.compile(r"https?://[^\s]+")
_MEDIA_KEY_PREFIX = {"image": 3, "gif": 16, "video": 7}  # X's media keys: <type>_<media id>


@dataclass
class XUser:
    id: str
    username: str
    name: str

    @property
    def profile_image_url(self) -> str:
        return f"https://pbs.twimg.com/profile_images/{self.id}/avatar_normal.jpg"


@dataclass
class Media:
    id: str
    owner: str
    kind: str  # image, video, gif
    total_bytes: int
    category: str
    received: int = 0
    sha256: list[str] = field(default_factory=list)
    finalized: bool = False
    status_polls_left: int = 0
    alt_text: str = ""

    @property
    def key(self) -> str:
        return f"{_MEDIA_KEY_PREFIX[self.kind]}_{self.id}"

    @property
    def state(self) -> str:
        if self.kind == "image":
            return "succeeded"
        if not self.finalized:
            return "pending"
        return "in_progress" if self.status_polls_left > 0 else "succeeded"


@dataclass
class Tweet:
    id: str
    author_id: str
    text: str  # as X stores it: t.co links
    posted_text: str  # as it was sent
    media_ids: list[str]
    urls: list[dict[str, Any]]
    created_at: float
    in_reply_to: str | None = None


class FakeX(OAuthPlatform):
    name = "x"
    hosts = ("api.x.com", "x.com")
    settings_name = "X"
    client_auth = ("basic",)  # a confidential client authenticates with HTTP Basic (docs.x.com)
    pkce = True
    code_lifetime = CODE_LIFETIME
    rotate_refresh_tokens = True
    revoke_ends_every_grant = True

    def __init__(
        self,
        *,
        client_id: str = "fake-x-client-id",
        client_secret: str = "fake-x-client-secret",
        access_token_lifetime: int = 7200,
        video_status_polls: int = 1,
        media_links_in_text: bool = True,
    ) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.access_token_lifetime = access_token_lifetime
        self.video_status_polls = video_status_polls
        self.media_links_in_text = media_links_in_text
        self.users: dict[str, XUser] = {}
        self.media: dict[str, Media] = {}
        self.tweets: list[Tweet] = []
        self._ids = 1_790_000_000_000_000_000
        # Metrics: each post's public and non-public numbers, the read limit, refused users.
        self.public_metrics: dict[str, dict[str, int]] = {}
        self.non_public_metrics: dict[str, dict[str, int]] = {}
        self.metrics_limit = MetricsLimit(limit=900, window=900)
        self.metrics_forbidden: set[str] = set()
        self.followers: dict[str, int] = {}  # GET /2/users/me's public_metrics.followers_count
        super().__init__()
        self.add_user("herald_fake", "Herald Fake")

    # --- test controls -------------------------------------------------------------------------

    def add_user(self, username: str, name: str = "") -> XUser:
        with self.lock:
            user = XUser(self._new_id(), username, name or username)
            self.users[user.id] = user
            self.sign_in_as = self.sign_in_as or user.id
            return user

    def user(self, username: str) -> XUser:
        return next(u for u in self.users.values() if u.username == username)

    def tweets_by(self, user_id: str, containing: str = "") -> list[Tweet]:
        with self.lock:
            return [t for t in self.tweets if t.author_id == user_id and containing in t.posted_text]

    def replies_to(self, tweet_id: str) -> list[Tweet]:
        with self.lock:
            return [t for t in self.tweets if t.in_reply_to == tweet_id]

    def set_metrics(self, tweet_id: str, public: dict[str, int], non_public: dict[str, int] | None = None) -> None:
        with self.lock:
            self.public_metrics[tweet_id] = dict(public)
            if non_public is not None:
                self.non_public_metrics[tweet_id] = dict(non_public)

    def delete_tweet(self, tweet_id: str) -> None:
        with self.lock:
            self.tweets = [t for t in self.tweets if t.id != tweet_id]

    def seed_tweets(self, user_id: str, count: int, created_at: float | None = None) -> list[str]:
        """`count` posts of the user made at once (a test's many published posts)."""
        at = time.time() if created_at is None else created_at
        made = []
        for n in range(count):
            tweet = Tweet(self._new_id(), user_id, f"seeded {n}", f"seeded {n}", [], [], at)
            made.append(tweet)
        with self.lock:
            self.tweets.extend(made)
        return [t.id for t in made]

    # --- routes --------------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        def r(method: str, path: str, handle) -> Route:
            return (method, re.compile(path), handle)

        return [
            r("GET", r"/i/oauth2/authorize", self.authorize),
            r("POST", r"/2/oauth2/token", self.token),
            r("POST", r"/2/oauth2/revoke", self.revoke),
            r("GET", r"/2/users/me", self.me),
            r("POST", r"/2/media/upload", self.upload),
            r("GET", r"/2/media/upload", self.upload_status),
            r("POST", r"/2/media/upload/initialize", self.initialize),
            r("POST", r"/2/media/upload/(?P<id>\d+)/append", self.append),
            r("POST", r"/2/media/upload/(?P<id>\d+)/finalize", self.finalize),
            r("POST", r"/2/media/metadata", self.metadata),
            r("POST", r"/2/tweets", self.create_tweet),
            r("GET", r"/2/tweets", self.lookup_tweets),
            r("GET", r"/2/users/(?P<id>\d+)/tweets", self.user_tweets),
        ]

    def not_found(self, request: Request) -> Answer:
        return _problem(404, "Not Found Error", "Sorry, that page does not exist.")

    # --- OAuth 2.0 (the grant is oauth.py's) -------------------------------------------------

    def authorization_refused(self, q: dict[str, str], scopes: tuple[str, ...]) -> Answer | None:
        if q.get("client_id") != self.client_id or not q.get("redirect_uri", "").startswith(("http://", "https://")):
            return answer(
                400, "<html><body>Something went wrong. You weren't able to give access to the App.</body></html>"
            )
        if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return answer(400, "<html><body>Something went wrong: invalid request.</body></html>")
        if not scopes or not set(scopes) <= set(SCOPES):
            return answer(400, "<html><body>Something went wrong: invalid scope.</body></html>")
        return None

    def approved_params(self, code: str, state: str, scopes: tuple[str, ...]) -> dict[str, str]:
        return {"state": state, "code": code}

    def token_refused(self, problem: str) -> Answer:
        if problem == CLIENT:
            return _unauthorized_client()
        if problem == REFRESH_TOKEN:
            return _oauth_error("Value passed for the token was invalid.")
        if problem == GRANT_TYPE:
            return answer(400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type"})
        return _oauth_error("Value passed for the authorization code was invalid.")

    def token_issued(self, grant_type: str, subject: str, scopes: tuple[str, ...], code: Code | None) -> Answer:
        body: dict[str, Any] = {
            "token_type": "bearer",
            "expires_in": self.access_token_lifetime,
            "access_token": self.grant_access(subject, scopes, lifetime=self.access_token_lifetime),
            "scope": " ".join(scopes),
        }
        if "offline.access" in scopes:
            body["refresh_token"] = self.grant_refresh(subject, scopes)
        return answer(200, body, cache_control="no-store")

    def revoke_refused(self) -> Answer:
        return _unauthorized_client()

    def revoked_answer(self, found: bool) -> Answer:
        return answer(200, {"revoked": True})

    # --- API -----------------------------------------------------------------------------------

    def _caller(self, request: Request, scope: str) -> XUser | Answer:
        grant = self.access_tokens.get(request.bearer or "")
        if grant is None or grant.revoked or grant.expired():
            return _problem(401, "Unauthorized", "Unauthorized")
        if scope not in grant.scopes:
            return _problem(403, "Forbidden", f"Missing scope {scope}")
        return self.users[grant.subject]

    def me(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "users.read")
        if isinstance(user, Answer):
            return user
        data = {"id": user.id, "name": user.name, "username": user.username}
        if "profile_image_url" in request.query.get("user.fields", ""):
            data["profile_image_url"] = user.profile_image_url
        if "public_metrics" in request.query.get("user.fields", ""):
            followers = self.followers.get(user.id, 0)
            data["public_metrics"] = {"followers_count": followers, "following_count": 0, "tweet_count": 0}
        return self._ok(200, {"data": data})

    def upload(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "media.write")
        if isinstance(user, Answer):
            return user
        part = (request.parts or {}).get("media")
        if part is None or part.filename is None or part.size == 0:
            return _invalid("media", "The `media` field is required.")
        category = (request.parts or {}).get("media_category")
        if category is None or category.value != "tweet_image" or not (part.content_type or "").startswith("image/"):
            return _invalid("media_category", "Simple upload takes images (media_category tweet_image).")
        if part.size > 5 * 1024 * 1024:
            return _invalid("media", "Image files must be 5 MB or smaller.")
        media = Media(self._new_id(), user.id, "image", part.size, "tweet_image", part.size, [part.sha256], True)
        self.media[media.id] = media
        return self._ok(200, {"data": self._media_data(media) | {"size": part.size}})

    def initialize(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "media.write")
        if isinstance(user, Answer):
            return user
        body = request.json if isinstance(request.json, dict) else {}
        category = body.get("media_category")
        if category not in ("tweet_video", "tweet_gif", "tweet_image") or not isinstance(body.get("total_bytes"), int):
            return _invalid("media_category", "media_category and total_bytes are required.")
        kind = {"tweet_video": "video", "tweet_gif": "gif", "tweet_image": "image"}[category]
        media = Media(self._new_id(), user.id, kind, body["total_bytes"], category)
        self.media[media.id] = media
        return self._ok(200, {"data": self._media_data(media)})

    def append(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "media.write")
        if isinstance(user, Answer):
            return user
        media = self.media.get(match["id"])
        if media is None or media.owner != user.id or media.finalized:
            return _invalid("id", "Invalid media id.")
        part = (request.parts or {}).get("media")
        index = (request.parts or {}).get("segment_index")
        if part is None or index is None or not (index.value or "").isdigit() or int(index.value or 0) > 999:
            return _invalid("segment_index", "media and segment_index (0-999) are required.")
        if part.size > 5 * 1024 * 1024:
            return _invalid("media", "A segment is at most 5 MB.")
        media.received += part.size
        media.sha256.append(part.sha256)
        return self._ok(200, {"data": {"expires_at": int(time.time()) + 86400}})

    def finalize(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "media.write")
        if isinstance(user, Answer):
            return user
        media = self.media.get(match["id"])
        if media is None or media.owner != user.id:
            return _invalid("id", "Invalid media id.")
        if media.received != media.total_bytes:
            return _invalid("total_bytes", f"Received {media.received} bytes of {media.total_bytes}.")
        media.finalized = True
        media.status_polls_left = self.video_status_polls if media.kind != "image" else 0
        return self._ok(200, {"data": self._media_data(media, processing=True) | {"size": media.total_bytes}})

    def upload_status(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "media.write")
        if isinstance(user, Answer):
            return user
        media = self.media.get(request.query.get("media_id", ""))
        if request.query.get("command") != "STATUS" or media is None or media.owner != user.id:
            return _invalid("media_id", "Invalid media id.")
        data = self._media_data(media, processing=True)
        if media.status_polls_left > 0:
            media.status_polls_left -= 1
        return self._ok(200, {"data": data})

    def metadata(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "media.write")
        if isinstance(user, Answer):
            return user
        body = request.json if isinstance(request.json, dict) else {}
        media = self.media.get(str(body.get("id", "")))
        text = ((body.get("metadata") or {}).get("alt_text") or {}).get("text")
        if media is None or media.owner != user.id or not isinstance(text, str) or len(text) > 1000:
            return _invalid("id", "Invalid media id or alt text.")
        media.alt_text = text
        return self._ok(200, {"data": {"id": media.id, "associated_metadata": {"alt_text": {"text": text}}}})

    def create_tweet(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, "tweet.write")
        if isinstance(user, Answer):
            return user
        body = request.json if isinstance(request.json, dict) else None
        if body is None:
            return _invalid("body", "The request body is not valid JSON.")
        text = body.get("text", "")
        media_ids = [str(m) for m in (body.get("media") or {}).get("media_ids") or []]
        if not isinstance(text, str) or (not text and not media_ids):
            return _invalid("text", "Tweet text or media is required.")
        known = [self.media.get(m) for m in media_ids]
        if len(media_ids) > 4 or any(m is None or m.owner != user.id or m.state != "succeeded" for m in known):
            return answer(
                400,
                {
                    "errors": [
                        {"parameters": {"media.media_ids": media_ids}, "message": "Your media IDs are invalid."}
                    ],
                    "title": "Invalid Request",
                    "detail": "One or more parameters to your request was invalid.",
                    "type": "https://api.twitter.com/2/problems/invalid-request",
                },
            )
        reply = body.get("reply")
        in_reply_to = str(reply.get("in_reply_to_tweet_id", "")) if isinstance(reply, dict) else None
        if reply is not None and not any(t.id == in_reply_to for t in self.tweets):
            return _problem(
                403, "Forbidden", "You attempted to reply to a Tweet that is deleted or not visible to you."
            )
        if any(t.author_id == user.id and t.posted_text == text for t in self.tweets):
            return _problem(403, "Forbidden", "You are not allowed to create a Tweet with duplicate content.")
        tweet_id = self._new_id()
        stored, urls = self._shorten(text)
        if media_ids and self.media_links_in_text:
            link = _tco()
            kind = "video" if any(m and m.kind != "image" for m in known) else "photo"
            start = len(stored) + (1 if stored else 0)
            stored = f"{stored} {link}" if stored else link
            urls.append(
                {
                    "start": start,
                    "end": start + len(link),
                    "url": link,
                    "expanded_url": f"https://x.com/{user.username}/status/{tweet_id}/{kind}/1",
                    "display_url": f"pic.x.com/{link.rsplit('/', 1)[-1]}",
                    "media_key": known[0].key if known[0] else "",
                }
            )
        self.tweets.append(Tweet(tweet_id, user.id, stored, text, media_ids, urls, time.time(), in_reply_to))
        return self._ok(201, {"data": {"id": tweet_id, "text": stored, "edit_history_tweet_ids": [tweet_id]}})

    def user_tweets(self, request: Request, match: re.Match[str]) -> Answer:
        caller = self._caller(request, "tweet.read")
        if isinstance(caller, Answer):
            return caller
        if match["id"] not in self.users:
            return _problem(404, "Not Found Error", "Could not find user.")
        q = request.query
        max_results = int(q.get("max_results", "10")) if q.get("max_results", "10").isdigit() else 0
        if not 5 <= max_results <= 100:
            return _invalid("max_results", "The `max_results` query parameter value must be between 5 and 100.")
        since, until = 0.0, float("inf")
        for name in ("start_time", "end_time"):
            if name in q:
                try:
                    at = datetime.fromisoformat(q[name].replace("Z", "+00:00")).timestamp()
                except ValueError:
                    return _invalid(name, f"Invalid {name}.")
                since, until = (at, until) if name == "start_time" else (since, at)
        # Pages are newest first; the token is the offset of the next page (opaque to clients).
        offset = int(q["pagination_token"]) if q.get("pagination_token", "").isdigit() else 0
        fields = set(q.get("tweet.fields", "").split(","))
        window = sorted(
            (t for t in self.tweets if t.author_id == match["id"] and since <= t.created_at <= until),
            key=lambda t: int(t.id),
            reverse=True,
        )
        found = window[offset : offset + max_results]
        if not found:
            return self._ok(200, {"meta": {"result_count": 0}})
        data = []
        for t in found:
            item: dict[str, Any] = {"id": t.id, "text": t.text, "edit_history_tweet_ids": [t.id]}
            if "created_at" in fields:
                item["created_at"] = datetime.fromtimestamp(t.created_at, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            if "entities" in fields and t.urls:
                item["entities"] = {"urls": t.urls}
            if t.media_ids:
                item["attachments"] = {"media_keys": [self.media[m].key for m in t.media_ids]}
            if "referenced_tweets" in fields and t.in_reply_to:
                item["referenced_tweets"] = [{"type": "replied_to", "id": t.in_reply_to}]
            data.append(item)
        meta = {"result_count": len(data), "newest_id": data[0]["id"], "oldest_id": data[-1]["id"]}
        if offset + max_results < len(window):
            meta["next_token"] = str(offset + max_results)
        return self._ok(200, {"data": data, "meta": meta})

    def lookup_tweets(self, request: Request, match: re.Match[str]) -> Answer:
        """GET /2/tweets?ids=: the posts' metrics, paced per user (see the module docstring)."""
        caller = self._caller(request, "tweet.read")
        if isinstance(caller, Answer):
            return caller
        if caller.id in self.metrics_forbidden:
            return _problem(403, "Forbidden", "You are not permitted to use this endpoint with this token.")
        verdict = self.metrics_limit.take(caller.id)
        limits = {
            "x_rate_limit_limit": str(verdict.limit),
            "x_rate_limit_remaining": str(verdict.remaining),
            "x_rate_limit_reset": str(int(verdict.reset)),
        }
        if not verdict.allowed:
            return answer(429, {"title": "Too Many Requests", "detail": "Too Many Requests", "status": 429}, **limits)
        ids = [i for i in request.query.get("ids", "").split(",") if i]
        if not 1 <= len(ids) <= 100 or not all(i.isdigit() for i in ids):
            return _invalid("ids", "The `ids` query parameter value must be 1 to 100 comma-separated post ids.")
        fields = set(request.query.get("tweet.fields", "").split(","))
        data, errors = [], []
        with self.lock:
            by_id = {t.id: t for t in self.tweets}
            for tweet_id in ids:
                tweet = by_id.get(tweet_id)
                if tweet is None:
                    errors.append(_not_found(tweet_id))
                    continue
                item: dict[str, Any] = {"id": tweet.id, "text": tweet.text, "edit_history_tweet_ids": [tweet.id]}
                public = self.public_metrics.get(tweet.id, {})
                if "public_metrics" in fields:
                    item["public_metrics"] = {name: public.get(name, 0) for name in _PUBLIC_METRICS}
                if "non_public_metrics" in fields:
                    own = tweet.author_id == caller.id and time.time() - tweet.created_at < 30 * 86400
                    if own:
                        private = self.non_public_metrics.get(tweet.id, {})
                        item["non_public_metrics"] = {name: private.get(name, 0) for name in _NON_PUBLIC_METRICS}
                    else:
                        errors.append(_field_refused(tweet.id))
                data.append(item)
        body: dict[str, Any] = {"data": data} if data else {}
        if errors:
            body["errors"] = errors
        return answer(200, body, **limits)

    # --- helpers -------------------------------------------------------------------------------

    def _ok(self, status: int, body: Any) -> Answer:
        reset = str(int(time.time()) + 900)
        return answer(status, body, x_rate_limit_limit="100", x_rate_limit_remaining="99", x_rate_limit_reset=reset)

    def _media_data(self, media: Media, *, processing: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"id": media.id, "media_key": media.key, "expires_after_secs": 86400}
        if processing and media.kind != "image":
            info: dict[str, Any] = {"state": media.state}
            if media.state != "succeeded":
                info["check_after_secs"] = 1
                info["progress_percent"] = 50
            else:
                info["progress_percent"] = 100
            data["processing_info"] = info
        return data

    def _new_id(self) -> str:
        with self.lock:
            self._ids += 1 + secrets.randbelow(1000)
            return str(self._ids)

    def _shorten(self, text: str) -> tuple[str, list[dict[str, Any]]]:
        """X's link wrapping: each URL in the text becomes a t.co link of 23 characters."""
        urls: list[dict[str, Any]] = []
        out, last = [], 0
        for found in _URL.finditer(text):
            out.append(text[last : found.start()])
            link = _tco()
            start = sum(len(p) for p in out)
            out.append(link)
            original = found.group(0)
            display = re.sub(r"^https?://(www\.)?", "", original)
            urls.append(
                {
                    "start": start,
                    "end": start + len(link),
                    "url": link,
                    "expanded_url": original,
                    "display_url": display if len(display) <= 26 else display[:25] + "…",
                }
            )
            last = found.end()
        out.append(text[last:])
        return "".join(out), urls


_PUBLIC_METRICS = ("retweet_count", "reply_count", "like_count", "quote_count", "bookmark_count", "impression_count")
_NON_PUBLIC_METRICS = ("impression_count", "url_link_clicks", "user_profile_clicks")


def _not_found(tweet_id: str) -> dict[str, Any]:
    return {
        "value": tweet_id,
        "detail": f"Could not find tweet with ids: [{tweet_id}].",
        "title": "Not Found Error",
        "resource_type": "tweet",
        "parameter": "ids",
        "resource_id": tweet_id,
        "type": "https://api.twitter.com/2/problems/resource-not-found",
    }


def _field_refused(tweet_id: str) -> dict[str, Any]:
    return {
        "value": tweet_id,
        "detail": "Sorry, you are not authorized to access 'non_public_metrics' on the Tweet with ids.",
        "title": "Field Authorization Error",
        "resource_type": "tweet",
        "field": "non_public_metrics",
        "parameter": "tweet.fields",
        "resource_id": tweet_id,
        "section": "data",
        "type": "https://api.twitter.com/2/problems/not-authorized-for-field",
    }


def _tco() -> str:
    return "https://t.co/" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(10))


def _problem(status: int, title: str, detail: str) -> Answer:
    return answer(status, {"title": title, "type": "about:blank", "status": status, "detail": detail})


def _invalid(parameter: str, message: str) -> Answer:
    return answer(
        400,
        {
            "errors": [{"parameters": {parameter: []}, "message": message}],
            "title": "Invalid Request",
            "detail": "One or more parameters to your request was invalid.",
            "type": "https://api.twitter.com/2/problems/invalid-request",
        },
    )


def _unauthorized_client() -> Answer:
    return answer(401, {"error": "unauthorized_client", "error_description": "Missing valid authorization header"})


def _oauth_error(description: str) -> Answer:
    return answer(400, {"error": "invalid_request", "error_description": description})
