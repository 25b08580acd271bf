"""Fake Threads and Instagram on loopback: Meta's login and its Graph container flow, as
developers.facebook.com documents them (docs/threads-api, docs/instagram-platform).

Login: the authorization page approves at once as `sign_in_as` and sends the browser to the
redirect URI with `code` and `state` (and Meta's `#_`, which no browser sends on). The code is
exchanged once (`POST /oauth/access_token`, client id and secret in the form) for a short-lived
token (1 h) and `user_id`; `GET /access_token?grant_type=th_exchange_token|ig_exchange_token`
turns that into a long-lived one (60 days), which `GET /refresh_access_token` renews while it
is unexpired and at least `min_refresh_age` old (Meta: 24 h). Every Graph call takes the token
as `Authorization: Bearer` or `access_token`; a bad one is Graph error 190. The code grant is
oauth.py's; the long-lived exchange and refresh are Meta's own, here.

Publishing: `POST /{user}/threads|media` makes a container. Like Meta, the fake fetches the
media from `image_url`/`video_url` itself (urllib, so a signed storage URL is proven to answer);
`fetches` keeps what it got. A container is FINISHED at once unless `process_as` says otherwise
(IN_PROGRESS for some polls, then ERROR with the platform's message, or a publish that is made
and never answered). `POST /{user}/threads_publish|media_publish {creation_id}` makes the post;
`GET /{id}?fields=…` reads a container's status or a post's permalink; `GET /{user}/threads|media`
lists posts newest first (`since`, `until`, `limit`). Errors are Graph envelopes
`{"error": {message, type, code, error_subcode, fbtrace_id}}`.

Replies (Threads' `reply_to_id`) and comments (Instagram's `/{ig-media-id}/comments`) are
graph_replies.py's.

Hosts: Threads is `threads.net` (login page) and `graph.threads.net`; Instagram is
`www.instagram.com` (login page), `api.instagram.com` (code exchange) and `graph.instagram.com`.
Each platform's hosts map to its one server (HERALD_PLATFORM_HOST_OVERRIDES).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar
from urllib.parse import urlsplit

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.graph_ig_insights import MANAGE_INSIGHTS as IG_MANAGE_INSIGHTS
from harness.fakes.platforms.graph_ig_insights import InstagramInsights
from harness.fakes.platforms.graph_insights import ThreadsInsights
from harness.fakes.platforms.graph_replies import InstagramComments, ThreadsReplies
from harness.fakes.platforms.graph_shapes import cursor, graph_error, no_object, pick, timestamp
from harness.fakes.platforms.oauth import CLIENT, GRANT_TYPE, REDIRECT_URI, Code, Grant, OAuthPlatform

SHORT_LIVED = 3600
LONG_LIVED = 60 * 86400
DAY = 86400.0
FINISHED, IN_PROGRESS, PUBLISHED, ERROR = "FINISHED", "IN_PROGRESS", "PUBLISHED", "ERROR"
_VERSION = r"/v\d+\.\d+"
# Graph's answer to a request it failed to handle (HTTP 500): nothing was made, try again.
TRANSIENT_ERROR = {
    "error": {
        "message": "An unexpected error has occurred. Please retry your request later.",
        "type": "OAuthException",
        "is_transient": True,
        "code": 2,
        "fbtrace_id": "AfakeTransient",
    }
}


@dataclass
class GraphUser:
    id: str  # the id the API is called with (/{id}/threads, /{id}/media)
    username: str
    name: str
    app_scoped_id: str  # Instagram's `id` in /me (Threads: the same as `id`)


@dataclass(frozen=True)
class Fetch:
    """What the fake got when it fetched a container's media, as Meta does."""

    url: str
    status: int | None  # None: no answer (or not an absolute http(s) URL)
    size: int
    sha256: str
    content_type: str


@dataclass
class Processing:
    """What happens to a container whose text contains `containing` (see `process_as`)."""

    containing: str
    polls: int
    error: str | None
    hang_publish: float | None
    fail_publish: bool = False


@dataclass
class Container:
    id: str
    owner: str
    media_type: str
    text: str
    image_url: str = ""
    video_url: str = ""
    children: list[str] = field(default_factory=list)
    is_carousel_item: bool = False
    status: str = FINISHED
    error_message: str = ""
    polls_left: int = 0  # status reads answered IN_PROGRESS before it settles
    polls: list[str] = field(default_factory=list)  # every status read, as answered
    published_as: str | None = None
    created_at: float = field(default_factory=time.time)
    reply_to: str = ""  # Threads: the post this container replies to (`reply_to_id`)


