"""The arguments of the posts' operations (docs/api.md, "Route reference"): creation, listing,
each post's and each group's actions, each converting itself to its core request message."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.posts.v1 import posts_pb2
from pydantic import BaseModel, ConfigDict, Field, create_model

from contract.base import DateTime, FromCatalog, InHeader, InPath, InQuery, Request, UniqueStrings
from contract.catalog import Catalog
from contract.post_options import Language, TikTokOptions
from contract.post_resources import PostStatus
from contract.requests import ABSENT, Content, MediaIds, PageToken, _page_size, rpc_path
from contract.resources import Connector


def _post_types_model(catalog: Catalog) -> type[BaseModel]:
    """`post_types`: platform key → one of that platform's post types (the first is its default)."""
    fields: dict[str, Any] = {
        key: (Literal[types] | None, Field(default=None, description=f"Default: {types[0]}."))  # type: ignore[valid-type]
        for key, types in catalog.post_types.items()
    }
    return create_model("PostTypes", __config__=ConfigDict(extra="forbid", strict=True), **fields)


def _post_types(value: Any) -> dict[str, str]:  # the catalog-bound PostTypes model
    if isinstance(value, BaseModel):
        return {k: v for k, v in value.model_dump().items() if v is not None}
    return dict(value or {})


class ThreadItem(Request):
    """One item of a thread: published as a reply to the item before it (the first to the post)."""

    content: Content
    media_ids: MediaIds | None = None

    def to_proto(self) -> posts_pb2.ThreadItem:
        return posts_pb2.ThreadItem(content=self.content, media_ids=self.media_ids or [])


Thread = Annotated[
    list[ThreadItem],
    FromCatalog(lambda c: Field(min_length=1, max_length=c.limits.max_thread_items)),
    Field(
        description="Published after the post as a reply chain by the same account, item by item, on x, "
        "bluesky, threads and mastodon; each item is checked by the platform's rules like the content. "
        "Each item costs one delivery.",
    ),
]
FirstComment = Annotated[
    str,
    FromCatalog(lambda c: Field(min_length=1, max_length=c.limits.max_content_chars)),
    Field(
        pattern=r"\S",
        description="Posted by the same account right after the post (and its thread): a comment on "
        "instagram, youtube and linkedin, a self-reply on x, bluesky, threads and mastodon; tiktok cannot. Free.",
    ),
]


def _thread_message(items: list[ThreadItem]) -> posts_pb2.Thread:
    return posts_pb2.Thread(items=[item.to_proto() for item in items])


class Customization(Request):
    """One profile's version: each field present replaces the request's value for that profile only."""

    content: Content | None = None
    media_ids: MediaIds | None = None
    title: Annotated[str | None, FromCatalog(lambda c: Field(max_length=c.limits.max_title_chars))] = None
    post_type: Annotated[str | None, Field(min_length=1, description="One of the profile's platform's post types.")] = (
        None
    )
    thread: Annotated[
        list[ThreadItem] | None,
        FromCatalog(lambda c: Field(max_length=c.limits.max_thread_items)),
        Field(description="This profile's thread; [] sends none to this profile."),
    ] = None
    first_comment: FirstComment | None = None
    language: Language | None = None
    tiktok: Annotated[TikTokOptions | None, Field(description="This profile's TikTok settings (the whole object).")] = (
        None
    )

    def to_proto(self) -> posts_pb2.Customization:
        message = posts_pb2.Customization()
        for name in ("content", "title", "post_type", "first_comment", "language"):
            if (value := getattr(self, name)) is not None:
                setattr(message, name, value)
        if self.tiktok is not None:
            message.tiktok.CopyFrom(self.tiktok.to_proto())
        if self.media_ids is not None:
            message.media_ids.ids.extend(self.media_ids)
        if self.thread is not None:
            message.thread.CopyFrom(_thread_message(self.thread))
        return message


