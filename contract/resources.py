"""The resources Herald answers with (docs/api.md, "Resources"), each built from its proto message."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from herald.credits.v1 import credits_pb2
from herald.identity.v1 import identity_pb2
from herald.media.v1 import media_pb2
from herald.posts.v1 import posts_pb2
from herald.profiles.v1 import profiles_pb2
from pydantic import BaseModel, Field

from contract.base import FromCatalog, Response, UtcTimestamp, timestamp
from contract.post_options import Notice, TikTokSettings, notices_of

POST_STATUSES: dict[int, str] = {
    posts_pb2.POST_STATUS_SCHEDULED: "scheduled",
    posts_pb2.POST_STATUS_QUEUED: "queued",
    posts_pb2.POST_STATUS_PUBLISHING: "publishing",
    posts_pb2.POST_STATUS_PUBLISHED: "published",
    posts_pb2.POST_STATUS_FAILED: "failed",
    posts_pb2.POST_STATUS_CANCELED: "canceled",
    posts_pb2.POST_STATUS_DRAFT: "draft",
    posts_pb2.POST_STATUS_PARTIALLY_PUBLISHED: "partially_published",
}
PLANS: dict[int, str] = {
    identity_pb2.PLAN_ACTIVE: "active",
    identity_pb2.PLAN_TRIALING: "trialing",
    identity_pb2.PLAN_NONE: "none",
}
PostStatus = Literal[
    "scheduled", "queued", "publishing", "published", "failed", "canceled", "draft", "partially_published"
]
PartStatus = Literal["pending", "published", "failed", "skipped"]
Plan = Literal["active", "trialing", "none"]

# Values the core's catalog enumerates.
Connector = Annotated[str, FromCatalog(lambda c: Literal[c.connectors])]
AnyPostType = Annotated[
    str, FromCatalog(lambda c: Literal[tuple(sorted({t for types in c.post_types.values() for t in types}))])
]
MediaKind = Annotated[str, FromCatalog(lambda c: Literal[c.media_kinds])]
MimeType = Annotated[str, FromCatalog(lambda c: Literal[c.mime_types])]
FailureReason = Annotated[str, FromCatalog(lambda c: Literal[tuple(c.message.failure_reasons)])]


def _id(prefix: str, description: str = "") -> Any:  # a FieldInfo
    return Field(pattern=f"^{prefix}_", description=description or None)


class ProfileConnection(Response):
    """How the profile's platform account is connected (docs/live-publishing.md). Its tokens
    never leave Herald's core."""

    status: Literal["connected", "needs_reauth", "disconnected", "sandbox"] = Field(
        description="connected: live deliveries go out; needs_reauth: connect the account again; "
        "disconnected: its account was disconnected and its tokens forgotten (connect it again to post live); "
        "sandbox: no platform account was ever connected. Sandbox publishing (the default) delivers to every "
        "profile whatever its status; live publishing only to connected ones."
    )
    platform_account_id: str | None = Field(description="The account's id on the platform.")
    handle: str | None
    avatar_url: str | None
    instance_url: str | None = Field(description="The Mastodon instance or Bluesky PDS of the account.")
    scopes: list[str] = Field(description="What the platform granted.")
    token_expires_at: UtcTimestamp | None
    connected_at: UtcTimestamp | None
    error: str | None = Field(description="Why the profile needs a human, when it does.")
    token_renewable: bool = Field(
        description="Whether Herald renews the access token itself before token_expires_at. False for a connected "
        "account whose token expires: connect it again before then."
    )

    @classmethod
    def from_proto(cls, c: profiles_pb2.ProfileConnection) -> dict[str, Any]:
        return dict(
            status=c.status or "sandbox",
            platform_account_id=c.platform_account_id or None,
            handle=c.handle or None,
            avatar_url=c.avatar_url or None,
            instance_url=c.instance_url or None,
            scopes=list(c.scopes),
            token_expires_at=timestamp(c.token_expire_time) if c.HasField("token_expire_time") else None,
            connected_at=timestamp(c.connect_time) if c.HasField("connect_time") else None,
            error=c.error or None,
            token_renewable=c.token_renewable,
        )


