"""A fake Mastodon instance on loopback, as docs.joinmastodon.org documents it (methods/apps,
methods/oauth, methods/media, methods/statuses): app registration (`POST /api/v1/apps`), OAuth 2.0 (Doorkeeper: code grant with
optional PKCE S256, client_secret_post or Basic, no refresh tokens, tokens that do not expire),
revocation (of that token only; the grant is oauth.py's), `verify_credentials`, media (an image is ready at once: 200; a video is processed
asynchronously: 202, then `GET /api/v1/media/:id` answers 206 until it is ready, then 200) and
statuses, which honour `Idempotency-Key` per account (the same key answers the first status).
A reply (`in_reply_to_id`) must name a status the account may see (its own, or another's that
is not private or direct; 404 otherwise, as Mastodon answers); `replies_to` lists replies.

Metrics: `GET /api/v1/statuses?id[]=` (4.3 and later; up to 20, those the caller may see, the
rest left out) and `GET /api/v1/statuses/:id` answer each status with its `replies_count`,
`reblogs_count`, `favourites_count` and `quotes_count` (a test's `status_metrics`, zeros
otherwise); with `batch_lookup` off the instance is older than 4.3 (the batch method is 404).
Both need `read:statuses` and are limited per account (`metrics_limit`, 300 a 5 minutes), with
Mastodon's `X-RateLimit-*` headers (the reset in ISO 8601); over it, 429.

Users name the instance by its URL: Herald is given this server's base URL directly
(HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES lets it reach loopback over http).
"""

from __future__ import annotations

import html
import re
import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.metrics_limits import MetricsLimit
from harness.fakes.platforms.oauth import CLIENT, GRANT_TYPE, Code, OAuthPlatform

MAX_CHARACTERS = 500
MAX_MEDIA = 4
PRIVATE = ("private", "direct")  # visibilities only their author (and those named) may see


@dataclass
class Account:
    id: str
    username: str
    display_name: str


@dataclass
class App:
    id: str
    name: str
    client_id: str
    client_secret: str
    redirect_uris: list[str]
    scopes: list[str]
    website: str


@dataclass
class Attachment:
    id: str
    account_id: str
    type: str  # image, video, gifv
    description: str
    size: int
    sha256: str
    polls_left: int = 0  # GETs answered 206 before it is processed


@dataclass
class Status:
    id: str
    account_id: str
    text: str
    visibility: str
    media_ids: list[str]
    idempotency_key: str | None
    created_at: float = field(default_factory=time.time)
    in_reply_to_id: str | None = None