class PostFields(Request):
    """The fields of a post as POST /v1/posts takes them (also checked by the dry run)."""

    content: Content
    profiles: Annotated[
        UniqueStrings,
        FromCatalog(lambda c: Field(min_length=1, max_length=c.limits.max_profiles)),
        Field(description="Profile slugs of this organization; one post is created per profile."),
    ]
    schedule_at: Annotated[
        DateTime | None,
        Field(
            description="ISO 8601 with an offset; omitted: publish now. At most 60 s in the past, "
            "at most 366 days ahead."
        ),
    ] = None
    media_ids: MediaIds | None = None
    post_types: Annotated[
        dict[str, str] | None,
        FromCatalog(_post_types_model),
        Field(description="Per-platform post type; platforms the request does not post to are ignored."),
    ] = None
    title: Annotated[
        str | None,
        FromCatalog(lambda c: Field(max_length=c.limits.max_title_chars)),
        Field(description="Title for the video platform (required there)."),
    ] = None
    thread: Thread | None = None
    first_comment: FirstComment | None = None
    customizations: Annotated[
        dict[str, Customization] | None,
        Field(
            description="Per-profile versions keyed by profile slug (each one of `profiles`): content, media_ids, "
            "title, post_type, thread, first_comment, language or tiktok for that profile's post only. "
            "generate_thread's drafts drop in as customizations[profile] = draft.post."
        ),
    ] = None
    draft: Annotated[
        bool,
        Field(
            description="Create drafts: never published or charged, not bound by the scheduling horizon; "
            "edit them with PATCH, publish them with POST /v1/posts/{post_id}/schedule."
        ),
    ] = False
    next_slot: Annotated[
        bool,
        Field(
            description="Each profile's post takes that profile's next free time slot "
            "(PUT /v1/profiles/{slug}/slots); not with schedule_at."
        ),
    ] = False
    language: Annotated[
        Language | None, Field(description="Omitted: each profile's default_language (none when unset).")
    ] = None
    tiktok: Annotated[
        TikTokOptions | None,
        Field(
            description="How TikTok posts are published: privacy_level, disable_comment, disable_duet, "
            "disable_stitch, auto_add_music. Other destinations ignore it (a notice says so)."
        ),
    ] = None

    def create_message(self, request_id: str = "") -> posts_pb2.CreatePostsRequest:
        message = posts_pb2.CreatePostsRequest(
            content=self.content,
            profiles=self.profiles,
            media_ids=self.media_ids or [],
            post_types=_post_types(self.post_types),
            request_id=request_id,
            draft=self.draft,
            next_slot=self.next_slot,
        )
        if self.schedule_at is not None:
            message.schedule_at = self.schedule_at
        if self.title is not None:
            message.title = self.title
        if self.thread is not None:
            message.thread.CopyFrom(_thread_message(self.thread))
        if self.first_comment is not None:
            message.first_comment = self.first_comment
        if self.language is not None:
            message.language = self.language
        if self.tiktok is not None:
            message.tiktok.CopyFrom(self.tiktok.to_proto())
        for slug, version in (self.customizations or {}).items():
            message.customizations[slug].CopyFrom(version.to_proto())
        return message


class CreatePostsRequest(PostFields):
    """Publish or schedule one post per named profile."""

    idempotency_key: Annotated[
        str | None,
        InHeader("Idempotency-Key"),
        FromCatalog(lambda c: Field(max_length=c.limits.max_idempotency_key_chars)),
        Field(
            min_length=1,
            pattern=r"^[!-~]([ -~]*[!-~])?$",
            description="Printable ASCII. The same key with the same request within 24 hours answers the "
            "first response again and creates nothing; with a different request: IDEMPOTENCY_KEY_REUSED.",
        ),
    ] = None

    def to_proto(self) -> posts_pb2.CreatePostsRequest:
        return self.create_message(self.idempotency_key or "")


class ListPostsRequest(Request):
    """Filters combine with AND."""

    status: Annotated[PostStatus | None, InQuery(), Field(description="Only posts in this status.")] = None
    profile: Annotated[str | None, InQuery(), Field(min_length=1, description="Only posts for this profile slug.")] = (
        None
    )
    connector: Annotated[Connector | None, InQuery(), Field(description="Only posts to this platform.")] = None
    scheduled_after: Annotated[
        DateTime | None, InQuery(), Field(description="Only posts scheduled at or after this time (inclusive).")
    ] = None
    scheduled_before: Annotated[
        DateTime | None, InQuery(), Field(description="Only posts scheduled before this time (exclusive).")
    ] = None
    group_id: Annotated[
        str | None,
        InQuery(),
        Field(min_length=1, description="Only the posts of this post group (the posts one creating request made)."),
    ] = None
    page_size: _page_size(rpc_path(posts_pb2, "PostService", "ListPosts")) = 0  # type: ignore[valid-type]
    page_token: PageToken = None

    def to_proto(self) -> posts_pb2.ListPostsRequest:
        return posts_pb2.ListPostsRequest(
            status=self.status or "",
            profile=self.profile or "",
            connector=self.connector or "",
            scheduled_after=self.scheduled_after or "",
            scheduled_before=self.scheduled_before or "",
            group_id=self.group_id or "",
            page_size=self.page_size,
            page_token=self.page_token or "",
        )


PostId = Annotated[str, InPath(), Field(min_length=1, description="The post's `id`.")]


class GetPostRequest(Request):
    post_id: PostId

    def to_proto(self) -> posts_pb2.GetPostRequest:
        return posts_pb2.GetPostRequest(post_id=self.post_id)


class CancelPostRequest(Request):
    post_id: PostId

    def to_proto(self) -> posts_pb2.CancelPostRequest:
        return posts_pb2.CancelPostRequest(post_id=self.post_id)


