"""The posts' resources (docs/api.md, "Resources"; docs/posts.md): a post and its thread, its
group, its recorded deliveries and its history, each built from its proto message."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from herald.posts.v1 import posts_pb2
from pydantic import Field

from contract.base import FromCatalog, Response, UtcTimestamp, timestamp
from contract.post_options import Notice, TikTokSettings, notices_of
from contract.resources import Connector, NextPageToken, _id, _page

POST_STATUSES: dict[int, str] = {
    posts_pb2.POST_STATUS_SCHEDULED: "scheduled",
    posts_pb2.POST_STATUS_QUEUED: "queued",
    posts_pb2.POST_STATUS_PUBLISHING: "publishing",
    posts_pb2.POST_STATUS_PUBLISHED: "published",
    posts_pb2.POST_STATUS_FAILED: "failed",
    posts_pb2.POST_STATUS_CANCELED: "canceled",
    posts_pb2.POST_STATUS_DRAFT: "draft",
    posts_pb2.POST_STATUS_PARTIALLY_PUBLISHED: "partially_published",
    posts_pb2.POST_STATUS_PENDING_APPROVAL: "pending_approval",
}
PostStatus = Literal[
    "scheduled",
    "queued",
    "publishing",
    "published",
    "failed",
    "canceled",
    "draft",
    "partially_published",
    "pending_approval",
]
PartStatus = Literal["pending", "published", "failed", "skipped"]

# Values the core's catalog enumerates.
AnyPostType = Annotated[
    str, FromCatalog(lambda c: Literal[tuple(sorted({t for types in c.post_types.values() for t in types}))])
]
FailureReason = Annotated[str, FromCatalog(lambda c: Literal[tuple(c.message.failure_reasons)])]


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


class PostReview(Response):
    """The last review of a post that needed approval (docs/teams.md, "Approvals")."""

    outcome: Literal["approved", "rejected"]
    reviewer: str = Field(description="The reviewer's email address.")
    reviewed_at: UtcTimestamp
    comment: str | None = Field(description="What the reviewer said; null when nothing.")

    @classmethod
    def from_proto(cls, r: posts_pb2.Review) -> dict[str, Any]:
        return dict(
            outcome=r.outcome,
            reviewer=r.reviewer_email,
            reviewed_at=timestamp(r.review_time),
            comment=r.comment or None,
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
    review: PostReview | None = Field(
        description="Its last review, for a post that needed approval (approved, or rejected back to draft); null "
        "otherwise."
    )

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
            review=PostReview.from_proto(p.review) if p.HasField("review") else None,
        )


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


class OutboxEntries(Response):
    """A post's recorded deliveries, oldest first."""

    entries: list[OutboxEntry]

    @classmethod
    def from_proto(cls, r: posts_pb2.ListOutboxEntriesResponse) -> dict[str, Any]:
        return dict(entries=[OutboxEntry.from_proto(e) for e in r.entries])


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
    "approval_requested",
    "approved",
    "rejected",
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
    comment: str = Field(default=None, description="approved, rejected: what the reviewer said, when they said it.")

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
        if e.HasField("comment"):
            detail["comment"] = e.comment
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