class Profile(Response):
    """A destination profile, named by its slug, and its platform account."""

    id: Annotated[str, _id("prf")]
    slug: str
    connector: Connector
    display_name: str
    tags: list[str] = Field(description="Lowercase.")
    created_at: UtcTimestamp
    connection: ProfileConnection
    default_language: str | None = Field(
        description="The language its posts get when a post names none (a BCP 47 tag); null when unset."
    )

    @classmethod
    def from_proto(cls, p: profiles_pb2.Profile) -> dict[str, Any]:
        return dict(
            id=p.id,
            slug=p.slug,
            connector=p.connector,
            display_name=p.display_name,
            tags=list(p.tags),
            created_at=timestamp(p.create_time),
            connection=ProfileConnection.from_proto(p.connection),
            default_language=p.default_language or None,
        )


class ThreadPart(Response):
    """A thread item as delivered: `pending` (not sent yet), `published`, `failed` (refused for good:
    not on the platform) or `skipped` (never sent: an earlier part failed)."""

    content: str
    media_ids: list[str]
    status: PartStatus
    platform_post_id: str | None
    url: str | None

    @classmethod
    def from_proto(cls, p: posts_pb2.PostPart) -> dict[str, Any]:
        return dict(
            content=p.content,
            media_ids=list(p.media_ids),
            status=p.status,
            platform_post_id=p.platform_post_id or None,
            url=p.platform_url or None,
        )


class Post(Response):
    """A post made for one profile: what it sends, its status and schedule, and how its delivery went
    (docs/posts.md)."""

    id: Annotated[str, _id("pst")]
    group_id: Annotated[
        str,
        _id(
            "grp",
            "Its post group: the same for every post one creating request made, never a post's id "
            "(GET /v1/post-groups/{group_id}).",
        ),
    ]
    profile: str = Field(description="Slug of the profile it was created for.")
    connector: Connector
    content: str
    status: PostStatus
    schedule_at: UtcTimestamp
    created_at: UtcTimestamp
    media_ids: list[str]
    post_type: AnyPostType
    title: str | None
    failure_reason: FailureReason | None
    failure_detail: str | None = Field(description="Herald's explanation of failure_reason, when it has one.")
    platform_error: str | None = Field(description="The platform's own message.")
    platform_post_id: str | None
    url: str | None = Field(
        description="The published post's URL: the platform's page of it, or in sandbox mode (nothing is on the "
        "platform) Herald's page of the post, at its outbox entry."
    )
    published_at: UtcTimestamp | None
    attempts: int = Field(ge=0)
    updated_at: UtcTimestamp
    thread: list[ThreadPart] = Field(description="The thread published after the post, item by item; [] when none.")
    first_comment: str | None = Field(description="The first comment posted after the post (and its thread).")
    first_comment_id: str | None = Field(description="The platform's id of the first comment, once posted.")
    first_comment_status: PartStatus | None
    language: str | None = Field(
        description="The language of its text (a BCP 47 tag): the request's, else the profile's default_language."
    )
    tiktok: TikTokSettings | None = Field(description="The TikTok settings the request chose; null when none.")

    @classmethod
    def from_proto(cls, p: posts_pb2.Post) -> dict[str, Any]:
        comment = p.first_comment if p.HasField("first_comment") else None
        return dict(
            id=p.id,
            group_id=p.group_id,
            profile=p.profile,
            connector=p.connector,
            content=p.content,
            status=POST_STATUSES[p.status],
            schedule_at=timestamp(p.schedule_time),
            created_at=timestamp(p.create_time),
            media_ids=list(p.media_ids),
            post_type=p.post_type,
            title=p.title if p.HasField("title") else None,
            failure_reason=p.failure_reason or None,
            failure_detail=p.failure_detail or None,
            platform_error=p.platform_error or None,
            platform_post_id=p.platform_post_id or None,
            url=p.platform_url or None,
            published_at=timestamp(p.publish_time) if p.HasField("publish_time") else None,
            attempts=p.attempts,
            updated_at=timestamp(p.update_time),
            thread=[ThreadPart.from_proto(t) for t in p.thread],
            first_comment=comment.content if comment else None,
            first_comment_id=(comment.platform_post_id or None) if comment else None,
            first_comment_status=comment.status if comment else None,
            language=p.language if p.HasField("language") else None,
            tiktok=TikTokSettings.from_proto(p.tiktok) if p.HasField("tiktok") else None,
        )