@dataclass
class GraphPost:
    id: str
    owner: str
    container: str
    media_type: str
    text: str
    children: list[str]
    shortcode: str
    permalink: str
    created_at: float = field(default_factory=time.time)
    reply_to: str = ""  # Threads: the post this one replies to


class FakeGraph(OAuthPlatform):
    """The login and the container flow both platforms share; subclasses set their names."""

    code_lifetime = 3600.0
    scope_separator = r"[,\s]+"
    denial = {"error": "access_denied", "error_reason": "user_denied", "error_description": "Permissions error"}
    # Meta appends `#_` to the redirect: not part of the code, and never sent by a browser.
    redirect_suffix = "#_"

    create_edge: ClassVar[str]
    publish_edge: ClassVar[str]
    text_field: ClassVar[str]
    status_field: ClassVar[str]
    message_field: ClassVar[str]
    exchange_grant: ClassVar[str]
    refresh_grant: ClassVar[str]
    scopes: ClassVar[tuple[str, ...]]  # the basic scope first, then the publishing one, then replies/comments
    max_text: ClassVar[int]
    max_children: ClassVar[int]
    image_types: ClassVar[tuple[str, ...]]
    token_prefix: ClassVar[str]

    def __init__(self, *, client_id: str, client_secret: str, min_refresh_age: float = DAY) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.min_refresh_age = min_refresh_age
        self.users: dict[str, GraphUser] = {}
        self.containers: dict[str, Container] = {}
        self.posts: dict[str, GraphPost] = {}
        self.fetches: list[Fetch] = []
        self.processing: list[Processing] = []
        self._ids = 17_890_000_000_000_000
        super().__init__()
        self.add_user("herald_fake", "Herald Fake")

    # --- test controls -------------------------------------------------------------------------

    def add_user(self, username: str, name: str = "") -> GraphUser:
        with self.lock:
            user_id = self._new_id()
            user = GraphUser(user_id, username, name or username, self._app_scoped(user_id))
            self.users[user.id] = user
            self.sign_in_as = self.sign_in_as or user.id
            return user

    def user(self, username: str) -> GraphUser:
        return next(u for u in self.users.values() if u.username == username)

    def process_as(
        self,
        containing: str,
        *,
        polls: int = 0,
        error: str | None = None,
        hang_publish: float | None = None,
        fail_publish: bool = False,
    ) -> None:
        """A container made from now on whose text contains `containing` answers IN_PROGRESS to
        `polls` status reads, then ERROR with `error` (the platform's message) or FINISHED; with
        `hang_publish`, its publish makes the post and is never answered (for that many seconds);
        with `fail_publish`, its first publish is answered Graph's transient 500 and makes nothing."""
        with self.lock:
            self.processing.append(Processing(containing, polls, error, hang_publish, fail_publish))

    def posts_by(self, user_id: str, containing: str = "") -> list[GraphPost]:
        with self.lock:
            return [p for p in self.posts.values() if p.owner == user_id and containing in p.text]

    def containers_of(self, user_id: str, containing: str = "") -> list[Container]:
        with self.lock:
            return [c for c in self.containers.values() if c.owner == user_id and containing in c.text]

    # --- what differs per platform -------------------------------------------------------------

    def _app_scoped(self, user_id: str) -> str:
        return user_id

    def identity(self, user: GraphUser) -> dict[str, Any]:
        raise NotImplementedError

    def code_answer(self, access: str, grant: Grant) -> dict[str, Any]:
        return {"access_token": access, "user_id": int(grant.subject)}

    def code_refused(self, message: str) -> Answer:
        return graph_error(400, message, code=100)

    def container_fields(self, container: Container) -> dict[str, Any]:
        raise NotImplementedError

    def item_form(self, form: dict[str, str]) -> tuple[str, str] | Answer:
        """A container's media type and media field name, or the refusal."""
        raise NotImplementedError

    def fetch_refused(self, container: Container, fetched: Fetch) -> Answer | None:
        """Meta's answer to media it could not fetch: None makes the container ERROR instead."""
        return None

    def post_fields(self, post: GraphPost) -> dict[str, Any]:
        raise NotImplementedError

    def new_permalink(self, user: GraphUser, shortcode: str) -> str:
        raise NotImplementedError

    def listed(self, post: GraphPost) -> bool:
        return True

    def reply_refused(self, request: Request, user: GraphUser, form: dict[str, str]) -> Answer | None:
        """Threads takes `reply_to_id` (graph_replies.py); Instagram has no replies."""
        if "reply_to_id" in form:
            return graph_error(400, "Invalid parameter: reply_to_id", code=100)
        return None

    # --- routes --------------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        def r(method: str, path: str, handle) -> Route:
            return (method, re.compile(path), handle)

        user = r"(?P<user>\d+|me)"
        return [
            r("GET", r"/oauth/authorize/?", self.authorize),
            r("POST", r"/oauth/access_token", self.token),
            r("GET", r"/access_token", self.exchange_long_lived),
            r("GET", r"/refresh_access_token", self.refresh),
            r("GET", rf"{_VERSION}/me", self.me),
            r("POST", rf"{_VERSION}/{user}/{self.create_edge}", self.create_container),
            r("GET", rf"{_VERSION}/{user}/{self.create_edge}", self.list_posts),
            r("POST", rf"{_VERSION}/{user}/{self.publish_edge}", self.publish),
            r("GET", rf"{_VERSION}/(?P<id>\d+)", self.read_object),
        ]

    def not_found(self, request: Request) -> Answer:
        return graph_error(400, f"Unknown path components: {request.path}", code=2500)

    def not_allowed(self, request: Request) -> Answer:
        return graph_error(400, f"Unsupported {request.method.lower()} request.", code=100)

    # --- login (the code grant is oauth.py's) ------------------------------------------------

    def authorization_refused(self, q: dict[str, str], scopes: tuple[str, ...]) -> Answer | None:
        if q.get("client_id") != self.client_id or not q.get("redirect_uri", "").startswith(("http://", "https://")):
            return answer(400, "<html><body>Invalid platform app</body></html>")
        if q.get("response_type") != "code" or self.scopes[0] not in scopes or not set(scopes) <= set(self.scopes):
            return answer(400, "<html><body>Invalid Scopes: " + ",".join(scopes) + "</body></html>")
        return None

    def new_code(self) -> str:
        return secrets.token_urlsafe(48)

    def new_access_token(self) -> str:
        return self.token_prefix + secrets.token_urlsafe(96)

    def refreshes(self) -> bool:
        return False  # a long-lived token is refreshed with itself (`refresh`), not a refresh token

    def token_refused(self, problem: str) -> Answer:
        if problem == CLIENT:
            return self.code_refused("Error validating client secret.")
        if problem == GRANT_TYPE:
            return self.code_refused("Unsupported grant_type")
        if problem == REDIRECT_URI:
            return self.code_refused(
                "Error validating verification code. Please make sure your redirect_uri is identical"
            )
        return self.code_refused("Matching code was not found or was already used")

    def token_issued(self, grant_type: str, subject: str, scopes: tuple[str, ...], code: Code | None) -> Answer:
        access = self._issue(subject, scopes, long_lived=False)
        return answer(200, self.code_answer(access, self.access_tokens[access]))

    def exchange_long_lived(self, request: Request, match: re.Match[str]) -> Answer:
        q = request.query
        if q.get("grant_type") != self.exchange_grant:
            return graph_error(400, "Unsupported grant_type", code=100)
        if q.get("client_secret") != self.client_secret:
            return graph_error(400, "Error validating client secret.", code=1)
        grant = self._valid(q.get("access_token", ""))
        if isinstance(grant, Answer):
            return grant
        if grant.long_lived:
            return graph_error(400, "A long-lived token cannot be exchanged again.", code=100)
        access = self._issue(grant.subject, grant.scopes, long_lived=True)
        self.grants.append((self.exchange_grant, grant.subject))
        return answer(200, {"access_token": access, "token_type": "bearer", "expires_in": LONG_LIVED})

    def refresh(self, request: Request, match: re.Match[str]) -> Answer:
        q = request.query
        if q.get("grant_type") != self.refresh_grant:
            return graph_error(400, "Unsupported grant_type", code=100)
        grant = self._valid(q.get("access_token", ""))
        if isinstance(grant, Answer):
            return grant
        if not grant.long_lived:
            return graph_error(400, "Only long-lived tokens can be refreshed.", code=100)
        if time.time() - grant.issued_at < self.min_refresh_age:
            return graph_error(400, "The access token must be at least 24 hours old to be refreshed.", code=100)
        access = self._issue(grant.subject, grant.scopes, long_lived=True)
        self.grants.append((self.refresh_grant, grant.subject))
        return answer(200, {"access_token": access, "token_type": "bearer", "expires_in": LONG_LIVED})

    def _issue(self, user_id: str, scopes: tuple[str, ...], *, long_lived: bool) -> str:
        lifetime = LONG_LIVED if long_lived else SHORT_LIVED
        return self.grant_access(user_id, scopes, lifetime=lifetime, long_lived=long_lived)

    def _valid(self, token: str) -> Grant | Answer:
        grant = self.access_tokens.get(token)
        if grant is None:
            return graph_error(400, "Invalid OAuth access token - Cannot parse access token", code=190)
        if grant.revoked:
            return graph_error(
                400, "Error validating access token: The user has not authorized application.", code=190, subcode=458
            )
        if grant.expired():
            ended = datetime.fromtimestamp(grant.expires_at, UTC).strftime("%A, %d-%b-%y %H:%M:%S UTC")
            return graph_error(400, f"Error validating access token: Session has expired on {ended}.", 190, 463)
        return grant

    # --- Graph ---------------------------------------------------------------------------------

    def _caller(self, request: Request, *, publishing: bool = False) -> GraphUser | Answer:
        token = request.bearer or request.query.get("access_token") or (request.form or {}).get("access_token", "")
        grant = self._valid(token)
        if isinstance(grant, Answer):
            return Answer(grant.status, grant.body, {"WWW-Authenticate": 'OAuth "Facebook Platform" "invalid_token"'})
        if publishing and self.scopes[1] not in grant.scopes:
            return graph_error(403, "Application does not have permission for this action", code=10)
        return self.users[grant.subject]

    def _owner(self, user: GraphUser, named: str) -> bool:
        return named in ("me", user.id, user.app_scoped_id)

    def me(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request)
        if isinstance(user, Answer):
            return user
        return answer(200, pick(self.identity(user), request.query.get("fields", "")))

    def create_container(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, publishing=True)
        if isinstance(user, Answer):
            return user
        if not self._owner(user, match["user"]):
            return no_object(match["user"], "post")
        form = {**request.query, **(request.form or {})}
        form.pop("access_token", None)
        refused = self.reply_refused(request, user, form)
        if refused is not None:
            return refused
        text = form.get(self.text_field, "")
        if len(text) > self.max_text:
            return graph_error(400, f"Param {self.text_field} must be at most {self.max_text} characters long.", 100)
        item = form.get("is_carousel_item") == "true"
        if form.get("media_type") == "CAROUSEL":
            if item:
                return graph_error(400, "A carousel cannot be a carousel item.", code=100)
            refused = self._check_children(user, form.get("children", ""))
            if refused is not None:
                return refused
            container = Container(self._new_id(), user.id, "CAROUSEL", text, children=form["children"].split(","))
        else:
            kind = self.item_form(form)
            if isinstance(kind, Answer):
                return kind
            media_type, url_field = kind
            container = Container(self._new_id(), user.id, media_type, text, is_carousel_item=item)
            if url_field:
                setattr(container, url_field, form[url_field])
                fetched = self._fetch(form[url_field])
                if fetched.status != 200 or not self._fetched_type_ok(media_type, fetched):
                    refused = self.fetch_refused(container, fetched)
                    if refused is not None:
                        return refused
                    container.status = ERROR
                    container.error_message = "FAILED_DOWNLOADING_VIDEO" if url_field == "video_url" else "UNKNOWN"
        container.reply_to = form.get("reply_to_id", "")
        self._apply_processing(container)
        self.containers[container.id] = container
        return answer(200, {"id": container.id})

    def _check_children(self, user: GraphUser, children: str) -> Answer | None:
        ids = [c for c in children.split(",") if c]
        if not 2 <= len(ids) <= self.max_children:
            return graph_error(400, f"A carousel holds 2 to {self.max_children} items.", code=100)
        for child in ids:
            found = self.containers.get(child)
            if found is None or found.owner != user.id or not found.is_carousel_item:
                return graph_error(400, f"The carousel item {child} is not a carousel item of this user.", code=100)
            if found.status != FINISHED:
                return graph_error(
                    400, "The media is not ready for publishing, please wait for a moment", 9007, 2207027
                )
        return None

    def _fetched_type_ok(self, media_type: str, fetched: Fetch) -> bool:
        if media_type in ("VIDEO", "REELS"):
            return fetched.content_type.startswith("video/")
        if media_type == "STORIES":
            return fetched.content_type.startswith(("video/", *self.image_types))
        return fetched.content_type.startswith(self.image_types)

    def _fetch(self, url: str) -> Fetch:
        """Meta fetches the media itself: the URL must be absolute and answer 200."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            fetched = Fetch(url, None, 0, "", "")
        else:
            request = urllib.request.Request(url, headers={"User-Agent": "facebookexternalhit/1.1"})
            try:
                with urllib.request.urlopen(request, timeout=10) as response:  # http(s) only
                    data = response.read()
                    fetched = Fetch(
                        url,
                        response.status,
                        len(data),
                        hashlib.sha256(data).hexdigest(),
                        response.headers.get("Content-Type", ""),
                    )
            except urllib.error.HTTPError as error:
                fetched = Fetch(url, error.code, 0, "", "")
            except (urllib.error.URLError, OSError):
                fetched = Fetch(url, None, 0, "", "")
        self.fetches.append(fetched)
        return fetched

    def _apply_processing(self, container: Container) -> None:
        if container.is_carousel_item or container.status == ERROR:
            return
        for rule in self.processing:
            if rule.containing and rule.containing in container.text:
                container.polls_left = rule.polls
                if rule.error is not None:
                    container.error_message = rule.error
                publish = rf"{_VERSION}/(\d+|me)/{self.publish_edge}"
                if rule.hang_publish is not None:
                    self.hang_after_receive(
                        "POST", publish, seconds=rule.hang_publish, body_contains=f"creation_id={container.id}"
                    )
                if rule.fail_publish:
                    self.fail(
                        "POST",
                        publish,
                        500,
                        TRANSIENT_ERROR,
                        {"Content-Type": "application/json"},
                        body_contains=f"creation_id={container.id}",
                    )
                return

    def _status_read(self, container: Container) -> str:
        """The container's status as one read answers it (IN_PROGRESS reads are used up)."""
        if container.status == FINISHED and container.polls_left > 0:
            container.polls_left -= 1
            status = IN_PROGRESS
        elif container.status == FINISHED and container.error_message:
            container.status = status = ERROR
        else:
            status = container.status
        container.polls.append(status)
        return status

    def read_object(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request)
        if isinstance(user, Answer):
            return user
        fields = request.query.get("fields", "")
        container = self.containers.get(match["id"])
        if container is not None and container.owner == user.id:
            self._status_read(container)
            return answer(200, pick(self.container_fields(container), fields))
        post = self.posts.get(match["id"])
        if post is not None and post.owner == user.id:
            return answer(200, pick(self.post_fields(post), fields))
        return no_object(match["id"], "get")

    def publish(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request, publishing=True)
        if isinstance(user, Answer):
            return user
        if not self._owner(user, match["user"]):
            return no_object(match["user"], "post")
        creation_id = {**request.query, **(request.form or {})}.get("creation_id", "")
        container = self.containers.get(creation_id)
        if container is None or container.owner != user.id or container.is_carousel_item:
            return graph_error(400, "Media ID is not available", 9007, 2207032)
        if container.status == PUBLISHED:
            return graph_error(400, "The media has already been published.", 9007, 2207032)
        if container.status != FINISHED or container.polls_left > 0 or container.error_message:
            return graph_error(400, "The media is not ready for publishing, please wait for a moment", 9007, 2207027)
        shortcode = "".join(secrets.choice(string.ascii_letters + string.digits + "_-") for _ in range(11))
        post = GraphPost(
            self._new_id(),
            user.id,
            container.id,
            container.media_type,
            container.text,
            list(container.children),
            shortcode,
            self.new_permalink(user, shortcode),
            reply_to=container.reply_to,
        )
        self.posts[post.id] = post
        container.status = PUBLISHED
        container.published_as = post.id
        return answer(200, {"id": post.id})

    def list_posts(self, request: Request, match: re.Match[str]) -> Answer:
        user = self._caller(request)
        if isinstance(user, Answer):
            return user
        if not self._owner(user, match["user"]):
            return no_object(match["user"], "get")
        q = request.query
        try:
            since = float(q.get("since", "0"))
            until = float(q.get("until", "inf"))
            limit = int(q.get("limit", "25"))
        except ValueError:
            return graph_error(400, "Invalid parameter: since, until and limit are numbers.", code=100)
        found = sorted(
            (
                p
                for p in self.posts.values()
                if p.owner == user.id and self.listed(p) and since <= p.created_at <= until
            ),
            key=lambda p: p.created_at,
            reverse=True,
        )[: max(1, min(limit, 100))]
        data = [pick(self.post_fields(p), q.get("fields", "")) for p in found]
        paging = {"cursors": {"before": cursor(found[0].id), "after": cursor(found[-1].id)}} if found else {}
        return answer(200, {"data": data, "paging": paging})

    def _new_id(self) -> str:
        with self.lock:
            self._ids += 1 + secrets.randbelow(100_000)
            return str(self._ids)