class RetryPostRequest(Request):
    post_id: PostId

    def to_proto(self) -> posts_pb2.RetryPostRequest:
        return posts_pb2.RetryPostRequest(post_id=self.post_id)


class ListOutboxRequest(Request):
    post_id: PostId

    def to_proto(self) -> posts_pb2.ListOutboxEntriesRequest:
        return posts_pb2.ListOutboxEntriesRequest(post_id=self.post_id)


class ListPostEventsRequest(Request):
    """A post's history, oldest first unless `order` is `newest`."""

    post_id: PostId
    order: Annotated[
        Literal["oldest", "newest"] | None,
        InQuery(),
        Field(description="`oldest` (the default) or `newest` first."),
    ] = None
    page_size: _page_size(rpc_path(posts_pb2, "PostService", "ListPostEvents")) = 0  # type: ignore[valid-type]
    page_token: PageToken = None

    def to_proto(self) -> posts_pb2.ListPostEventsRequest:
        return posts_pb2.ListPostEventsRequest(
            post_id=self.post_id,
            newest_first=self.order == "newest",
            page_size=self.page_size,
            page_token=self.page_token or "",
        )


class UpdatePostRequest(Request):
    """Only while the post is a draft, `scheduled` or `queued`; absent fields are kept."""

    post_id: PostId
    content: Content = ABSENT
    schedule_at: Annotated[DateTime, Field(description="ISO 8601 with an offset.")] = ABSENT
    media_ids: Annotated[MediaIds, Field(description="Replaces the attachments (`[]` removes them all).")] = ABSENT
    thread: Annotated[
        list[ThreadItem],
        FromCatalog(lambda c: Field(max_length=c.limits.max_thread_items)),
        Field(description="Replaces the thread (`[]` removes it); items are {content, media_ids}."),
    ] = ABSENT
    first_comment: Annotated[
        str,
        FromCatalog(lambda c: Field(max_length=c.limits.max_content_chars)),
        Field(description='Replaces the first comment ("" removes it).'),
    ] = ABSENT
    language: Annotated[
        str, Field(max_length=35, description='Replaces the language, a BCP 47 tag ("" removes it).')
    ] = ABSENT
    tiktok: Annotated[
        TikTokOptions, Field(description="Replaces a TikTok post's settings ({} goes back to every default).")
    ] = ABSENT

    def to_proto(self) -> posts_pb2.UpdatePostRequest:
        message = posts_pb2.UpdatePostRequest(post_id=self.post_id)
        if self.content is not None:
            message.content = self.content
        if self.schedule_at is not None:
            message.schedule_at = self.schedule_at
        if self.media_ids is not None:
            message.update_media_ids = True
            message.media_ids.extend(self.media_ids)
        if self.thread is not None:
            message.thread.CopyFrom(_thread_message(self.thread))
        if self.first_comment is not None:
            message.first_comment = self.first_comment
        if self.language is not None:
            message.language = self.language
        if self.tiktok is not None:
            message.tiktok.CopyFrom(self.tiktok.to_proto())
        return message


class SchedulePostRequest(Request):
    """Takes a draft out of draft, with every check of creation."""

    post_id: PostId
    schedule_at: Annotated[
        DateTime | None, Field(description="ISO 8601 with an offset; omitted (and no next_slot): publish now.")
    ] = None
    next_slot: Annotated[bool, Field(description="The profile's next free time slot instead.")] = False

    def to_proto(self) -> posts_pb2.SchedulePostRequest:
        message = posts_pb2.SchedulePostRequest(post_id=self.post_id, next_slot=self.next_slot)
        if self.schedule_at is not None:
            message.schedule_at = self.schedule_at
        return message


GroupId = Annotated[
    str, InPath(), Field(min_length=1, description="The post group's id (`grp_…`), the `group_id` of its posts.")
]


class GetPostGroupRequest(Request):
    group_id: GroupId

    def to_proto(self) -> posts_pb2.GetPostGroupRequest:
        return posts_pb2.GetPostGroupRequest(group_id=self.group_id)


class ReschedulePostGroupRequest(Request):
    """Moves every post of the group that is not canceled, all or nothing."""

    group_id: GroupId
    schedule_at: Annotated[
        DateTime,
        Field(
            description="ISO 8601 with an offset, checked for each post as PATCH checks it: at most 60 s in the "
            "past and 366 days ahead (a draft takes any time and stays a draft)."
        ),
    ]

    def to_proto(self) -> posts_pb2.ReschedulePostGroupRequest:
        return posts_pb2.ReschedulePostGroupRequest(group_id=self.group_id, schedule_at=self.schedule_at)


class CancelPostGroupRequest(Request):
    group_id: GroupId

    def to_proto(self) -> posts_pb2.CancelPostGroupRequest:
        return posts_pb2.CancelPostGroupRequest(group_id=self.group_id)
