"""The connector interface every platform module implements
(docs/decisions.md, "One connector per platform, sandbox and live").

A connector is the platform's publishing protocol written once, as a coroutine that sends
`PlatformRequest`s through a `PlatformAPI` and reads the answers: upload the media, create the
post, poll what the platform processes asynchronously. The publisher hands it one of two APIs:

- `SandboxAPI` (core/connectors/sandbox.py, the embedded default): nothing leaves the machine;
  each request is recorded for the outbox and answered by the connector's own `sandbox_answer`,
  shaped like the platform's documented answer.
- `LiveAPI` (core/connectors/live.py): the request goes to the platform over HTTPS with the
  profile's token; media bytes are streamed from object storage.

So the outbox shows the exact requests a live delivery would send, and both modes run the same
code. Progress the platform already holds (uploaded media, a container, an upload session) is
saved with `api.save(...)` before the next step, so an attempt after a crash or a timeout
resumes; the request that creates the post is marked `creates_post`, and an attempt that may
have sent it asks `reconcile` before sending anything again (docs/live-publishing.md).
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

if TYPE_CHECKING:
    from core.connectors.readings import MetricsItem, MetricsReading

MediaKind = Literal["image", "gif", "video"]


@dataclass(frozen=True, slots=True)
class OutgoingMedia:
    """An attachment as the connector sees it. `url` is where a platform that pulls media fetches
    the bytes (a signed, short-lived read URL of object storage); `storage_key` is where a worker
    streams them from for platforms that take uploads, `storage_generation` the object generation
    confirm checked (both the URL and the reads name it; None where the storage has none)."""

    media_id: str
    kind: MediaKind
    mime_type: str
    size_bytes: int
    url: str
    alt_text: str = ""
    width: int | None = None
    height: int | None = None
    storage_key: str = ""
    storage_generation: int | None = None


@dataclass(frozen=True, slots=True)
class Account:
    """The connected account on the platform: its handle and platform-side id (the X user id,
    the Bluesky DID, the Instagram user id…) and, where accounts live on a server of their own,
    that server (the Mastodon instance, the Bluesky PDS)."""

    profile_slug: str
    handle: str = ""
    platform_user_id: str = ""
    instance_url: str = ""


@dataclass(frozen=True, slots=True)
class Delivery:
    """What the platform made: its id for it and its URL. `cid` is Bluesky's content id of the
    record (a reply names its root and parent by uri and cid, a "strong ref"); "" elsewhere."""

    platform_post_id: str
    url: str
    cid: str = ""


@dataclass(frozen=True, slots=True)
class ReplyTo:
    """Where a thread item or a first comment goes: `parent` is the post it answers (the previous
    thread item, or the main post), `root` the thread's first post (the main post)."""

    parent: Delivery
    root: Delivery


@dataclass(frozen=True, slots=True)
class TikTokOptions:
    """A TikTok post's settings as the request chose them; None where it chose nothing, which
    the TikTok connector fills with its documented default (docs/posts.md)."""

    privacy_level: str | None = None
    disable_comment: bool | None = None
    disable_duet: bool | None = None
    disable_stitch: bool | None = None
    auto_add_music: bool | None = None


@dataclass(frozen=True, slots=True)
class OutgoingPost:
    post_id: str
    # Stable across retries of one delivery: platforms that honour an idempotency key get it,
    # and the outbox is unique on it.
    delivery_key: str
    connector: str
    content: str
    post_type: str
    account: Account
    title: str | None = None
    media: tuple[OutgoingMedia, ...] = ()
    created_at: datetime | None = None
    # Set on a thread item (published as a reply) and on a first comment; None on a post.
    reply_to: ReplyTo | None = None
    # The text's language, a normalized BCP 47 tag (core/posts/language.py); None: not named.
    language: str | None = None
    # TikTok only: the settings the request chose (None: every default).
    tiktok: TikTokOptions | None = None