class OutboxEntry(Response):
    """One recorded delivery of a post (sandbox: the exact platform requests, not sent)."""

    id: Annotated[str, _id("obx")]
    post_id: str
    connector: Connector
    mode: Literal["sandbox", "live"]
    requests: list[dict[str, Any]] = Field(description="The platform requests, in order.")
    platform_post_id: str
    url: str
    created_at: UtcTimestamp
    part: Literal["post", "thread", "first_comment"] = Field(description="What this delivery published.")
    position: int | None = Field(description="The thread item's index (0-based) when part is thread.")

    @classmethod
    def from_proto(cls, e: posts_pb2.OutboxEntry) -> dict[str, Any]:
        return dict(
            id=e.id,
            post_id=e.post_id,
            connector=e.connector,
            mode=e.mode,
            requests=json.loads(e.requests_json),
            platform_post_id=e.platform_post_id,
            url=e.platform_url,
            created_at=timestamp(e.create_time),
            part=e.part or "post",
            position=e.position if e.part == "thread" else None,
        )


PostEventKind = Literal[
    "created",
    "edited",
    "rescheduled",
    "scheduled",
    "canceled",
    "retried",
    "claimed",
    "attempt_failed",
    "part_published",
    "part_failed",
    "published",
    "partially_published",
    "failed",
]


class PostEventDetail(Response):
    """The facts of one step of a post's history: only those that apply to its kind are present."""

    attempt: int = Field(
        default=None,
        ge=1,
        description="The delivery attempt (1-based): claimed, attempt_failed, part_published, part_failed, "
        "published, partially_published, failed.",
    )
    recovered: bool = Field(
        default=None,
        description="claimed: the previous worker's lease ran out; the delivery is looked up before anything is "
        "sent again.",
    )
    reason: str = Field(
        default=None,
        description="attempt_failed: the error's class (retryable, uncertain, permanent, needs_reauth); failed, "
        "part_failed, partially_published: the failure_reason; retried: why the post had failed.",
    )
    error: str = Field(default=None, description="What the platform (or Herald) said, up to 500 characters.")
    will_retry: bool = Field(default=None, description="attempt_failed: whether the post is tried again.")
    next_attempt_at: UtcTimestamp = Field(
        default=None, description="attempt_failed, when it is tried again: not before this time."
    )
    part: Literal["thread", "first_comment"] = Field(
        default=None,
        description="part_published, part_failed, and an attempt_failed of a part: the thread item (`position`) "
        "or the first comment.",
    )
    position: int = Field(default=None, ge=0, description="The thread item's index (0-based) when part is thread.")
    platform_post_id: str = Field(default=None, description="published, part_published: the platform's id.")
    status: PostStatus = Field(
        default=None, description="created, scheduled, and an edit that moved the post: its status after."
    )
    schedule_at: UtcTimestamp = Field(
        default=None, description="created (with a send time), scheduled, rescheduled, edited: the send time it got."
    )
    fields: list[str] = Field(
        default=None,
        description="edited: what changed (content, schedule_at, media_ids, thread, first_comment, language, tiktok).",
    )
    request_id: str = Field(
        default=None,
        description="The X-Request-Id of the request that made the change; absent for what the publisher did.",
    )

    @classmethod
    def from_proto(cls, e: posts_pb2.PostEvent) -> dict[str, Any]:
        detail: dict[str, Any] = {}
        for name in ("attempt", "recovered", "reason", "error", "will_retry", "part", "position"):
            if e.HasField(name):
                detail[name] = getattr(e, name)
        if e.HasField("next_attempt_time"):
            detail["next_attempt_at"] = timestamp(e.next_attempt_time)
        for name in ("platform_post_id", "status"):
            if e.HasField(name):
                detail[name] = getattr(e, name)
        if e.HasField("schedule_time"):
            detail["schedule_at"] = timestamp(e.schedule_time)
        if e.fields:
            detail["fields"] = list(e.fields)
        if e.HasField("request_id"):
            detail["request_id"] = e.request_id
        return detail


class PostEvent(Response):
    """One step of a post's history (docs/posts.md, "History")."""

    id: Annotated[str, _id("pev")]
    post_id: str
    kind: PostEventKind = Field(
        description="created, edited, rescheduled (only the send time changed), scheduled (a draft taken out of "
        "draft), canceled, retried, claimed (a worker began an attempt), attempt_failed, part_published, "
        "part_failed (a thread item or the first comment), published, partially_published, failed."
    )
    at: UtcTimestamp = Field(description="When it happened.")
    detail: PostEventDetail

    @classmethod
    def from_proto(cls, e: posts_pb2.PostEvent) -> dict[str, Any]:
        return dict(
            id=e.id,
            post_id=e.post_id,
            kind=e.kind,
            at=timestamp(e.event_time),
            detail=PostEventDetail.from_proto(e),
        )