class FakeThreads(ThreadsInsights, ThreadsReplies, FakeGraph):
    name = "threads"
    hosts = ("threads.net", "www.threads.net", "graph.threads.net")
    settings_name = "THREADS"
    create_edge = "threads"
    publish_edge = "threads_publish"
    text_field = "text"
    status_field = "status"
    message_field = "error_message"
    exchange_grant = "th_exchange_token"
    refresh_grant = "th_refresh_token"
    scopes = ("threads_basic", "threads_content_publish", "threads_manage_replies", "threads_manage_insights")
    max_text = 500
    max_children = 20
    image_types = ("image/jpeg", "image/png")
    token_prefix = "TH"

    def __init__(self, *, client_id: str = "fake-threads-app", client_secret: str = "fake-threads-secret") -> None:
        self.init_insights()
        super().__init__(client_id=client_id, client_secret=client_secret)

    def routes(self) -> list[Route]:
        return self.insights_routes() + super().routes()

    def identity(self, user: GraphUser) -> dict[str, Any]:
        return {
            "id": user.id,
            "username": user.username,
            "name": user.name,
            "threads_profile_picture_url": f"https://scontent.cdninstagram.com/v/t51.2885-19/{user.id}_n.jpg",
            "threads_biography": "",
        }

    def item_form(self, form: dict[str, str]) -> tuple[str, str] | Answer:
        media_type = form.get("media_type", "")
        if media_type == "TEXT":
            if form.get("is_carousel_item") == "true" or not form.get("text", "").strip():
                return graph_error(400, "The parameter text is required for a TEXT post.", code=100)
            return "TEXT", ""
        field_name = {"IMAGE": "image_url", "VIDEO": "video_url"}.get(media_type)
        if field_name is None:
            return graph_error(400, "Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}", code=100)
        if not form.get(field_name):
            return graph_error(400, f"The parameter {field_name} is required.", code=100)
        return media_type, field_name

    def container_fields(self, container: Container) -> dict[str, Any]:
        status = container.polls[-1] if container.polls else container.status
        out: dict[str, Any] = {"id": container.id, "status": status}
        if status == ERROR:
            out["error_message"] = container.error_message
        return out

    def post_fields(self, post: GraphPost) -> dict[str, Any]:
        media_type = {"TEXT": "TEXT_POST", "CAROUSEL": "CAROUSEL_ALBUM"}.get(post.media_type, post.media_type)
        return {
            "id": post.id,
            "media_product_type": "THREADS",
            "media_type": media_type,
            "text": post.text,
            "permalink": post.permalink,
            "shortcode": post.shortcode,
            "timestamp": timestamp(post.created_at),
            "username": self.users[post.owner].username,
            "is_quote_post": False,
        } | self.reply_fields(post)

    def new_permalink(self, user: GraphUser, shortcode: str) -> str:
        return f"https://www.threads.net/@{user.username}/post/{shortcode}"


