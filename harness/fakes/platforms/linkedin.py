"""A fake LinkedIn on loopback: 3-legged OAuth (no PKCE for a web app; refresh tokens for
approved partners only), OpenID Connect's `/v2/userinfo`, and the versioned REST API Herald
posts with: the Images and Videos APIs' uploads and the Posts API (learn.microsoft.com/linkedin:
authorization-code-flow, sign-in-with-linkedin-v2, images-api, videos-api, posts-api,
versioning, little-text-format).

`www.linkedin.com` (the authorization page, the token endpoint and the upload URLs) and
`api.linkedin.com` map to this one server. The authorization page approves at once as
`sign_in_as`; the client authenticates in the form; revoking a token ends that token only (the
grant itself is oauth.py's).

`/rest/*` calls need `LinkedIn-Version: YYYYMM` (missing: 400 VERSION_MISSING; older than a
year or not yet released: 426 NONEXISTENT_VERSION) and `X-Restli-Protocol-Version: 2.0.0`.
Uploads: an image's `uploadUrl` takes one PUT (201); a video is split into parts of
`video_part_bytes` (LinkedIn's 4 MiB, smaller in tests), each PUT answers its ETag, and
`finalizeUpload` must list those ETags in order; the video then answers `PROCESSING` to
`processing_polls` GETs, then `AVAILABLE`.

Posts: 201 with the post's URN in `x-restli-id`. The commentary is read as LinkedIn's "little
text": an escaped reserved character is kept, a hashtag template (`{hashtag|\\#|tag}`) shows as
the hashtag `#tag` (kept in `Post.hashtags`), any other unescaped reserved character cuts the
text there (LinkedIn truncates such posts silently), so `Post.text` is what readers see. The same
author posting the same commentary and content again is refused 422 DUPLICATE_POST naming the
first post, in the shape LinkedIn answers it. Comments on posts are linkedin_comments.py's; share
statistics and follower counts linkedin_metrics.py's.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlencode

from harness.fakes.platforms.base import Answer, Request, Route, answer
from harness.fakes.platforms.linkedin_comments import LinkedInComments, rest_error
from harness.fakes.platforms.linkedin_metrics import MEMBER_ANALYTICS, PAGE_ADMIN, LinkedInStatistics
from harness.fakes.platforms.oauth import CLIENT, GRANT_TYPE, REFRESH_TOKEN, Code, OAuthPlatform

SCOPES = ("openid", "profile", "w_member_social")
KNOWN_SCOPES = (*SCOPES, "email", "w_organization_social", "r_organization_social", PAGE_ADMIN, MEMBER_ANALYTICS)
CODE_LIFETIME = 1800.0  # LinkedIn's authorization codes last 30 minutes
ACCESS_LIFETIME = 5_184_000  # 60 days
RESERVED = set("\\|{}@[]()<>#*_~")
# little's hashtag template: {hashtag|<the sign, `#` escaped or the full-width `＃`>|<the tag>}
HASHTAG_TEMPLATE = re.compile(r"\{hashtag\|(\\#|#|＃)\|([^\\|{}@\[\]()<>#*_~\s]+)\}")
VERSION = re.compile(r"(\d{4})(\d{2})(?:\.\d{2})?")


@dataclass
class Member:
    sub: str
    given_name: str
    family_name: str

    @property
    def name(self) -> str:
        return f"{self.given_name} {self.family_name}"

    @property
    def urn(self) -> str:
        return f"urn:li:person:{self.sub}"

    @property
    def picture(self) -> str:
        return f"https://media.licdn.com/dms/image/v2/{self.sub}/profile-displayphoto-shrink_100_100/0/1"


@dataclass
class Image:
    urn: str
    owner: str
    status: str = "WAITING_UPLOAD"
    size: int = 0
    sha256: str = ""


@dataclass
class Video:
    urn: str
    owner: str
    size: int
    parts: list[tuple[int, int]]  # (firstByte, lastByte)
    upload_token: str
    received: dict[int, bytes] = field(default_factory=dict)
    etags: dict[int, str] = field(default_factory=dict)
    status: str = "WAITING_UPLOAD"
    polls_left: int = 0
    sha256: str = ""


@dataclass
class Post:
    urn: str
    author: str
    commentary: str  # as sent (escaped little text)
    text: str  # as LinkedIn shows it
    content: dict[str, Any] | None
    visibility: str
    created_at: float = field(default_factory=time.time)
    hashtags: list[str] = field(default_factory=list)  # the commentary's hashtag templates, in order

    @property
    def media_ids(self) -> list[str]:
        if not self.content:
            return []
        if "media" in self.content:
            return [self.content["media"]["id"]]
        return [i["id"] for i in (self.content.get("multiImage") or {}).get("images") or []]


class FakeLinkedIn(LinkedInStatistics, LinkedInComments, OAuthPlatform):
    name = "linkedin"
    hosts = ("api.linkedin.com", "www.linkedin.com")
    settings_name = "LINKEDIN"
    code_lifetime = CODE_LIFETIME
    scope_separator = r"[,\s]+"
    denial = {"error": "user_cancelled_authorize", "error_description": "The user cancelled the authorization"}

    def __init__(
        self,
        *,
        client_id: str = "86fakelinkedin",
        client_secret: str = "fake-linkedin-secret",
        refresh_tokens: bool = False,
        video_part_bytes: int = 4 * 1024 * 1024,
        processing_polls: int = 1,
    ) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.issue_refresh_tokens = refresh_tokens  # approved partners only
        self.video_part_bytes = video_part_bytes
        self.processing_polls = processing_polls
        self.members: dict[str, Member] = {}
        self.images: dict[str, Image] = {}
        self.videos: dict[str, Video] = {}
        self.posts: list[Post] = []
        self._upload_paths: dict[str, str] = {}  # an upload URL's asset → its image or video URN
        self.init_statistics()  # share statistics and follower counts: linkedin_metrics.py
        super().__init__()
        self.add_member("Herald", "Fake")

    # --- test controls -------------------------------------------------------------------------

    def add_member(self, given_name: str, family_name: str) -> Member:
        with self.lock:
            member = Member(_random(10), given_name, family_name)
            self.members[member.sub] = member
            self.sign_in_as = self.sign_in_as or member.sub
            return member

    def member(self, name: str) -> Member:
        return next(m for m in self.members.values() if m.name == name)

    def posts_by(self, author: str, containing: str = "") -> list[Post]:
        with self.lock:
            return [p for p in self.posts if p.author == author and containing in p.commentary]

    # --- routes --------------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        def r(method: str, path: str, handle) -> Route:
            return (method, re.compile(path), handle)

        return [
            r("GET", r"/oauth/v2/authorization", self.authorize),
            r("POST", r"/oauth/v2/accessToken", self.token),
            r("POST", r"/oauth/v2/revoke", self.revoke),
            r("GET", r"/v2/userinfo", self.userinfo),
            r("POST", r"/rest/images", self.images_action),
            r("GET", r"/rest/images/(?P<urn>[^/]+)", self.get_image),
            r("POST", r"/rest/videos", self.videos_action),
            r("GET", r"/rest/videos/(?P<urn>[^/]+)", self.get_video),
            r("POST", r"/rest/posts", self.create_post),
            r("PUT", r"/dms-uploads/sp/v2/(?P<asset>[^/]+)/uploadedImage/0", self.put_image),
            r("PUT", r"/dms-uploads/sp/v2/(?P<asset>[^/]+)/uploadedVideo", self.put_video_part),
            *self.comment_routes(),
            *self.statistics_routes(),
        ]

    def not_found(self, request: Request) -> Answer:
        return rest_error(404, "RESOURCE_NOT_FOUND", f"No virtual resource found for {request.path}")

    # --- OAuth 2.0 (the grant is oauth.py's) -------------------------------------------------

    def authorization_refused(self, q: dict[str, str], scopes: tuple[str, ...]) -> Answer | None:
        redirect_uri = q.get("redirect_uri", "")
        if q.get("client_id") != self.client_id or not redirect_uri.startswith(("http://", "https://")):
            return answer(
                400, "<html><body>Bummer, something went wrong. (invalid client_id or redirect_uri)</body></html>"
            )
        if q.get("response_type") != "code" or not scopes or not set(scopes) <= set(KNOWN_SCOPES):
            state = q.get("state", "")
            return self.back_to_client(
                redirect_uri, error="invalid_scope", error_description="invalid scope", state=state
            )
        return None

    def new_code(self) -> str:
        return "AQ" + _random(150)

    def new_access_token(self) -> str:
        return "AQV" + _random(300, string.ascii_letters + string.digits + "-_")

    def new_refresh_token(self) -> str:
        return "AQX" + _random(300)

    def refreshes(self) -> bool:
        return self.issue_refresh_tokens

    def token_refused(self, problem: str) -> Answer:
        if problem == CLIENT:
            return _invalid_client()
        if problem == REFRESH_TOKEN:
            return answer(
                400, {"error": "invalid_request", "error_description": "The provided refresh token is invalid"}
            )
        if problem == GRANT_TYPE:
            return answer(400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type"})
        return answer(
            400,
            {
                "error": "invalid_request",
                "error_description": "Unable to retrieve access token: appid/redirect uri/code verifier "
                "does not match authorization code. Or authorization code expired.",
            },
        )

    def token_issued(self, grant_type: str, subject: str, scopes: tuple[str, ...], code: Code | None) -> Answer:
        body: dict[str, Any] = {
            "access_token": self.grant_access(subject, scopes, lifetime=ACCESS_LIFETIME),
            "expires_in": ACCESS_LIFETIME - 1,
            "scope": ",".join(scopes),
            "token_type": "Bearer",
        }
        if "openid" in scopes:
            body["id_token"] = "eyJ" + _random(200)  # a JWT Herald does not read
        if self.issue_refresh_tokens and grant_type == "authorization_code":
            body |= {"refresh_token": self.grant_refresh(subject, scopes), "refresh_token_expires_in": 31_535_999}
        return answer(200, body)

    def revoke_refused(self) -> Answer:
        return _invalid_client()

    def revoked_answer(self, found: bool) -> Answer:
        return answer(200, None)

    # --- API -----------------------------------------------------------------------------------

    def _caller(self, request: Request, scope: str) -> Member | Answer:
        grant = self.access_tokens.get(request.bearer or "")
        if grant is None or grant.revoked:
            return rest_error(401, "INVALID_ACCESS_TOKEN", "Invalid access token", service_code=65600)
        if grant.expired():
            return rest_error(
                401, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired", service_code=65601
            )
        if scope not in grant.scopes:
            return rest_error(403, "ACCESS_DENIED", f"Not enough permissions to access: {scope}", service_code=100)
        return self.members[grant.subject]

    def _rest_caller(self, request: Request, scope: str = "w_member_social") -> Member | Answer:
        version = request.headers.get("linkedin-version", "")
        if not version:
            return rest_error(
                400,
                "VERSION_MISSING",
                "A version must be present. Please specify a version by adding the LinkedIn-Version header.",
            )
        if not _active(version):
            return rest_error(426, "NONEXISTENT_VERSION", f"Requested version {version} is not active")
        if request.headers.get("x-restli-protocol-version") != "2.0.0":
            return rest_error(400, "ILLEGAL_ARGUMENT", "X-Restli-Protocol-Version 2.0.0 is required.")
        return self._caller(request, scope)

    def userinfo(self, request: Request, match: re.Match[str]) -> Answer:
        grant = self.access_tokens.get(request.bearer or "")
        if grant is not None and "openid" not in grant.scopes:
            return rest_error(403, "ACCESS_DENIED", "Not enough permissions to access: userinfo.GET.NO_VERSION")
        member = self._caller(request, "openid")
        if isinstance(member, Answer):
            return member
        return answer(
            200,
            {
                "sub": member.sub,
                "name": member.name,
                "given_name": member.given_name,
                "family_name": member.family_name,
                "picture": member.picture,
                "locale": {"country": "US", "language": "en"},
            },
        )

    def images_action(self, request: Request, match: re.Match[str]) -> Answer:
        member = self._rest_caller(request)
        if isinstance(member, Answer):
            return member
        if request.query.get("action") != "initializeUpload":
            return rest_error(400, "ILLEGAL_ARGUMENT", "Unsupported action.")
        owner = _dig(request.json, "initializeUploadRequest", "owner")
        if owner != member.urn:
            return rest_error(403, "ACCESS_DENIED", "The owner is not the authenticated member.")
        asset = "D4E10AQ" + _random(20)
        image = Image(f"urn:li:image:{asset}", owner)
        self.images[image.urn] = image
        self._upload_paths[asset] = image.urn
        upload_url = f"https://www.linkedin.com/dms-uploads/sp/v2/{asset}/uploadedImage/0?" + urlencode(
            {"ca": "vector_feedshare", "cn": "uploads", "sync": "0", "v": "beta", "ut": _random(20)}
        )
        expires = int((time.time() + 86400) * 1000)
        return answer(200, {"value": {"uploadUrlExpiresAt": expires, "uploadUrl": upload_url, "image": image.urn}})

    def put_image(self, request: Request, match: re.Match[str]) -> Answer:
        image = self.images.get(self._upload_paths.get(match["asset"], ""))
        if image is None or image.status != "WAITING_UPLOAD":
            return answer(400, None)
        if not request.body:
            return rest_error(400, "ILLEGAL_ARGUMENT", "The upload is empty.")
        image.size, image.sha256, image.status = len(request.body), _sha(request.body), "AVAILABLE"
        return answer(201, None)

    def get_image(self, request: Request, match: re.Match[str]) -> Answer:
        member = self._rest_caller(request)
        if isinstance(member, Answer):
            return member
        image = self.images.get(unquote(match["urn"]))
        if image is None:
            return self.not_found(request)
        return answer(200, {"owner": image.owner, "id": image.urn, "status": image.status})

    def videos_action(self, request: Request, match: re.Match[str]) -> Answer:
        member = self._rest_caller(request)
        if isinstance(member, Answer):
            return member
        action = request.query.get("action")
        if action == "initializeUpload":
            return self._initialize_video(member, request)
        if action == "finalizeUpload":
            return self._finalize_video(member, request)
        return rest_error(400, "ILLEGAL_ARGUMENT", "Unsupported action.")

    def _initialize_video(self, member: Member, request: Request) -> Answer:
        init = _dig(request.json, "initializeUploadRequest") or {}
        size = init.get("fileSizeBytes")
        if init.get("owner") != member.urn:
            return rest_error(403, "ACCESS_DENIED", "The owner is not the authenticated member.")
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0 or size > 500 * 1024 * 1024:
            return rest_error(400, "ILLEGAL_ARGUMENT", "fileSizeBytes must be between 1 byte and 500 MB.")
        asset = "D5610AQ" + _random(20)
        parts = [
            (first, min(size, first + self.video_part_bytes) - 1) for first in range(0, size, self.video_part_bytes)
        ]
        video = Video(f"urn:li:video:{asset}", member.urn, size, parts, _random(24) if len(parts) > 1 else "")
        self.videos[video.urn] = video
        self._upload_paths[asset] = video.urn
        instructions = [
            {
                "uploadUrl": f"https://www.linkedin.com/dms-uploads/sp/v2/{asset}/uploadedVideo?"
                + urlencode({"ca": "vector_feedshare", "cn": "uploads_secure", "ut": _random(16), "part": str(i)}),
                "firstByte": first,
                "lastByte": last,
            }
            for i, (first, last) in enumerate(parts)
        ]
        value = {
            "uploadUrlsExpireAt": int((time.time() + 86400) * 1000),
            "video": video.urn,
            "uploadInstructions": instructions,
            "uploadToken": video.upload_token,
        }
        return answer(200, {"value": value})

    def put_video_part(self, request: Request, match: re.Match[str]) -> Answer:
        video = self.videos.get(self._upload_paths.get(match["asset"], ""))
        index = request.query.get("part", "")
        if video is None or not index.isdigit() or int(index) >= len(video.parts) or video.status != "WAITING_UPLOAD":
            return answer(400, None)
        first, last = video.parts[int(index)]
        if len(request.body) != last - first + 1:
            return rest_error(400, "ILLEGAL_ARGUMENT", f"Part {index} must be bytes {first}-{last}.")
        etag = f"/ambry-video/signedId/{_random(40)}"
        video.received[int(index)] = request.body
        video.etags[int(index)] = etag
        return answer(200, None, ETag=etag)

    def _finalize_video(self, member: Member, request: Request) -> Answer:
        final = _dig(request.json, "finalizeUploadRequest") or {}
        video = self.videos.get(str(final.get("video", "")))
        if video is None or video.owner != member.urn:
            return rest_error(404, "RESOURCE_NOT_FOUND", "The video does not exist.")
        if final.get("uploadToken", "") != video.upload_token:
            return rest_error(400, "ILLEGAL_ARGUMENT", "The upload token does not match.")
        expected = [video.etags.get(i) for i in range(len(video.parts))]
        if None in expected or final.get("uploadedPartIds") != expected:
            return rest_error(400, "ILLEGAL_ARGUMENT", "uploadedPartIds must list every part's ETag in order.")
        video.sha256 = _sha(b"".join(video.received[i] for i in range(len(video.parts))))
        video.status, video.polls_left = "PROCESSING", self.processing_polls
        return answer(200, None)

    def get_video(self, request: Request, match: re.Match[str]) -> Answer:
        member = self._rest_caller(request)
        if isinstance(member, Answer):
            return member
        video = self.videos.get(unquote(match["urn"]))
        if video is None:
            return self.not_found(request)
        status = video.status
        if status == "PROCESSING":
            if video.polls_left > 0:
                video.polls_left -= 1
            else:
                status = video.status = "AVAILABLE"
        return answer(200, {"owner": video.owner, "id": video.urn, "status": status})

    def create_post(self, request: Request, match: re.Match[str]) -> Answer:
        member = self._rest_caller(request)
        if isinstance(member, Answer):
            return member
        body = request.json if isinstance(request.json, dict) else None
        if body is None:
            return rest_error(400, "ILLEGAL_ARGUMENT", "The request body is not valid JSON.")
        author = body.get("author")
        if author != member.urn:
            return rest_error(403, "ACCESS_DENIED", f"Member is not allowed to post as {author}.")
        problems = _post_problems(body)
        content = body.get("content")
        if not problems and content is not None:
            problems = self._content_problems(member, content)
        if problems:
            return _validation_error(problems)
        commentary = body.get("commentary") or ""
        for earlier in self.posts:
            if earlier.author == author and earlier.commentary == commentary and earlier.content == content:
                return _duplicate(earlier.urn)
        post = Post(
            urn=f"urn:li:share:{7_300_000_000_000_000_000 + secrets.randbelow(10**17)}",
            author=author,
            commentary=commentary,
            text=little_text(commentary),
            content=content,
            visibility=body.get("visibility", ""),
            hashtags=read_little(commentary)[1],
        )
        self.posts.append(post)
        return answer(201, None, x_restli_id=post.urn, x_linkedin_id=post.urn)

    def _content_problems(self, member: Member, content: Any) -> list[str]:
        if not isinstance(content, dict) or len(content) != 1:
            return ["content must hold one of media, multiImage, article"]
        if "media" in content:
            urn = _dig(content, "media", "id")
            image, video = self.images.get(urn or ""), self.videos.get(urn or "")
            if image is not None:
                return [] if image.owner == member.urn and image.status == "AVAILABLE" else [f"{urn} is not available"]
            if video is not None:
                return [] if video.owner == member.urn and video.status == "AVAILABLE" else [f"{urn} is not available"]
            return [f"/content/media/id: {urn} does not exist"]
        if "multiImage" in content:
            images = _dig(content, "multiImage", "images")
            if not isinstance(images, list) or not 2 <= len(images) <= 20:
                return ["/content/multiImage/images must hold 2-20 images"]
            for item in images:
                image = self.images.get(_dig(item, "id") or "")
                if image is None or image.owner != member.urn or image.status != "AVAILABLE":
                    return [f"/content/multiImage/images: {_dig(item, 'id')} is not an available image"]
            return []
        return ["this fake takes content.media and content.multiImage"]


def little_text(commentary: str) -> str:
    """What LinkedIn shows of a commentary (read_little)."""
    return read_little(commentary)[0]


def read_little(commentary: str) -> tuple[str, list[str]]:
    """What LinkedIn shows of a commentary and the hashtags it links: escapes undone, hashtag
    templates shown as `#tag`, cut at any other unescaped reserved character."""
    out: list[str] = []
    hashtags: list[str] = []
    i = 0
    while i < len(commentary):
        ch = commentary[i]
        if ch == "\\" and i + 1 < len(commentary) and commentary[i + 1] in RESERVED:
            out.append(commentary[i + 1])
            i += 2
            continue
        template = HASHTAG_TEMPLATE.match(commentary, i)
        if template is not None:
            out.append(template.group(1).lstrip("\\") + template.group(2))
            hashtags.append(template.group(2))
            i = template.end()
            continue
        if ch in RESERVED:
            break
        out.append(ch)
        i += 1
    return "".join(out), hashtags


def _post_problems(body: dict[str, Any]) -> list[str]:
    problems = []
    if not isinstance(body.get("commentary", ""), str):
        problems.append("/commentary must be a string")
    if body.get("visibility") not in ("PUBLIC", "CONNECTIONS", "LOGGED_IN", "CONTAINER"):
        problems.append("/visibility is required")
    if body.get("lifecycleState") not in ("PUBLISHED", "DRAFT"):
        problems.append("/lifecycleState is required")
    distribution = body.get("distribution")
    if not isinstance(distribution, dict) or distribution.get("feedDistribution") not in ("MAIN_FEED", "NONE"):
        problems.append("/distribution/feedDistribution is required")
    return problems


def _active(version: str) -> bool:
    """A monthly version is live from its month for a year (at least; LinkedIn sunsets them)."""
    found = VERSION.fullmatch(version)
    if found is None:
        return False
    now = time.gmtime()
    month = int(found.group(1)) * 12 + int(found.group(2)) - 1
    current = now.tm_year * 12 + now.tm_mon - 1
    return current - 12 < month <= current


def _dig(body: Any, *path: str) -> Any:
    for step in path:
        if not isinstance(body, dict):
            return None
        body = body.get(step)
    return body


def _validation_error(problems: list[str]) -> Answer:
    errors = [{"description": p, "input": {}, "code": "INVALID_VALUE"} for p in problems]
    return answer(
        422,
        {
            "errorDetailType": "com.linkedin.common.error.BadRequest",
            "message": f"ERROR :: {problems[0]}",
            "errorDetails": {"inputErrors": errors},
            "status": 422,
        },
    )


def _duplicate(urn: str) -> Answer:
    # As LinkedIn answers it (github.com/Arisamiga/Linkedin-RSS/issues/5).
    return answer(
        422,
        {
            "errorDetailType": "com.linkedin.common.error.BadRequest",
            "message": "com.linkedin.content.common.exception.BadRequestResponseException: "
            f"Content is a duplicate of {urn}",
            "errorDetails": {
                "inputErrors": [{"description": "Duplicate post is detected", "input": {}, "code": "DUPLICATE_POST"}]
            },
            "status": 422,
        },
    )


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _invalid_client() -> Answer:
    return answer(401, {"error": "invalid_client", "error_description": "Client authentication failed"})


def _random(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))