class FakeMastodon(OAuthPlatform):
    name = "mastodon"
    client_auth = ("basic", "form")
    pkce = True  # optional: a code asked for without a challenge is exchanged without a verifier
    default_scope = "read"

    def __init__(self, *, video_processing_polls: int = 1) -> None:
        self.video_processing_polls = video_processing_polls
        self.accounts: dict[str, Account] = {}
        self.apps: dict[str, App] = {}
        self.media: dict[str, Attachment] = {}
        self.statuses: list[Status] = []
        self.idempotency: dict[tuple[str, str], Status] = {}
        self._ids = 113_000_000_000_000_000
        self.status_metrics: dict[str, dict[str, int]] = {}
        self.metrics_limit = MetricsLimit(limit=300, window=300)
        self.batch_lookup = True
        super().__init__()
        self.add_account("herald", "Herald on the fake")

    # --- test controls -------------------------------------------------------------------------

    def add_account(self, username: str, display_name: str = "") -> Account:
        with self.lock:
            account = Account(self._new_id(), username, display_name or username)
            self.accounts[account.id] = account
            self.sign_in_as = self.sign_in_as or account.id
            return account

    def account(self, username: str) -> Account:
        return next(a for a in self.accounts.values() if a.username == username)

    def statuses_by(self, account_id: str, containing: str = "") -> list[Status]:
        with self.lock:
            return [s for s in self.statuses if s.account_id == account_id and containing in s.text]

    def replies_to(self, status_id: str) -> list[Status]:
        with self.lock:
            return [s for s in self.statuses if s.in_reply_to_id == status_id]

    def delete_status(self, status_id: str) -> None:
        with self.lock:
            self.statuses = [s for s in self.statuses if s.id != status_id]

    def status_url(self, status: Status) -> str:
        return f"{self.base_url}/@{self.accounts[status.account_id].username}/{status.id}"

    # --- routes --------------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        def r(method: str, path: str, handle) -> Route:
            return (method, re.compile(path), handle)

        return [
            r("POST", r"/api/v1/apps", self.register_app),
            r("GET", r"/oauth/authorize", self.authorize),
            r("POST", r"/oauth/token", self.token),
            r("POST", r"/oauth/revoke", self.revoke),
            r("GET", r"/api/v1/accounts/verify_credentials", self.verify_credentials),
            r("POST", r"/api/v2/media", self.upload),
            r("GET", r"/api/v1/media/(?P<id>\d+)", self.media_status),
            r("POST", r"/api/v1/statuses", self.create_status),
            r("GET", r"/api/v1/statuses", self.lookup_statuses),
            r("GET", r"/api/v1/statuses/(?P<id>\d+)", self.get_status),
        ]

    def not_found(self, request: Request) -> Answer:
        return answer(404, {"error": "Record not found"})

    # --- apps and OAuth ------------------------------------------------------------------------

    def register_app(self, request: Request, match: re.Match[str]) -> Answer:
        params = request.params()
        name = str(params.get("client_name") or "").strip()
        redirect_uris = params.get("redirect_uris") or ""
        uris = redirect_uris if isinstance(redirect_uris, list) else str(redirect_uris).split()
        if not name:
            return answer(422, {"error": "Validation failed: Application name can't be blank"})
        if not uris:
            return answer(422, {"error": "Validation failed: Redirect URI can't be blank"})
        scopes = str(params.get("scopes") or "read").split()
        app = App(self._new_id(), name, secrets.token_urlsafe(32), secrets.token_urlsafe(32), uris, scopes, "")
        app.website = str(params.get("website") or "")
        self.apps[app.client_id] = app
        return answer(
            200,
            {
                "id": app.id,
                "name": app.name,
                "website": app.website or None,
                "scopes": app.scopes,
                "redirect_uri": "\n".join(app.redirect_uris),
                "redirect_uris": app.redirect_uris,
                "vapid_key": "BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=",
                "client_id": app.client_id,
                "client_secret": app.client_secret,
                "client_secret_expires_at": 0,
            },
        )

    # The authorization-code grant is oauth.py's; what is Mastodon's:

    def authorization_refused(self, q: dict[str, str], scopes: tuple[str, ...]) -> Answer | None:
        app = self.apps.get(q.get("client_id", ""))
        if app is None or q.get("redirect_uri") not in app.redirect_uris:
            return answer(400, "<html><body>The redirect uri included is not valid.</body></html>")
        if q.get("response_type") != "code" or not set(scopes) <= set(app.scopes):
            return self.back_to_client(q["redirect_uri"], error="invalid_scope", state=q.get("state", ""))
        if q.get("code_challenge") and q.get("code_challenge_method") != "S256":
            return self.back_to_client(q["redirect_uri"], error="invalid_request", state=q.get("state", ""))
        return None

    def client_secret_of(self, client_id: str) -> str | None:
        app = self.apps.get(client_id)
        return app.client_secret if app is not None else None

    def refreshes(self) -> bool:
        return False  # Mastodon's tokens do not expire, and it issues no refresh tokens

    def new_access_token(self) -> str:
        return secrets.token_urlsafe(32)

    def token_refused(self, problem: str) -> Answer:
        if problem == CLIENT:
            description = (
                "Client authentication failed due to unknown client, no client authentication included, "
                "or unsupported authentication method."
            )
            return answer(401, {"error": "invalid_client", "error_description": description})
        if problem == GRANT_TYPE:
            description = "The authorization grant type is not supported by the authorization server."
            return answer(400, {"error": "unsupported_grant_type", "error_description": description})
        description = (
            "The provided authorization grant is invalid, expired, revoked, does not match the redirection "
            "URI used in the authorization request, or was issued to another client."
        )
        return answer(400, {"error": "invalid_grant", "error_description": description})

    def token_issued(self, grant_type: str, subject: str, scopes: tuple[str, ...], code: Code | None) -> Answer:
        assert code is not None  # the only grant Mastodon takes
        access = self.grant_access(subject, scopes, client_id=code.client_id)
        body = {
            "access_token": access,
            "token_type": "Bearer",
            "scope": " ".join(scopes),
            "created_at": int(time.time()),
        }
        return answer(200, body)

    def revoke_refused(self) -> Answer:
        description = "You are not authorized to revoke this token"
        return answer(403, {"error": "unauthorized_client", "error_description": description})

    # --- API -----------------------------------------------------------------------------------

    def _caller(self, request: Request, scope: str) -> Account | Answer:
        token = self.access_tokens.get(request.bearer or "")
        if token is None or token.revoked:
            return answer(401, {"error": "The access token is invalid"})
        if scope not in token.scopes and scope.split(":", 1)[0] not in token.scopes:
            return answer(403, {"error": "This action is outside the authorized scopes"})
        return self.accounts[token.subject]

    def verify_credentials(self, request: Request, match: re.Match[str]) -> Answer:
        account = self._caller(request, "read:accounts")
        if isinstance(account, Answer):
            return account
        return self._ok(200, self._account(account) | {"source": {"privacy": "public", "sensitive": False, "note": ""}})

    def upload(self, request: Request, match: re.Match[str]) -> Answer:
        account = self._caller(request, "write:media")
        if isinstance(account, Answer):
            return account
        parts = request.parts or {}
        file = parts.get("file")
        if file is None or file.filename is None or file.size == 0:
            return answer(422, {"error": "Validation failed: File can't be blank"})
        mime = (file.content_type or "").lower()
        kind = (
            "image"
            if mime.startswith("image/") and mime != "image/gif"
            else "gifv"
            if mime == "image/gif"
            else "video"
            if mime.startswith("video/")
            else ""
        )
        if not kind:
            return answer(422, {"error": "Validation failed: File content type is invalid"})
        description = parts["description"].value if "description" in parts else ""
        if description and len(description) > 1500:
            return answer(422, {"error": "Validation failed: Description is too long (maximum is 1500 characters)"})
        attachment = Attachment(self._new_id(), account.id, kind, description or "", file.size, file.sha256)
        if kind != "image":
            attachment.polls_left = self.video_processing_polls
        self.media[attachment.id] = attachment
        return self._ok(200 if kind == "image" else 202, self._attachment(attachment))

    def media_status(self, request: Request, match: re.Match[str]) -> Answer:
        account = self._caller(request, "write:media")
        if isinstance(account, Answer):
            return account
        attachment = self.media.get(match["id"])
        if attachment is None or attachment.account_id != account.id:
            return answer(404, {"error": "Record not found"})
        if attachment.polls_left > 0:
            attachment.polls_left -= 1
            return self._ok(206, self._attachment(attachment))
        return self._ok(200, self._attachment(attachment))

    def create_status(self, request: Request, match: re.Match[str]) -> Answer:
        account = self._caller(request, "write:statuses")
        if isinstance(account, Answer):
            return account
        key = request.headers.get("idempotency-key")
        if key and (account.id, key) in self.idempotency:
            return self._ok(200, self._status(self.idempotency[(account.id, key)]))
        params = request.params()
        text = str(params.get("status") or "")
        media_ids = params.get("media_ids") or []
        media_ids = [str(m) for m in (media_ids if isinstance(media_ids, list) else [media_ids])]
        visibility = str(params.get("visibility") or "public")
        if not text.strip() and not media_ids:
            return answer(422, {"error": "Validation failed: Text can't be blank"})
        if len(text) > MAX_CHARACTERS:
            return answer(422, {"error": f"Validation failed: Text character limit of {MAX_CHARACTERS} exceeded"})
        if visibility not in ("public", "unlisted", "private", "direct"):
            return answer(422, {"error": "Validation failed: Visibility is not included in the list"})
        attachments = [self.media.get(m) for m in media_ids]
        if len(media_ids) > MAX_MEDIA or any(a is None or a.account_id != account.id for a in attachments):
            return answer(422, {"error": "Validation failed: Media IDs are invalid"})
        if any(a is not None and a.polls_left > 0 for a in attachments):
            return answer(
                422, {"error": "Cannot attach files that have not finished processing. Try again in a moment!"}
            )
        in_reply_to = str(params["in_reply_to_id"]) if params.get("in_reply_to_id") else None
        parent = next((s for s in self.statuses if s.id == in_reply_to), None)
        if in_reply_to and (parent is None or (parent.account_id != account.id and parent.visibility in PRIVATE)):
            return answer(404, {"error": "Record not found"})
        status = Status(self._new_id(), account.id, text, visibility, media_ids, key, in_reply_to_id=in_reply_to)
        self.statuses.append(status)
        if key:
            self.idempotency[(account.id, key)] = status
        return self._ok(200, self._status(status))

    # --- shapes --------------------------------------------------------------------------------

    def _ok(self, status: int, body: Any) -> Answer:
        reset = datetime.fromtimestamp(time.time() + 300, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return answer(status, body, x_ratelimit_limit="300", x_ratelimit_remaining="299", x_ratelimit_reset=reset)

    def _account(self, account: Account) -> dict[str, Any]:
        return {
            "id": account.id,
            "username": account.username,
            "acct": account.username,
            "display_name": account.display_name,
            "locked": False,
            "bot": False,
            "created_at": "2024-01-01T00:00:00.000Z",
            "note": "",
            "url": f"{self.base_url}/@{account.username}",
            "avatar": f"{self.base_url}/avatars/{account.id}.png",
            "avatar_static": f"{self.base_url}/avatars/{account.id}.png",
            "header": f"{self.base_url}/headers/missing.png",
            "followers_count": 0,
            "following_count": 0,
            "statuses_count": len([s for s in self.statuses if s.account_id == account.id]),
        }

    def _attachment(self, attachment: Attachment) -> dict[str, Any]:
        ready = attachment.polls_left == 0
        url = f"{self.base_url}/system/media_attachments/{attachment.id}/original"
        return {
            "id": attachment.id,
            "type": attachment.type,
            "url": url if ready else None,
            "preview_url": f"{url}/small",
            "remote_url": None,
            "text_url": None,
            "meta": {},
            "description": attachment.description or None,
            "blurhash": None,
        }

    def _status(self, status: Status) -> dict[str, Any]:
        account = self.accounts[status.account_id]
        domain = self.base_url.split("://", 1)[1]
        return {
            "id": status.id,
            "created_at": datetime.fromtimestamp(status.created_at, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "in_reply_to_id": status.in_reply_to_id,
            "in_reply_to_account_id": self._replied_account(status),
            "sensitive": False,
            "spoiler_text": "",
            "visibility": status.visibility,
            "language": "en",
            "uri": f"http://{domain}/users/{account.username}/statuses/{status.id}",
            "url": self.status_url(status),
            "content": f"<p>{html.escape(status.text)}</p>",
            "media_attachments": [self._attachment(self.media[m]) for m in status.media_ids],
            "account": self._account(account),
            **self._counts(status.id),
        }

    def _counts(self, status_id: str) -> dict[str, int]:
        numbers = self.status_metrics.get(status_id, {})
        names = ("replies_count", "reblogs_count", "favourites_count", "quotes_count")
        return {name: numbers.get(name, 0) for name in names}

    def lookup_statuses(self, request: Request, match: re.Match[str]) -> Answer:
        if not self.batch_lookup:
            return self.not_found(request)
        ids = [v for k, v in parse_qsl(request.raw_query) if k == "id[]"]
        if not 1 <= len(ids) <= 20:
            return answer(422, {"error": "Validation failed: id[] takes 1 to 20 ids"})
        return self._metered(request, lambda caller: [self._status(s) for i in ids if (s := self._visible(i, caller))])

    def get_status(self, request: Request, match: re.Match[str]) -> Answer:
        def one(caller: Account) -> Any:
            status = self._visible(match["id"], caller)
            return self._status(status) if status is not None else None

        return self._metered(request, one)

    def _metered(self, request: Request, body) -> Answer:
        caller = self._caller(request, "read:statuses")
        if isinstance(caller, Answer):
            return caller
        verdict = self.metrics_limit.take(caller.id)
        reset = datetime.fromtimestamp(verdict.reset, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        limits = {
            "x_ratelimit_limit": str(verdict.limit),
            "x_ratelimit_remaining": str(verdict.remaining),
            "x_ratelimit_reset": reset,
        }
        if not verdict.allowed:
            return answer(429, {"error": "Too many requests"}, **limits)
        with self.lock:
            found = body(caller)
        if found is None:
            return answer(404, {"error": "Record not found"}, **limits)
        return answer(200, found, **limits)

    def _visible(self, status_id: str, caller: Account) -> Status | None:
        status = next((s for s in self.statuses if s.id == status_id), None)
        if status is None or (status.visibility in PRIVATE and status.account_id != caller.id):
            return None
        return status

    def _replied_account(self, status: Status) -> str | None:
        return next((s.account_id for s in self.statuses if s.id == status.in_reply_to_id), None)

    def _new_id(self) -> str:
        with self.lock:
            self._ids += 1 + secrets.randbelow(1000)
            return str(self._ids)