class FakeInstagram(InstagramInsights, InstagramComments, FakeGraph):
    name = "instagram"
    hosts = ("www.instagram.com", "api.instagram.com", "graph.instagram.com")
    settings_name = "INSTAGRAM"
    create_edge = "media"
    publish_edge = "media_publish"
    text_field = "caption"
    status_field = "status_code"
    message_field = "status"
    exchange_grant = "ig_exchange_token"
    refresh_grant = "ig_refresh_token"
    scopes = (
        "instagram_business_basic",
        "instagram_business_content_publish",
        "instagram_business_manage_comments",
        IG_MANAGE_INSIGHTS,
    )
    max_text = 2200
    max_children = 10
    image_types = ("image/jpeg",)  # Instagram publishes JPEG images only
    token_prefix = "IGAA"

    def __init__(self, *, client_id: str = "fake-instagram-app", client_secret: str = "fake-instagram-secret") -> None:
        self.init_insights()
        super().__init__(client_id=client_id, client_secret=client_secret)

    def routes(self) -> list[Route]:
        return self.insights_routes() + super().routes()

    def _app_scoped(self, user_id: str) -> str:
        return str(int(user_id) + 7_000_000_000_000_000)

    def identity(self, user: GraphUser) -> dict[str, Any]:
        return {
            "id": user.app_scoped_id,
            "user_id": user.id,
            "username": user.username,
            "name": user.name,
            "account_type": "BUSINESS",
            "profile_picture_url": f"https://scontent.cdninstagram.com/v/t51.2885-19/{user.id}_a.jpg",
        }

    def code_answer(self, access: str, grant: Grant) -> dict[str, Any]:
        return {"access_token": access, "user_id": int(grant.subject), "permissions": list(grant.scopes)}

    def code_refused(self, message: str) -> Answer:
        # api.instagram.com answers in its own envelope, not Graph's.
        return answer(400, {"error_type": "OAuthException", "code": 400, "error_message": message})

    def item_form(self, form: dict[str, str]) -> tuple[str, str] | Answer:
        media_type = form.get("media_type", "")
        item = form.get("is_carousel_item") == "true"
        if media_type == "" and form.get("image_url"):
            return "IMAGE", "image_url"
        if media_type == "VIDEO" and item and form.get("video_url"):
            return "VIDEO", "video_url"
        if media_type == "REELS" and not item and form.get("video_url"):
            return "REELS", "video_url"
        if media_type == "STORIES" and not item and (form.get("image_url") or form.get("video_url")):
            return "STORIES", "image_url" if form.get("image_url") else "video_url"
        return graph_error(
            400,
            "The parameter image_url is required.",
            code=100,
            user_title="Missing media",
            user_msg="Instagram posts need an image or a video.",
        )

    def fetch_refused(self, container: Container, fetched: Fetch) -> Answer | None:
        if container.media_type in ("IMAGE", "STORIES") and container.image_url:
            return graph_error(
                400,
                "Only photo or video can be accepted as media type.",
                9004,
                2207052,
                user_title="Media download has failed.",
                user_msg=f"The media could not be fetched from this URI: {fetched.url}",
            )
        return None

    def container_fields(self, container: Container) -> dict[str, Any]:
        status = container.polls[-1] if container.polls else container.status
        words = {
            FINISHED: "Finished: Media has been uploaded and it is complete.",
            IN_PROGRESS: "In Progress: Media is still being processed.",
            PUBLISHED: "Published: Media has been published.",
            ERROR: container.error_message or "Error: Media upload has failed with error code 2207001",
        }
        return {"id": container.id, "status_code": status, "status": words.get(status, status)}

    def post_fields(self, post: GraphPost) -> dict[str, Any]:
        media_type = {"CAROUSEL": "CAROUSEL_ALBUM", "REELS": "VIDEO"}.get(post.media_type, post.media_type)
        return {
            "id": post.id,
            "caption": post.text,
            "media_type": media_type,
            "media_product_type": "REELS" if post.media_type == "REELS" else "FEED",
            "permalink": post.permalink,
            "shortcode": post.shortcode,
            "timestamp": timestamp(post.created_at),
            "username": self.users[post.owner].username,
        }

    def new_permalink(self, user: GraphUser, shortcode: str) -> str:
        return f"https://www.instagram.com/p/{shortcode}/"

    def listed(self, post: GraphPost) -> bool:
        return post.media_type != "STORIES"  # stories are not among an account's listed media
