"""A fake YouTube on loopback: Google's OAuth 2.0 (PKCE, `access_type=offline` for a refresh
token, refresh tokens that do not rotate), `channels.list?mine=true`, and the resumable upload
of `videos.insert` (developers.google.com/youtube/v3/guides/using_resumable_upload_protocol,
developers.google.com/identity/protocols/oauth2/web-server).

Google's hosts map to this one server: `accounts.google.com` (the consent page, which approves
at once as `sign_in_as`), `oauth2.googleapis.com` (token, revoke) and `www.googleapis.com`
(the Data API and its upload path). The client authenticates with HTTP Basic or in the form;
revoking a token needs no client and ends all of the user's (the grant is oauth.py's).

The upload: `POST /upload/youtube/v3/videos?uploadType=resumable` with the metadata answers 200
and the session URI in `Location`. A `PUT` of the session carries bytes: the whole file, or a
`Content-Range: bytes a-b/total` part (resuming); a body ending before the total answers 308
with `Range: bytes=0-N` (what the session holds), the last byte answers 201 with the video
resource. `PUT` with `Content-Range: bytes */total` and no body asks how far the session got:
308 (with `Range` once it holds bytes) or the video. The bytes are kept, so a test compares
their SHA-256 with what it uploaded. `drop_upload_after(n)` makes the next PUT carrying bytes
read `n` of them, keep them and drop the connection without an answer (a lost upload).

Comments (`commentThreads`) are youtube_comments.py's; video statistics and subscribers
youtube_metrics.py's; Analytics reports (`youtubeanalytics.googleapis.com`) youtube_analytics.py's.

API errors are Google's `{"error": {"code", "message", "errors": [{"message", "domain",
"reason"}], "status"}}`; the token endpoint's are OAuth's (`invalid_grant`...).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import socket
import string
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.google import google_error
from harness.fakes.platforms.oauth import CLIENT, GRANT_TYPE, REFRESH_TOKEN, Code, OAuthPlatform
from harness.fakes.platforms.youtube_analytics import ANALYTICS_HOST, ANALYTICS_SCOPE, MONETARY_SCOPE, YouTubeAnalytics
from harness.fakes.platforms.youtube_comments import FORCE_SSL_SCOPE, MANAGE_SCOPE, READONLY_SCOPE, YouTubeComments
from harness.fakes.platforms.youtube_metrics import YouTubeStatistics

UPLOAD_SCOPE = "https://www.googleapis.com/auth/youtube.upload"
SCOPES = (UPLOAD_SCOPE, READONLY_SCOPE, FORCE_SSL_SCOPE, ANALYTICS_SCOPE)  # force-ssl: first comments
KNOWN_SCOPES = (*SCOPES, MANAGE_SCOPE, MONETARY_SCOPE, "openid", "email", "profile")
UPLOAD_PATH = "/upload/youtube/v3/videos"
CODE_LIFETIME = 600.0
MAX_TITLE_CHARS = 100
MAX_DESCRIPTION_BYTES = 5000
_CONTENT_RANGE = re.compile(r"bytes (?:(\d+)-(\d+)|\*)/(\d+|\*)")


@dataclass
class Channel:
    id: str
    title: str
    custom_url: str  # the @handle

    @property
    def thumbnail(self) -> str:
        return f"https://yt3.ggpht.com/ytc/{self.id}=s88-c-k-c0x00ffffff-no-rj"


@dataclass
class Video:
    id: str
    channel_id: str
    title: str
    description: str
    category_id: str
    privacy_status: str
    size: int
    sha256: str
    upload_id: str
    published_at: float = field(default_factory=time.time)


@dataclass
class Session:
    upload_id: str
    channel_id: str
    metadata: dict[str, Any]
    total: int
    content_type: str
    data: bytearray = field(default_factory=bytearray)
    video_id: str | None = None
    puts: int = 0  # PUTs that carried bytes

    @property
    def held(self) -> int:
        return len(self.data)


class FakeYouTube(YouTubeAnalytics, YouTubeStatistics, YouTubeComments, OAuthPlatform):
    name = "youtube"
    hosts = ("www.googleapis.com", "oauth2.googleapis.com", "accounts.google.com", ANALYTICS_HOST)
    settings_name = "YOUTUBE"
    client_auth = ("basic", "form")
    pkce = True  # optional: a code asked for without a challenge is exchanged without a verifier
    code_lifetime = CODE_LIFETIME
    revoke_authenticates = False
    revoke_ends_every_grant = True

    def __init__(
        self,
        *,
        client_id: str = "fake-youtube.apps.googleusercontent.com",
        client_secret: str = "GOCSPX-fake-youtube-secret",
        access_token_lifetime: int = 3599,
        verified_project: bool = False,
    ) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.access_token_lifetime = access_token_lifetime
        # An unverified API project's uploads are locked to private, whatever is asked.
        self.verified_project = verified_project
        self.channels: dict[str, Channel] = {}
        self.sessions: dict[str, Session] = {}
        self.videos: list[Video] = []
        self._drops: list[tuple[int, float, str]] = []  # (bytes to read, seconds to hold, title part)
        self.init_statistics()  # video statistics and subscribers: youtube_metrics.py
        self.init_analytics()  # watch time and shares: youtube_analytics.py
        super().__init__()
        self.add_channel("Herald Fake", "@heraldfake")

    # --- test controls -------------------------------------------------------------------------

    def add_channel(self, title: str, custom_url: str) -> Channel:
        with self.lock:
            channel = Channel("UC" + _random(22), title, custom_url)
            self.channels[channel.id] = channel
            self.sign_in_as = self.sign_in_as or channel.id
            return channel

    def channel(self, custom_url: str) -> Channel:
        return next(c for c in self.channels.values() if c.custom_url == custom_url)

    def drop_upload_after(self, received: int, *, title_contains: str = "", hold_seconds: float = 0.0) -> None:
        """The next PUT carrying bytes to a session (of a video whose title contains
        `title_contains`): `received` bytes are read and kept, the connection is held
        `hold_seconds`, then dropped without an answer."""
        with self.lock:
            self._drops.append((received, hold_seconds, title_contains))

    def videos_by(self, channel_id: str, containing: str = "") -> list[Video]:
        with self.lock:
            return [
                v
                for v in self.videos
                if v.channel_id == channel_id and (containing in v.title or containing in v.description)
            ]

    def session_of(self, video: Video) -> Session:
        return self.sessions[video.upload_id]

    # --- routes --------------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        def r(method: str, path: str, handle) -> Route:
            return (method, re.compile(path), handle)

        return [
            r("GET", r"/o/oauth2/v2/auth", self.authorize),
            r("POST", r"/token", self.token),
            r("POST", r"/revoke", self.revoke),
            r("GET", r"/youtube/v3/channels", self.channels_list),
            r("POST", UPLOAD_PATH, self.start_upload),
            r("PUT", UPLOAD_PATH, self.upload),
            *self.comment_routes(),
            *self.statistics_routes(),
            *self.analytics_routes(),
        ]

    def not_found(self, request: Request) -> Answer:
        return google_error(404, "notFound", "Not Found")

    # --- OAuth 2.0 (the grant is oauth.py's) -------------------------------------------------

    def authorization_refused(self, q: dict[str, str], scopes: tuple[str, ...]) -> Answer | None:
        redirect_uri = q.get("redirect_uri", "")
        if q.get("client_id") != self.client_id:
            return answer(401, "<html><body>Error 401: invalid_client. The OAuth client was not found.</body></html>")
        if not redirect_uri.startswith(("http://", "https://")):
            return answer(400, "<html><body>Error 400: redirect_uri_mismatch</body></html>")
        if q.get("response_type") != "code":
            return self.back_to_client(redirect_uri, error="unsupported_response_type", state=q.get("state", ""))
        if not scopes or not set(scopes) <= set(KNOWN_SCOPES):
            return answer(400, "<html><body>Error 400: invalid_scope</body></html>")
        if q.get("code_challenge") and q.get("code_challenge_method") != "S256":
            return answer(400, "<html><body>Error 400: invalid_request (code_challenge_method)</body></html>")
        return None

    def approved_params(self, code: str, state: str, scopes: tuple[str, ...]) -> dict[str, str]:
        return {"state": state, "code": code, "scope": " ".join(scopes), "authuser": "0", "prompt": "consent"}

    def new_code(self) -> str:
        return "4/0A" + _random(60)

    def new_access_token(self) -> str:
        return "ya29.a0" + _random(150)

    def new_refresh_token(self) -> str:
        return "1//0" + _random(100)

    def token_refused(self, problem: str) -> Answer:
        if problem == CLIENT:
            return answer(401, {"error": "invalid_client", "error_description": "Unauthorized"})
        if problem == REFRESH_TOKEN:
            return answer(400, {"error": "invalid_grant", "error_description": "Token has been expired or revoked."})
        if problem == GRANT_TYPE:
            return answer(400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type"})
        return answer(400, {"error": "invalid_grant", "error_description": "Bad Request"})

    def token_issued(self, grant_type: str, subject: str, scopes: tuple[str, ...], code: Code | None) -> Answer:
        body: dict[str, Any] = {
            "access_token": self.grant_access(subject, scopes, lifetime=self.access_token_lifetime),
            "expires_in": self.access_token_lifetime,
            "scope": " ".join(scopes),
            "token_type": "Bearer",
        }
        # Google issues a refresh token with offline access only; refreshing keeps the one it has.
        if code is not None and code.params.get("access_type") == "offline":
            body["refresh_token"] = self.grant_refresh(subject, scopes)
        return answer(200, body, cache_control="no-cache, no-store, max-age=0, must-revalidate")

    def revoked_token(self, request: Request) -> str:
        return (request.form or {}).get("token") or request.query.get("token", "")

    def revoked_answer(self, found: bool) -> Answer:
        if not found:
            return answer(400, {"error": "invalid_token", "error_description": "Token expired or revoked"})
        return answer(200, {})

    # --- Data API ------------------------------------------------------------------------------

    def _caller(self, request: Request, *any_of: str) -> Channel | Answer:
        grant = self.access_tokens.get(request.bearer or "")
        if grant is None or grant.revoked or grant.expired():
            return google_error(
                401,
                "authError",
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie "
                "or other valid authentication credential.",
                location="Authorization",
            )
        if not set(any_of) & set(grant.scopes):
            return google_error(403, "insufficientPermissions", "Request had insufficient authentication scopes.")
        return self.channels[grant.subject]

    def channels_list(self, request: Request, match: re.Match[str]) -> Answer:
        channel = self._caller(request, READONLY_SCOPE, MANAGE_SCOPE)
        if isinstance(channel, Answer):
            return channel
        q = request.query
        if "part" not in q:
            return google_error(400, "required", "No filter selected. Expected one of: mine, id, forHandle…")
        item: dict[str, Any] = {"kind": "youtube#channel", "etag": _random(27), "id": channel.id}
        if "snippet" in q["part"].split(","):
            thumbnail = {"url": channel.thumbnail, "width": 88, "height": 88}
            item["snippet"] = {
                "title": channel.title,
                "description": "",
                "customUrl": channel.custom_url,
                "publishedAt": "2020-01-01T00:00:00Z",
                "thumbnails": {"default": thumbnail},
                "localized": {"title": channel.title, "description": ""},
            }
        if "statistics" in q["part"].split(","):
            item["statistics"] = self.channel_statistics(channel.id)
        items = [item] if q.get("mine") == "true" else []
        return answer(
            200,
            {
                "kind": "youtube#channelListResponse",
                "etag": _random(27),
                "pageInfo": {"totalResults": len(items), "resultsPerPage": 5},
                "items": items,
            },
        )

    def start_upload(self, request: Request, match: re.Match[str]) -> Answer:
        channel = self._caller(request, UPLOAD_SCOPE, MANAGE_SCOPE)
        if isinstance(channel, Answer):
            return channel
        q = request.query
        if q.get("uploadType") != "resumable":
            return google_error(400, "badRequest", "This fake takes resumable uploads only.")
        parts = set(q.get("part", "").split(","))
        metadata = request.json if isinstance(request.json, dict) else None
        if metadata is None or not parts or not parts <= {"snippet", "status", "contentDetails"}:
            return google_error(400, "badRequest", "The request metadata or its parts are invalid.")
        length = request.headers.get("x-upload-content-length", "")
        content_type = request.headers.get("x-upload-content-type", "")
        if not length.isdigit() or int(length) == 0:
            return google_error(400, "badContent", "X-Upload-Content-Length is required.")
        if not (content_type.startswith("video/") or content_type == "application/octet-stream"):
            return google_error(400, "invalidContentType", "The media type is not a video.")
        snippet = metadata.get("snippet") if "snippet" in parts else None
        title = (snippet or {}).get("title")
        if (
            not isinstance(title, str)
            or not title.strip()
            or len(title) > MAX_TITLE_CHARS
            or any(c in title for c in "<>")
        ):
            return google_error(400, "invalidTitle", "The request metadata specifies an invalid video title.")
        description = (snippet or {}).get("description") or ""
        if len(description.encode()) > MAX_DESCRIPTION_BYTES or any(c in description for c in "<>"):
            return google_error(
                400, "invalidDescription", "The request metadata specifies an invalid video description."
            )
        privacy = ((metadata.get("status") or {}) if "status" in parts else {}).get("privacyStatus", "public")
        if privacy not in ("public", "private", "unlisted"):
            return google_error(400, "invalidVideoMetadata", "The request metadata is invalid (privacyStatus).")
        upload_id = "AHVAw" + _random(80)
        self.sessions[upload_id] = Session(upload_id, channel.id, metadata, int(length), content_type)
        location = (
            "https://www.googleapis.com"
            + UPLOAD_PATH
            + "?"
            + urlencode({"uploadType": "resumable", "part": q["part"], "upload_id": upload_id})
        )
        return answer(200, None, Location=location, X_GUploader_UploadID=upload_id)

    def upload(self, request: Request, match: re.Match[str]) -> Answer:
        session = self.sessions.get(request.query.get("upload_id", ""))
        if session is None:
            return google_error(404, "notFound", "The upload session was not found or has expired.")
        content_range = request.headers.get("content-range", "")
        found = _CONTENT_RANGE.fullmatch(content_range.strip()) if content_range else None
        if content_range and found is None:
            return google_error(400, "badRequest", "Failed to parse Content-Range header.")
        if found is not None and found.group(3) != "*" and int(found.group(3)) != session.total:
            return google_error(400, "badRequest", "The Content-Range total does not match the upload's length.")
        if found is not None and found.group(1) is None:  # bytes */total: how far did it get?
            if request.body:
                return google_error(400, "badRequest", "A status query carries no bytes.")
            return self._progress(session)
        if session.video_id is not None:
            return self._progress(session)  # complete already: the video again
        start = int(found.group(1)) if found is not None else 0
        if found is not None and int(found.group(2)) - start + 1 != len(request.body):
            return google_error(400, "badRequest", "The Content-Range does not match the body's length.")
        if start > session.held or start + len(request.body) > session.total:
            return google_error(400, "badRequest", "The bytes do not continue the upload.")
        session.puts += 1
        del session.data[start:]
        session.data += request.body
        return self._progress(session, created=True)

    def _progress(self, session: Session, *, created: bool = False) -> Answer:
        if session.video_id is None and session.held == session.total:
            self._finish(session)
        if session.video_id is None:
            headers = {"Range": f"bytes=0-{session.held - 1}"} if session.held else {}
            return Answer(308, None, {**headers, "X-GUploader-UploadID": session.upload_id})
        video = next(v for v in self.videos if v.id == session.video_id)
        return answer(201 if created else 200, self._resource(video))

    def _finish(self, session: Session) -> None:
        snippet = session.metadata.get("snippet") or {}
        asked = (session.metadata.get("status") or {}).get("privacyStatus", "public")
        video = Video(
            id=_random(11, string.ascii_letters + string.digits + "-_"),
            channel_id=session.channel_id,
            title=snippet.get("title", ""),
            description=snippet.get("description") or "",
            category_id=str(snippet.get("categoryId") or "22"),
            privacy_status=asked if self.verified_project else "private",
            size=session.held,
            sha256=hashlib.sha256(session.data).hexdigest(),
            upload_id=session.upload_id,
        )
        self.videos.append(video)
        session.video_id = video.id

    def _resource(self, video: Video) -> dict[str, Any]:
        channel = self.channels[video.channel_id]
        published = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(video.published_at))
        return {
            "kind": "youtube#video",
            "etag": _random(27),
            "id": video.id,
            "snippet": {
                "publishedAt": published,
                "channelId": video.channel_id,
                "title": video.title,
                "description": video.description,
                "thumbnails": {"default": {"url": f"https://i.ytimg.com/vi/{video.id}/default.jpg"}},
                "channelTitle": channel.title,
                "categoryId": video.category_id,
                "liveBroadcastContent": "none",
                "localized": {"title": video.title, "description": video.description},
            },
            "status": {
                "uploadStatus": "uploaded",
                "privacyStatus": video.privacy_status,
                "license": "youtube",
                "embeddable": True,
                "publicStatsViewable": True,
                "selfDeclaredMadeForKids": False,
            },
        }

    # --- a lost upload -------------------------------------------------------------------------

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        split = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        if handler.command == "PUT" and split.path == UPLOAD_PATH and length > 0:
            drop = self._take_drop(dict(parse_qsl(split.query)).get("upload_id", ""))
            if drop is not None:
                self._drop(handler, split.query, length, *drop)
                return
        super()._serve(handler)

    def _take_drop(self, upload_id: str) -> tuple[int, float] | None:
        with self.lock:
            session = self.sessions.get(upload_id)
            title = str((session.metadata.get("snippet") or {}).get("title", "")) if session else ""
            for drop in self._drops:
                if session is not None and drop[2] in title:
                    self._drops.remove(drop)
                    return drop[0], drop[1]
        return None

    def _drop(self, handler: BaseHTTPRequestHandler, query: str, length: int, received: int, hold: float) -> None:
        data = handler.rfile.read(min(received, length))
        headers = {k.lower(): v for k, v in handler.headers.items()}
        request = Request("PUT", UPLOAD_PATH, dict(parse_qsl(query)), headers, data, time.time())
        with self.lock:
            self.requests.append(request)
            session = self.sessions.get(request.query.get("upload_id", ""))
            found = _CONTENT_RANGE.fullmatch(headers.get("content-range", "").strip())
            start = int(found.group(1)) if found is not None and found.group(1) is not None else 0
            if session is not None and session.video_id is None and start <= session.held:
                session.puts += 1
                del session.data[start:]
                session.data += data
        if hold:
            self._stopping.wait(hold)
        handler.close_connection = True
        with contextlib.suppress(OSError):  # unread bytes left in the socket: closing it resets it
            handler.connection.shutdown(socket.SHUT_RDWR)


def quota_exceeded() -> tuple[int, dict[str, Any]]:
    """videos.insert over the project's daily quota: 403 quotaExceeded (domain youtube.quota)."""
    message = (
        'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started'
        '#quota">quota</a>.'
    )
    return 403, google_error(403, "quotaExceeded", message, domain="youtube.quota").body


def service_unavailable() -> tuple[int, dict[str, Any]]:
    """Google's 503 ("The service is currently unavailable"), reason backendError."""
    return 503, google_error(503, "backendError", "The service is currently unavailable.").body


def _random(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))