class PostEvents(Response):
    """A page of a post's history, oldest first (or newest first, as asked)."""

    events: list[PostEvent]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: posts_pb2.ListPostEventsResponse) -> dict[str, Any]:
        return _page("events", [PostEvent.from_proto(e) for e in r.events], r.next_page_token)


class Media(Response):
    """A file of the media library: its type, size and name, its status, content_hash and image
    dimensions (docs/media.md)."""

    media_id: Annotated[str, _id("med")]
    type: MediaKind
    mime_type: MimeType
    size_bytes: int = Field(ge=0)
    name: str = Field(description="The original filename.")
    description: str = Field(description="Empty string by default.")
    tags: str = Field(description="Comma-separated, lowercased; empty string by default.")
    created_at: UtcTimestamp
    status: Literal["pending", "confirmed"]
    content_hash: Annotated[str, Field(pattern="^[0-9a-f]{64}$")] | None
    width: Annotated[int, Field(ge=1)] | None
    height: Annotated[int, Field(ge=1)] | None

    @classmethod
    def from_proto(cls, m: media_pb2.Media) -> dict[str, Any]:
        return dict(
            media_id=m.media_id,
            type=m.type,
            mime_type=m.mime_type,
            size_bytes=m.size_bytes,
            name=m.name,
            description=m.description,
            tags=m.tags,
            created_at=timestamp(m.create_time),
            status=m.status,
            content_hash=m.content_hash or None,
            width=m.width or None,
            height=m.height or None,
        )


class PresignResult(Response):
    """An upload registered: PUT the bytes to `upload_url`, then confirm."""

    media_id: Annotated[str, _id("med")]
    upload_url: str = Field(
        json_schema_extra={"format": "uri"},
        description="PUT the raw bytes here with `Content-Type` equal to the declared mime_type.",
    )
    expires_in: int = Field(description="Seconds until upload_url expires.")

    @classmethod
    def from_proto(cls, u: media_pb2.Upload) -> dict[str, Any]:
        return dict(media_id=u.media_id, upload_url=u.upload_url, expires_in=u.expires_in)


class PresignDuplicate(Response):
    """The library already holds these bytes (by content_hash): nothing was created."""

    media_id: Annotated[str, _id("med")]
    duplicate: Literal[True]

    @classmethod
    def from_proto(cls, u: media_pb2.Upload) -> dict[str, Any]:
        return dict(media_id=u.media_id, duplicate=True)


class LedgerEntry(Response):
    """One movement of credits."""

    id: Annotated[str, _id("led")]
    delta: int = Field(description="Credits added (positive) or spent (negative).")
    balance_after: int
    reason: str = Field(description="e.g. `grant`, `post_delivery`, `refund`.")
    reference: str = Field(description="What the entry is for, e.g. the post id.")
    created_at: UtcTimestamp

    @classmethod
    def from_proto(cls, e: credits_pb2.LedgerEntry) -> dict[str, Any]:
        return dict(
            id=e.id,
            delta=e.delta,
            balance_after=e.balance_after,
            reason=e.reason,
            reference=e.reference,
            created_at=timestamp(e.create_time),
        )


class CreditAccount(Response):
    """The organization's credit balance, plan and most recent ledger entries."""

    organization: str = Field(description="The organization's slug.")
    balance: int
    plan: Plan
    low_credit_threshold: int
    ledger: list[LedgerEntry] = Field(description="Newest first.")

    @classmethod
    def from_proto(cls, a: credits_pb2.CreditAccount) -> dict[str, Any]:
        return dict(
            organization=a.organization,
            balance=a.balance,
            plan=PLANS.get(a.plan, "none"),
            low_credit_threshold=a.low_credit_threshold,
            ledger=[LedgerEntry.from_proto(e) for e in a.recent_entries],
        )


# Present only when there is a next page: pass it back as `page_token`.
NextPageToken = Annotated[
    str,
    Field(
        default=None,
        min_length=1,
        description="Present only when there is a next page; pass it back as `page_token`.",
    ),
]


def _page(key: str, items: list[dict[str, Any]], token: str) -> dict[str, Any]:
    """A list body: `{key: items}`, plus `next_page_token` only when there is a next page."""
    return {key: items, "next_page_token": token} if token else {key: items}


