"""The connector interface every platform module implements (DESIGN 9).

A connector turns a post into the platform's real API requests. In `sandbox` mode the publisher
records those requests in the outbox instead of sending them and answers with a sandbox post id
and URL; in `live` mode (a later issue) the same connector sends them with the profile's token.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Literal

MediaKind = Literal["image", "gif", "video"]


@dataclass(frozen=True, slots=True)
class OutgoingMedia:
    """An attachment as the connector sees it. `url` is where the platform (or our upload step)
    fetches the bytes from; `platform_media_id` is set once uploaded to the platform."""

    media_id: str
    kind: MediaKind
    mime_type: str
    size_bytes: int
    url: str
    alt_text: str = ""
    width: int | None = None
    height: int | None = None
    platform_media_id: str | None = None


@dataclass(frozen=True, slots=True)
class Account:
    """The connected profile on the platform: its handle and platform-side ids (e.g. the X user
    id, the Bluesky DID, the Instagram user id, the Mastodon instance URL)."""

    profile_slug: str
    handle: str = ""
    platform_user_id: str = ""
    instance_url: str = ""  # Mastodon (per instance), Bluesky PDS


@dataclass(frozen=True, slots=True)
class OutgoingPost:
    post_id: str
    # Stable across retries of one post: platforms that honour an idempotency key get it, and
    # the outbox is unique on it, so an uncertain attempt can be looked up instead of re-sent.
    delivery_key: str
    connector: str
    content: str
    post_type: str
    account: Account
    title: str | None = None
    media: tuple[OutgoingMedia, ...] = ()


@dataclass(frozen=True, slots=True)
class PlatformRequest:
    """One HTTP request exactly as it would be sent, minus credentials: `headers` never carries an
    Authorization header or a token (the live sender adds it)."""

    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    json: Any = None
    # For non-JSON bodies (form or multipart fields, raw uploads): a description of the body.
    form: dict[str, Any] | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method, "url": self.url, "headers": self.headers}
        if self.json is not None:
            out["json"] = self.json
        if self.form is not None:
            out["form"] = self.form
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class Delivery:
    platform_post_id: str
    url: str


class ErrorClass(StrEnum):
    RETRYABLE = "retryable"  # throttled, 5xx, timeouts: try again later with backoff
    NEEDS_REAUTH = "needs_reauth"  # the token expired or was revoked: a human must reconnect
    PERMANENT = "permanent"  # the platform refuses this post as it is: retrying cannot help


class DeliveryError(Exception):
    """A platform refused or failed a request; `error_class` decides what the publisher does."""

    def __init__(self, error_class: ErrorClass, message: str, *, status: int | None = None, code: str = "") -> None:
        super().__init__(message)
        self.error_class = error_class
        self.status = status
        self.code = code


class Connector(ABC):
    """One platform. Subclasses are stateless; one instance serves every profile of the platform."""

    key: ClassVar[str]
    # The platform's public web host, for sandbox URLs that look like the real ones.
    web_host: ClassVar[str]

    @abstractmethod
    def media_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        """The requests that upload or register the post's media, in order (empty for text)."""

    @abstractmethod
    def publish_requests(self, post: OutgoingPost) -> list[PlatformRequest]:
        """The requests that create (and where the platform needs it, publish) the post, in order,
        as sent once the media is on the platform."""

    @abstractmethod
    def classify(self, status: int, body: Any) -> ErrorClass:
        """Classifies a platform error response (HTTP status and decoded body)."""

    def sandbox_delivery(self, post: OutgoingPost) -> Delivery:
        """The post id and URL a sandbox delivery answers with: deterministic per delivery key,
        shaped like the platform's own."""
        digest = hashlib.sha256(post.delivery_key.encode()).hexdigest()
        platform_id = str(int(digest[:15], 16))
        return Delivery(platform_id, f"https://{self.web_host}/sandbox/{post.account.profile_slug}/{platform_id}")