@dataclass(frozen=True, slots=True)
class MediaBytes:
    """A body (or a multipart file part) made of one of our media's bytes: all of them, or the
    range [start, end). Never read into memory: the live API streams it from object storage."""

    media: OutgoingMedia
    start: int = 0
    end: int | None = None

    @property
    def length(self) -> int:
        return (self.media.size_bytes if self.end is None else self.end) - self.start

    def describe(self) -> dict[str, Any]:
        last = self.start + self.length - 1
        return {"bytes_of": self.media.media_id, "range": f"{self.start}-{last}/{self.media.size_bytes}"}


@dataclass(frozen=True, slots=True)
class PlatformRequest:
    """One HTTP request as the connector means it, never with a credential in it: `auth` names
    the scheme the live API puts the account's token under (None: the URL or a header the
    connector set carries its own authorization, e.g. a pre-signed upload URL)."""

    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    json: Any = None
    form: dict[str, str] | None = None  # application/x-www-form-urlencoded
    multipart: dict[str, str | MediaBytes] | None = None  # multipart/form-data; MediaBytes are file parts
    content: MediaBytes | bytes | None = None  # a raw body: media bytes, or a small blob of our own
    auth: str | None = "Bearer"
    # A short-lived token the platform issued for this one request (Bluesky's service auth for
    # its video service): sent as `Bearer` instead of the account's token, never recorded.
    bearer: str | None = field(default=None, repr=False)
    # The request that makes the post exist on the platform (see the module docstring).
    creates_post: bool = False

    def as_dict(self) -> dict[str, Any]:
        """What the outbox records: the request without its token and without media bytes."""
        out: dict[str, Any] = {"method": self.method, "url": self.url, "headers": dict(self.headers)}
        if self.json is not None:
            out["json"] = self.json
        if self.form is not None:
            out["form"] = dict(self.form)
        if self.multipart is not None:
            out["multipart"] = {k: v.describe() if isinstance(v, MediaBytes) else v for k, v in self.multipart.items()}
        if isinstance(self.content, MediaBytes):
            out["content"] = self.content.describe()
        elif self.content is not None:
            out["content"] = {"bytes": len(self.content)}
        return out


@dataclass(frozen=True, slots=True)
class PlatformResponse:
    status: int
    headers: Mapping[str, str]  # lower-case names
    body: Any  # decoded JSON, else the text

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


def answer(status: int, body: Any = None, headers: Mapping[str, str] | None = None) -> PlatformResponse:
    return PlatformResponse(status, {k.lower(): v for k, v in (headers or {}).items()}, body)


class ErrorClass(StrEnum):
    RETRYABLE = "retryable"  # throttled, 5xx, timeouts before sending: try again later with backoff
    NEEDS_REAUTH = "needs_reauth"  # the token expired or was revoked and cannot be refreshed
    PERMANENT = "permanent"  # the platform refuses this post as it is: retrying cannot help
    # The request creating the post may have reached the platform and no answer came back; the
    # next attempt reconciles before anything is sent again.
    UNCERTAIN = "uncertain"