class TimeSlotOut(Response):
    day: Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    time: str = Field(description="HH:MM, 24-hour, in the table's time zone.")


class ProfileSlots(Response):
    """A profile's weekly publishing times (an unset table: UTC and no slots)."""

    timezone: str = Field(description="An IANA time zone name.")
    slots: list[TimeSlotOut]

    @classmethod
    def from_proto(cls, t: profiles_pb2.ProfileSlots) -> dict[str, Any]:
        return dict(timezone=t.timezone, slots=[{"day": s.day, "time": s.time} for s in t.slots])


class ProfileList(Response):
    """A page of profiles, in slug order."""

    profiles: list[Profile]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: profiles_pb2.ListProfilesResponse) -> dict[str, Any]:
        return _page("profiles", [Profile.from_proto(p) for p in r.profiles], r.next_page_token)


class PostList(Response):
    """A page of posts, newest first."""

    posts: list[Post]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: posts_pb2.ListPostsResponse) -> dict[str, Any]:
        return _page("posts", [Post.from_proto(p) for p in r.posts], r.next_page_token)


class CreatedPosts(Response):
    """The posts created, one per profile, in the order of `profiles`, and what some destination
    does not use of the request."""

    posts: list[Post]
    notices: list[Notice] = Field(
        description="Per profile, each request field its destination does not use (code FIELD_IGNORED): the "
        "post was created without it. [] when every destination uses everything sent."
    )

    @classmethod
    def from_proto(cls, r: posts_pb2.CreatePostsResponse) -> dict[str, Any]:
        return dict(posts=[Post.from_proto(p) for p in r.posts], notices=notices_of(r.notices))


class PostGroup(Response):
    """A post group: the posts one creating request made (one per profile), canceled ones too, in
    creation order (docs/posts.md, "Post groups")."""

    id: Annotated[str, _id("grp")]
    created_at: UtcTimestamp = Field(description="When its posts were accepted.")
    posts: list[Post]

    @classmethod
    def from_proto(cls, g: posts_pb2.PostGroup) -> dict[str, Any]:
        return dict(id=g.id, created_at=timestamp(g.create_time), posts=[Post.from_proto(p) for p in g.posts])


class OutboxEntries(Response):
    """A post's recorded deliveries, oldest first."""

    entries: list[OutboxEntry]

    @classmethod
    def from_proto(cls, r: posts_pb2.ListOutboxEntriesResponse) -> dict[str, Any]:
        return dict(entries=[OutboxEntry.from_proto(e) for e in r.entries])


class MediaList(Response):
    """A page of confirmed media, newest first."""

    media: list[Media]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: media_pb2.ListMediaResponse) -> dict[str, Any]:
        return _page("media", [Media.from_proto(m) for m in r.media], r.next_page_token)


class LedgerPage(Response):
    """A page of the credit ledger, newest first."""

    entries: list[LedgerEntry]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: credits_pb2.ListLedgerEntriesResponse) -> dict[str, Any]:
        return _page("entries", [LedgerEntry.from_proto(e) for e in r.entries], r.next_page_token)


class UploadInstructions(BaseModel):
    method: str
    url: str
    headers: dict[str, str]


class PresignTicket(Response):
    """create_media's result: the record to confirm and how to upload its bytes."""

    media_id: str
    duplicate: bool
    upload_url: str | None
    expires_in: int | None
    upload: UploadInstructions | None
    next_step: str

    @classmethod
    def from_upload(cls, upload: media_pb2.Upload, request: Any) -> dict[str, Any]:  # a PresignRequest
        if upload.duplicate:
            return dict(
                media_id=upload.media_id,
                duplicate=True,
                upload_url=None,
                expires_in=None,
                upload=None,
                next_step="Nothing to upload: the library already holds these bytes. Use media_id in create_post.",
            )
        return dict(
            media_id=upload.media_id,
            duplicate=False,
            upload_url=upload.upload_url,
            expires_in=upload.expires_in,
            upload=dict(method="PUT", url=upload.upload_url, headers={"Content-Type": request.mime_type}),
            next_step=f"PUT the raw bytes ({request.size_bytes} of them) to upload_url with the header "
            f"Content-Type: {request.mime_type} within {upload.expires_in} s (no Authorization header), then call "
            "confirm_media with media_id.",
        )