class DeliveryError(Exception):
    """A platform refused or failed a request; `error_class` decides what the publisher does.
    `code` is the platform's own error code when it gave one; `retry_after` (seconds) is when the
    platform said to come back."""

    def __init__(
        self,
        error_class: ErrorClass,
        message: str,
        *,
        status: int | None = None,
        code: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.error_class = error_class
        self.status = status
        self.code = code
        self.retry_after = retry_after


class PlatformAPI(Protocol):
    """What a connector talks to (sandbox or live)."""

    live: bool
    # Progress earlier attempts of this delivery saved (empty on the first attempt).
    state: Mapping[str, Any]

    async def send(self, request: PlatformRequest, *, expect: Collection[int] = (200, 201)) -> PlatformResponse:
        """Sends the request; an answer outside `expect` raises `DeliveryError` (classified by the
        connector, after one token refresh when the platform says the token is dead)."""
        ...

    async def save(self, **progress: Any) -> None:
        """Records progress before the next request (None removes a key). Raises
        `LeaseLost` when another worker has taken the post over: stop at once."""
        ...

    async def wait(self, seconds: float) -> None:
        """Waits between polls of something the platform processes (the sandbox does not wait)."""
        ...

    async def fetch(self, url: str, *, max_bytes: int) -> PlatformResponse | None:
        """A public GET of a page or an image the post links to (a link card), following
        redirects, at most `max_bytes`; `body` is the bytes. None when it cannot be had (not
        reachable, too large, refused, the sandbox): such extras are left out, never fatal."""
        ...


class LeaseLost(Exception):
    """This worker's lease on the post ended and another worker may hold it: send nothing more."""


class Connector(ABC):
    """One platform. Stateless; one instance serves every profile of the platform."""

    key: ClassVar[str]
    # Status polls (of a video's processing, a container) one attempt makes before it gives the
    # platform more time by retrying later; the progress saved lets that attempt resume the poll.
    poll_limit: ClassVar[int] = 30
    poll_seconds: ClassVar[float] = 2.0
    # Whether a post may carry a thread: items published after it as a chain of replies, each
    # through `deliver` with `reply_to` set (x, bluesky, threads, mastodon).
    threads: ClassVar[bool] = False
    # Whether a post may carry a first comment (`deliver_comment`): all but TikTok.
    first_comment: ClassVar[bool] = False
    # OAuth scopes beyond posting's that a thread item or a self-reply first comment needs
    # (`reply_scopes`), and that a first comment needs (`comment_scopes`), checked against the
    # profile's granted scopes before a post is accepted; () when posting's suffice.
    reply_scopes: ClassVar[tuple[str, ...]] = ()
    comment_scopes: ClassVar[tuple[str, ...]] = ()
    # Where the platform's request carries the post's language (e.g. Bluesky's `langs`); "" for a
    # platform whose API has no such field, where a request's `language` gets a notice.
    language_field: ClassVar[str] = ""
    # Metrics (docs/analytics.md): the vocabulary's post metrics the platform gives (its mapping
    # is in that page), and how many items one metrics call reads (its batch endpoint's limit).
    post_metric_names: ClassVar[tuple[str, ...]] = ()
    metrics_batch_size: ClassVar[int] = 1
    # The OAuth scopes reading them needs: what a profile refused them is told to grant.
    metrics_scopes: ClassVar[tuple[str, ...]] = ()
    # Whose the platform's metrics rate limits are: the account's token ("account", paced per
    # profile) or the app's (a public endpoint read without a token: paced per platform).
    metrics_limit_scope: ClassVar[Literal["account", "app"]] = "account"

    @abstractmethod
    async def deliver(self, post: OutgoingPost, api: PlatformAPI) -> Delivery:
        """Publishes the post, resuming from `api.state`; returns the platform's id and URL. A
        thread item has `post.reply_to` set (on a platform with `threads`): it is published as a
        reply to `reply_to.parent` (in the thread of `reply_to.root`)."""

    async def deliver_comment(self, comment: OutgoingPost, api: PlatformAPI) -> Delivery:
        """A first comment: `comment.content` is its text, `comment.reply_to` is set (parent = the
        last thread item or the main post, root = the main post). Delivered like a post (its own
        delivery key, progress, `creates_post` request and `reconcile`). The default is a
        self-reply, `self.deliver(comment, api)`; platforms with a comment API (Instagram,
        YouTube, LinkedIn) override it and comment on `root`; one without refuses it."""
        if not self.first_comment:
            raise DeliveryError(
                ErrorClass.PERMANENT, f"{self.key} has no way to post a first comment", code="COMMENTS_UNSUPPORTED"
            )
        if comment.reply_to is None:
            raise DeliveryError(ErrorClass.PERMANENT, "a first comment needs the post it answers", code="NO_PARENT")
        return await self.deliver(comment, api)

    @property
    def reads_metrics(self) -> bool:
        """Whether this connector reads its platform's metrics live (it overrides `post_metrics`)."""
        return type(self).post_metrics is not Connector.post_metrics

    async def post_metrics(self, items: Sequence[MetricsItem], api: PlatformAPI) -> list[MetricsReading]:
        """One metrics call (docs/analytics.md, "Each platform"): a reading per item, in order,
        for at most `metrics_batch_size` items of one account; an item the platform no longer
        has is `gone(...)`. Raises `MetricsUnavailable` when the account may not read them and
        `DeliveryError` for anything else (a 429 with its `retry_after`: read again later)."""
        raise NotImplementedError(f"{self.key} does not read its metrics live yet")

    async def reconcile(self, post: OutgoingPost, api: PlatformAPI) -> Delivery | None:
        """After an attempt that may have sent the creating request: the post if the platform
        has it, None if sending again is safe. Raises `DeliveryError(UNCERTAIN)` when the
        platform offers no way to tell (the default)."""
        raise DeliveryError(
            ErrorClass.UNCERTAIN, f"{self.key} offers no way to look a post up; a human must check the account"
        )

    @abstractmethod
    def classify(self, status: int, body: Any) -> ErrorClass:
        """Classifies a platform error answer (HTTP status and decoded body)."""

    @abstractmethod
    def sandbox_answer(self, request: PlatformRequest, ids: SandboxIds) -> PlatformResponse:
        """The platform's documented answer to `request`, for the sandbox: success, with ids
        from `ids` (`ids.post` for the request that creates the post)."""

    def sandbox_post_id(self, post: OutgoingPost) -> str:
        """The sandbox post id of a delivery (`SandboxIds.post`, which the sandbox answers to its
        creating request): deterministic per delivery key, shaped like the platform's own. The
        delivery's URL is not the connector's: a sandbox delivery links to Herald's page of the
        post (core/connectors/sandbox.py)."""
        digest = hashlib.sha256(post.delivery_key.encode()).hexdigest()
        return str(int(digest[:15], 16))

    @property
    def reads_account_metrics(self) -> bool:
        """Whether this connector reads its account's followers live (a reader in
        core/connectors/followers.py, or its own `account_metrics`)."""
        from core.connectors.followers import READERS  # followers.py builds on this module

        return self.key in READERS or type(self).account_metrics is not Connector.account_metrics

    async def account_metrics(self, account: Account, api: PlatformAPI) -> MetricsReading:
        """The account's followers now (docs/analytics.md, "Account metrics"; the call per
        platform is in "Each platform"): a reading whose values are `{"followers": n}` and whose
        raw answer is the platform's. The workers call it once a day per profile; the sandbox's
        numbers come from core/connectors/sandbox_followers.py instead. The default reads through
        the platform's reader in core/connectors/followers.py. Raises `DeliveryError` when the
        platform refuses (a 429 with its `retry_after`: read again later)."""
        from core.connectors.followers import READERS

        reader = READERS.get(self.key)
        if reader is None:
            raise NotImplementedError(f"{self.key} does not read its account's followers live yet")
        return await reader(account, api)


class SandboxIds:
    """Ids for sandbox answers: `post` is the delivery's sandbox post id; `new()` gives the next
    id of anything else (a media id, a container), deterministic per delivery. `page` is the
    delivery's URL, Herald's page of the post, for an answer that names the post's URL ("" when
    the run has none)."""

    def __init__(self, post: str, seed: str, page: str = "") -> None:
        self.post = post
        self.page = page
        self._seed = seed
        self._n = 0

    def new(self) -> str:
        self._n += 1
        digest = hashlib.sha256(f"{self._seed}:{self._n}".encode()).hexdigest()
        return str(int(digest[:15], 16))
