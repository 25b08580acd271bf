import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PostStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POST_STATUS_UNSPECIFIED: _ClassVar[PostStatus]
    POST_STATUS_SCHEDULED: _ClassVar[PostStatus]
    POST_STATUS_QUEUED: _ClassVar[PostStatus]
    POST_STATUS_PUBLISHING: _ClassVar[PostStatus]
    POST_STATUS_PUBLISHED: _ClassVar[PostStatus]
    POST_STATUS_FAILED: _ClassVar[PostStatus]
    POST_STATUS_CANCELED: _ClassVar[PostStatus]
    POST_STATUS_DRAFT: _ClassVar[PostStatus]
    POST_STATUS_PARTIALLY_PUBLISHED: _ClassVar[PostStatus]
    POST_STATUS_PENDING_APPROVAL: _ClassVar[PostStatus]
POST_STATUS_UNSPECIFIED: PostStatus
POST_STATUS_SCHEDULED: PostStatus
POST_STATUS_QUEUED: PostStatus
POST_STATUS_PUBLISHING: PostStatus
POST_STATUS_PUBLISHED: PostStatus
POST_STATUS_FAILED: PostStatus
POST_STATUS_CANCELED: PostStatus
POST_STATUS_DRAFT: PostStatus
POST_STATUS_PARTIALLY_PUBLISHED: PostStatus
POST_STATUS_PENDING_APPROVAL: PostStatus

class Review(_message.Message):
    __slots__ = ("outcome", "reviewer_id", "reviewer_email", "review_time", "comment")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    REVIEWER_ID_FIELD_NUMBER: _ClassVar[int]
    REVIEWER_EMAIL_FIELD_NUMBER: _ClassVar[int]
    REVIEW_TIME_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    outcome: str
    reviewer_id: str
    reviewer_email: str
    review_time: _timestamp_pb2.Timestamp
    comment: str
    def __init__(self, outcome: _Optional[str] = ..., reviewer_id: _Optional[str] = ..., reviewer_email: _Optional[str] = ..., review_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., comment: _Optional[str] = ...) -> None: ...

class ThreadItem(_message.Message):
    __slots__ = ("content", "media_ids")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEDIA_IDS_FIELD_NUMBER: _ClassVar[int]
    content: str
    media_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, content: _Optional[str] = ..., media_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class Thread(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ThreadItem]
    def __init__(self, items: _Optional[_Iterable[_Union[ThreadItem, _Mapping]]] = ...) -> None: ...

class MediaIdList(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ids: _Optional[_Iterable[str]] = ...) -> None: ...

class Customization(_message.Message):
    __slots__ = ("content", "media_ids", "title", "post_type", "thread", "first_comment", "language", "tiktok")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEDIA_IDS_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    POST_TYPE_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    FIRST_COMMENT_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TIKTOK_FIELD_NUMBER: _ClassVar[int]
    content: str
    media_ids: MediaIdList
    title: str
    post_type: str
    thread: Thread
    first_comment: str
    language: str
    tiktok: TikTokOptions
    def __init__(self, content: _Optional[str] = ..., media_ids: _Optional[_Union[MediaIdList, _Mapping]] = ..., title: _Optional[str] = ..., post_type: _Optional[str] = ..., thread: _Optional[_Union[Thread, _Mapping]] = ..., first_comment: _Optional[str] = ..., language: _Optional[str] = ..., tiktok: _Optional[_Union[TikTokOptions, _Mapping]] = ...) -> None: ...

class TikTokOptions(_message.Message):
    __slots__ = ("privacy_level", "disable_comment", "disable_duet", "disable_stitch", "auto_add_music")
    PRIVACY_LEVEL_FIELD_NUMBER: _ClassVar[int]
    DISABLE_COMMENT_FIELD_NUMBER: _ClassVar[int]
    DISABLE_DUET_FIELD_NUMBER: _ClassVar[int]
    DISABLE_STITCH_FIELD_NUMBER: _ClassVar[int]
    AUTO_ADD_MUSIC_FIELD_NUMBER: _ClassVar[int]
    privacy_level: str
    disable_comment: bool
    disable_duet: bool
    disable_stitch: bool
    auto_add_music: bool
    def __init__(self, privacy_level: _Optional[str] = ..., disable_comment: _Optional[bool] = ..., disable_duet: _Optional[bool] = ..., disable_stitch: _Optional[bool] = ..., auto_add_music: _Optional[bool] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("profile", "code", "field", "message")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    profile: str
    code: str
    field: str
    message: str
    def __init__(self, profile: _Optional[str] = ..., code: _Optional[str] = ..., field: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class PostPart(_message.Message):
    __slots__ = ("content", "media_ids", "status", "platform_post_id", "platform_url")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEDIA_IDS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_POST_ID_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_URL_FIELD_NUMBER: _ClassVar[int]
    content: str
    media_ids: _containers.RepeatedScalarFieldContainer[str]
    status: str
    platform_post_id: str
    platform_url: str
    def __init__(self, content: _Optional[str] = ..., media_ids: _Optional[_Iterable[str]] = ..., status: _Optional[str] = ..., platform_post_id: _Optional[str] = ..., platform_url: _Optional[str] = ...) -> None: ...

class Post(_message.Message):
    __slots__ = ("id", "profile", "connector", "content", "status", "schedule_time", "create_time", "media_ids", "post_type", "title", "failure_reason", "platform_error", "platform_post_id", "platform_url", "publish_time", "attempts", "update_time", "failure_detail", "thread", "first_comment", "language", "tiktok", "group_id", "review", "author_id", "author_via", "metrics")
    class MetricsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_TIME_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    MEDIA_IDS_FIELD_NUMBER: _ClassVar[int]
    POST_TYPE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_REASON_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_ERROR_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_POST_ID_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_URL_FIELD_NUMBER: _ClassVar[int]
    PUBLISH_TIME_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    FAILURE_DETAIL_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    FIRST_COMMENT_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TIKTOK_FIELD_NUMBER: _ClassVar[int]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    REVIEW_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_ID_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_VIA_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    id: str
    profile: str
    connector: str
    content: str
    status: PostStatus
    schedule_time: _timestamp_pb2.Timestamp
    create_time: _timestamp_pb2.Timestamp
    media_ids: _containers.RepeatedScalarFieldContainer[str]
    post_type: str
    title: str
    failure_reason: str
    platform_error: str
    platform_post_id: str
    platform_url: str
    publish_time: _timestamp_pb2.Timestamp
    attempts: int
    update_time: _timestamp_pb2.Timestamp
    failure_detail: str
    thread: _containers.RepeatedCompositeFieldContainer[PostPart]
    first_comment: PostPart
    language: str
    tiktok: TikTokOptions
    group_id: str
    review: Review
    author_id: str
    author_via: str
    metrics: _containers.ScalarMap[str, int]
    def __init__(self, id: _Optional[str] = ..., profile: _Optional[str] = ..., connector: _Optional[str] = ..., content: _Optional[str] = ..., status: _Optional[_Union[PostStatus, str]] = ..., schedule_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., media_ids: _Optional[_Iterable[str]] = ..., post_type: _Optional[str] = ..., title: _Optional[str] = ..., failure_reason: _Optional[str] = ..., platform_error: _Optional[str] = ..., platform_post_id: _Optional[str] = ..., platform_url: _Optional[str] = ..., publish_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., attempts: _Optional[int] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., failure_detail: _Optional[str] = ..., thread: _Optional[_Iterable[_Union[PostPart, _Mapping]]] = ..., first_comment: _Optional[_Union[PostPart, _Mapping]] = ..., language: _Optional[str] = ..., tiktok: _Optional[_Union[TikTokOptions, _Mapping]] = ..., group_id: _Optional[str] = ..., review: _Optional[_Union[Review, _Mapping]] = ..., author_id: _Optional[str] = ..., author_via: _Optional[str] = ..., metrics: _Optional[_Mapping[str, int]] = ...) -> None: ...

class CreatePostsRequest(_message.Message):
    __slots__ = ("content", "profiles", "schedule_at", "media_ids", "post_types", "title", "request_id", "thread", "first_comment", "customizations", "draft", "next_slot", "language", "tiktok")
    class PostTypesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class CustomizationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: Customization
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[Customization, _Mapping]] = ...) -> None: ...
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_AT_FIELD_NUMBER: _ClassVar[int]
    MEDIA_IDS_FIELD_NUMBER: _ClassVar[int]
    POST_TYPES_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    FIRST_COMMENT_FIELD_NUMBER: _ClassVar[int]
    CUSTOMIZATIONS_FIELD_NUMBER: _ClassVar[int]
    DRAFT_FIELD_NUMBER: _ClassVar[int]
    NEXT_SLOT_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TIKTOK_FIELD_NUMBER: _ClassVar[int]
    content: str
    profiles: _containers.RepeatedScalarFieldContainer[str]
    schedule_at: str
    media_ids: _containers.RepeatedScalarFieldContainer[str]
    post_types: _containers.ScalarMap[str, str]
    title: str
    request_id: str
    thread: Thread
    first_comment: str
    customizations: _containers.MessageMap[str, Customization]
    draft: bool
    next_slot: bool
    language: str
    tiktok: TikTokOptions
    def __init__(self, content: _Optional[str] = ..., profiles: _Optional[_Iterable[str]] = ..., schedule_at: _Optional[str] = ..., media_ids: _Optional[_Iterable[str]] = ..., post_types: _Optional[_Mapping[str, str]] = ..., title: _Optional[str] = ..., request_id: _Optional[str] = ..., thread: _Optional[_Union[Thread, _Mapping]] = ..., first_comment: _Optional[str] = ..., customizations: _Optional[_Mapping[str, Customization]] = ..., draft: _Optional[bool] = ..., next_slot: _Optional[bool] = ..., language: _Optional[str] = ..., tiktok: _Optional[_Union[TikTokOptions, _Mapping]] = ...) -> None: ...

class CreatePostsResponse(_message.Message):
    __slots__ = ("posts", "notices")
    POSTS_FIELD_NUMBER: _ClassVar[int]
    NOTICES_FIELD_NUMBER: _ClassVar[int]
    posts: _containers.RepeatedCompositeFieldContainer[Post]
    notices: _containers.RepeatedCompositeFieldContainer[Notice]
    def __init__(self, posts: _Optional[_Iterable[_Union[Post, _Mapping]]] = ..., notices: _Optional[_Iterable[_Union[Notice, _Mapping]]] = ...) -> None: ...

class ListPostsRequest(_message.Message):
    __slots__ = ("status", "profile", "connector", "scheduled_after", "scheduled_before", "page_size", "page_token", "group_id")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_AFTER_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    status: str
    profile: str
    connector: str
    scheduled_after: str
    scheduled_before: str
    page_size: int
    page_token: str
    group_id: str
    def __init__(self, status: _Optional[str] = ..., profile: _Optional[str] = ..., connector: _Optional[str] = ..., scheduled_after: _Optional[str] = ..., scheduled_before: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., group_id: _Optional[str] = ...) -> None: ...

class ListPostsResponse(_message.Message):
    __slots__ = ("posts", "next_page_token")
    POSTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    posts: _containers.RepeatedCompositeFieldContainer[Post]
    next_page_token: str
    def __init__(self, posts: _Optional[_Iterable[_Union[Post, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetPostRequest(_message.Message):
    __slots__ = ("post_id",)
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    def __init__(self, post_id: _Optional[str] = ...) -> None: ...

class UpdatePostRequest(_message.Message):
    __slots__ = ("post_id", "content", "schedule_at", "update_media_ids", "media_ids", "thread", "first_comment", "language", "tiktok")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MEDIA_IDS_FIELD_NUMBER: _ClassVar[int]
    MEDIA_IDS_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    FIRST_COMMENT_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TIKTOK_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    content: str
    schedule_at: str
    update_media_ids: bool
    media_ids: _containers.RepeatedScalarFieldContainer[str]
    thread: Thread
    first_comment: str
    language: str
    tiktok: TikTokOptions
    def __init__(self, post_id: _Optional[str] = ..., content: _Optional[str] = ..., schedule_at: _Optional[str] = ..., update_media_ids: _Optional[bool] = ..., media_ids: _Optional[_Iterable[str]] = ..., thread: _Optional[_Union[Thread, _Mapping]] = ..., first_comment: _Optional[str] = ..., language: _Optional[str] = ..., tiktok: _Optional[_Union[TikTokOptions, _Mapping]] = ...) -> None: ...

class SchedulePostRequest(_message.Message):
    __slots__ = ("post_id", "schedule_at", "next_slot")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_AT_FIELD_NUMBER: _ClassVar[int]
    NEXT_SLOT_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    schedule_at: str
    next_slot: bool
    def __init__(self, post_id: _Optional[str] = ..., schedule_at: _Optional[str] = ..., next_slot: _Optional[bool] = ...) -> None: ...

class ApprovePostRequest(_message.Message):
    __slots__ = ("post_id", "comment", "schedule_at", "publish_now")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_AT_FIELD_NUMBER: _ClassVar[int]
    PUBLISH_NOW_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    comment: str
    schedule_at: str
    publish_now: bool
    def __init__(self, post_id: _Optional[str] = ..., comment: _Optional[str] = ..., schedule_at: _Optional[str] = ..., publish_now: _Optional[bool] = ...) -> None: ...

class RejectPostRequest(_message.Message):
    __slots__ = ("post_id", "comment")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    comment: str
    def __init__(self, post_id: _Optional[str] = ..., comment: _Optional[str] = ...) -> None: ...

class ApprovePostGroupRequest(_message.Message):
    __slots__ = ("group_id", "comment", "schedule_at", "publish_now")
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_AT_FIELD_NUMBER: _ClassVar[int]
    PUBLISH_NOW_FIELD_NUMBER: _ClassVar[int]
    group_id: str
    comment: str
    schedule_at: str
    publish_now: bool
    def __init__(self, group_id: _Optional[str] = ..., comment: _Optional[str] = ..., schedule_at: _Optional[str] = ..., publish_now: _Optional[bool] = ...) -> None: ...

class RejectPostGroupRequest(_message.Message):
    __slots__ = ("group_id", "comment")
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    group_id: str
    comment: str
    def __init__(self, group_id: _Optional[str] = ..., comment: _Optional[str] = ...) -> None: ...

class CancelPostRequest(_message.Message):
    __slots__ = ("post_id",)
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    def __init__(self, post_id: _Optional[str] = ...) -> None: ...

class RetryPostRequest(_message.Message):
    __slots__ = ("post_id",)
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    def __init__(self, post_id: _Optional[str] = ...) -> None: ...

class GetPostGroupRequest(_message.Message):
    __slots__ = ("group_id",)
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    group_id: str
    def __init__(self, group_id: _Optional[str] = ...) -> None: ...

class ReschedulePostGroupRequest(_message.Message):
    __slots__ = ("group_id", "schedule_at")
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_AT_FIELD_NUMBER: _ClassVar[int]
    group_id: str
    schedule_at: str
    def __init__(self, group_id: _Optional[str] = ..., schedule_at: _Optional[str] = ...) -> None: ...

class CancelPostGroupRequest(_message.Message):
    __slots__ = ("group_id",)
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    group_id: str
    def __init__(self, group_id: _Optional[str] = ...) -> None: ...

class PostGroup(_message.Message):
    __slots__ = ("id", "create_time", "posts")
    ID_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    POSTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    create_time: _timestamp_pb2.Timestamp
    posts: _containers.RepeatedCompositeFieldContainer[Post]
    def __init__(self, id: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., posts: _Optional[_Iterable[_Union[Post, _Mapping]]] = ...) -> None: ...

class ListPostGroupsRequest(_message.Message):
    __slots__ = ("status", "profile", "tag", "scheduled_after", "scheduled_before", "page_size", "page_token")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_AFTER_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    status: str
    profile: str
    tag: str
    scheduled_after: str
    scheduled_before: str
    page_size: int
    page_token: str
    def __init__(self, status: _Optional[str] = ..., profile: _Optional[str] = ..., tag: _Optional[str] = ..., scheduled_after: _Optional[str] = ..., scheduled_before: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListedPostGroup(_message.Message):
    __slots__ = ("group", "section", "send_time", "matching_post_ids")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    SECTION_FIELD_NUMBER: _ClassVar[int]
    SEND_TIME_FIELD_NUMBER: _ClassVar[int]
    MATCHING_POST_IDS_FIELD_NUMBER: _ClassVar[int]
    group: PostGroup
    section: str
    send_time: _timestamp_pb2.Timestamp
    matching_post_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, group: _Optional[_Union[PostGroup, _Mapping]] = ..., section: _Optional[str] = ..., send_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., matching_post_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ListPostGroupsResponse(_message.Message):
    __slots__ = ("groups", "next_page_token", "previous_page_token")
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    groups: _containers.RepeatedCompositeFieldContainer[ListedPostGroup]
    next_page_token: str
    previous_page_token: str
    def __init__(self, groups: _Optional[_Iterable[_Union[ListedPostGroup, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., previous_page_token: _Optional[str] = ...) -> None: ...

class ListOutboxEntriesRequest(_message.Message):
    __slots__ = ("post_id",)
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    def __init__(self, post_id: _Optional[str] = ...) -> None: ...

class OutboxEntry(_message.Message):
    __slots__ = ("id", "post_id", "connector", "mode", "requests_json", "platform_post_id", "platform_url", "create_time", "part", "position")
    ID_FIELD_NUMBER: _ClassVar[int]
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_JSON_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_POST_ID_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_URL_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    PART_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    id: str
    post_id: str
    connector: str
    mode: str
    requests_json: str
    platform_post_id: str
    platform_url: str
    create_time: _timestamp_pb2.Timestamp
    part: str
    position: int
    def __init__(self, id: _Optional[str] = ..., post_id: _Optional[str] = ..., connector: _Optional[str] = ..., mode: _Optional[str] = ..., requests_json: _Optional[str] = ..., platform_post_id: _Optional[str] = ..., platform_url: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., part: _Optional[str] = ..., position: _Optional[int] = ...) -> None: ...

class ListOutboxEntriesResponse(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[OutboxEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[OutboxEntry, _Mapping]]] = ...) -> None: ...

class ListPostEventsRequest(_message.Message):
    __slots__ = ("post_id", "newest_first", "page_size", "page_token")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    NEWEST_FIRST_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    newest_first: bool
    page_size: int
    page_token: str
    def __init__(self, post_id: _Optional[str] = ..., newest_first: _Optional[bool] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class PostEvent(_message.Message):
    __slots__ = ("id", "post_id", "kind", "event_time", "attempt", "reason", "error", "will_retry", "next_attempt_time", "part", "position", "platform_post_id", "schedule_time", "status", "fields", "request_id", "recovered", "comment")
    ID_FIELD_NUMBER: _ClassVar[int]
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    EVENT_TIME_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    WILL_RETRY_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_TIME_FIELD_NUMBER: _ClassVar[int]
    PART_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_POST_ID_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_TIME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RECOVERED_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    id: str
    post_id: str
    kind: str
    event_time: _timestamp_pb2.Timestamp
    attempt: int
    reason: str
    error: str
    will_retry: bool
    next_attempt_time: _timestamp_pb2.Timestamp
    part: str
    position: int
    platform_post_id: str
    schedule_time: _timestamp_pb2.Timestamp
    status: str
    fields: _containers.RepeatedScalarFieldContainer[str]
    request_id: str
    recovered: bool
    comment: str
    def __init__(self, id: _Optional[str] = ..., post_id: _Optional[str] = ..., kind: _Optional[str] = ..., event_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., attempt: _Optional[int] = ..., reason: _Optional[str] = ..., error: _Optional[str] = ..., will_retry: _Optional[bool] = ..., next_attempt_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., part: _Optional[str] = ..., position: _Optional[int] = ..., platform_post_id: _Optional[str] = ..., schedule_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status: _Optional[str] = ..., fields: _Optional[_Iterable[str]] = ..., request_id: _Optional[str] = ..., recovered: _Optional[bool] = ..., comment: _Optional[str] = ...) -> None: ...

class ListPostEventsResponse(_message.Message):
    __slots__ = ("events", "next_page_token")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[PostEvent]
    next_page_token: str
    def __init__(self, events: _Optional[_Iterable[_Union[PostEvent, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class Problem(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class ValidatePostsRequest(_message.Message):
    __slots__ = ("posts",)
    POSTS_FIELD_NUMBER: _ClassVar[int]
    posts: CreatePostsRequest
    def __init__(self, posts: _Optional[_Union[CreatePostsRequest, _Mapping]] = ...) -> None: ...

class ProfileCheck(_message.Message):
    __slots__ = ("profile", "connector", "post_type", "valid", "problems", "length", "max_length", "unit", "notices")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    POST_TYPE_FIELD_NUMBER: _ClassVar[int]
    VALID_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    MAX_LENGTH_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    NOTICES_FIELD_NUMBER: _ClassVar[int]
    profile: str
    connector: str
    post_type: str
    valid: bool
    problems: _containers.RepeatedCompositeFieldContainer[Problem]
    length: int
    max_length: int
    unit: str
    notices: _containers.RepeatedCompositeFieldContainer[Notice]
    def __init__(self, profile: _Optional[str] = ..., connector: _Optional[str] = ..., post_type: _Optional[str] = ..., valid: _Optional[bool] = ..., problems: _Optional[_Iterable[_Union[Problem, _Mapping]]] = ..., length: _Optional[int] = ..., max_length: _Optional[int] = ..., unit: _Optional[str] = ..., notices: _Optional[_Iterable[_Union[Notice, _Mapping]]] = ...) -> None: ...

class ValidatePostsResponse(_message.Message):
    __slots__ = ("valid", "deliverable", "problems", "profiles", "credits_required", "credit_balance")
    VALID_FIELD_NUMBER: _ClassVar[int]
    DELIVERABLE_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    CREDITS_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    CREDIT_BALANCE_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    deliverable: bool
    problems: _containers.RepeatedCompositeFieldContainer[Problem]
    profiles: _containers.RepeatedCompositeFieldContainer[ProfileCheck]
    credits_required: int
    credit_balance: int
    def __init__(self, valid: _Optional[bool] = ..., deliverable: _Optional[bool] = ..., problems: _Optional[_Iterable[_Union[Problem, _Mapping]]] = ..., profiles: _Optional[_Iterable[_Union[ProfileCheck, _Mapping]]] = ..., credits_required: _Optional[int] = ..., credit_balance: _Optional[int] = ...) -> None: ...

class ListRecentPostsRequest(_message.Message):
    __slots__ = ("profile", "connector", "page_size", "page_token")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    profile: str
    connector: str
    page_size: int
    page_token: str
    def __init__(self, profile: _Optional[str] = ..., connector: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class PreviewPostsRequest(_message.Message):
    __slots__ = ("posts",)
    POSTS_FIELD_NUMBER: _ClassVar[int]
    posts: CreatePostsRequest
    def __init__(self, posts: _Optional[_Union[CreatePostsRequest, _Mapping]] = ...) -> None: ...

class MediaPreview(_message.Message):
    __slots__ = ("media_id", "kind", "mime_type", "width", "height", "size_bytes")
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    kind: str
    mime_type: str
    width: int
    height: int
    size_bytes: int
    def __init__(self, media_id: _Optional[str] = ..., kind: _Optional[str] = ..., mime_type: _Optional[str] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., size_bytes: _Optional[int] = ...) -> None: ...

class TextPreview(_message.Message):
    __slots__ = ("role", "text", "length", "max_length", "unit", "media")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    MAX_LENGTH_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    MEDIA_FIELD_NUMBER: _ClassVar[int]
    role: str
    text: str
    length: int
    max_length: int
    unit: str
    media: _containers.RepeatedCompositeFieldContainer[MediaPreview]
    def __init__(self, role: _Optional[str] = ..., text: _Optional[str] = ..., length: _Optional[int] = ..., max_length: _Optional[int] = ..., unit: _Optional[str] = ..., media: _Optional[_Iterable[_Union[MediaPreview, _Mapping]]] = ...) -> None: ...

class DestinationPreview(_message.Message):
    __slots__ = ("profile", "connector", "platform", "display_name", "post_type", "valid", "problems", "warnings", "parts", "notices")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    POST_TYPE_FIELD_NUMBER: _ClassVar[int]
    VALID_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    NOTICES_FIELD_NUMBER: _ClassVar[int]
    profile: str
    connector: str
    platform: str
    display_name: str
    post_type: str
    valid: bool
    problems: _containers.RepeatedCompositeFieldContainer[Problem]
    warnings: _containers.RepeatedCompositeFieldContainer[Problem]
    parts: _containers.RepeatedCompositeFieldContainer[TextPreview]
    notices: _containers.RepeatedCompositeFieldContainer[Notice]
    def __init__(self, profile: _Optional[str] = ..., connector: _Optional[str] = ..., platform: _Optional[str] = ..., display_name: _Optional[str] = ..., post_type: _Optional[str] = ..., valid: _Optional[bool] = ..., problems: _Optional[_Iterable[_Union[Problem, _Mapping]]] = ..., warnings: _Optional[_Iterable[_Union[Problem, _Mapping]]] = ..., parts: _Optional[_Iterable[_Union[TextPreview, _Mapping]]] = ..., notices: _Optional[_Iterable[_Union[Notice, _Mapping]]] = ...) -> None: ...

class PreviewPostsResponse(_message.Message):
    __slots__ = ("valid", "deliverable", "problems", "credits_required", "credit_balance", "destinations", "draft", "schedule_time")
    VALID_FIELD_NUMBER: _ClassVar[int]
    DELIVERABLE_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    CREDITS_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    CREDIT_BALANCE_FIELD_NUMBER: _ClassVar[int]
    DESTINATIONS_FIELD_NUMBER: _ClassVar[int]
    DRAFT_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_TIME_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    deliverable: bool
    problems: _containers.RepeatedCompositeFieldContainer[Problem]
    credits_required: int
    credit_balance: int
    destinations: _containers.RepeatedCompositeFieldContainer[DestinationPreview]
    draft: bool
    schedule_time: _timestamp_pb2.Timestamp
    def __init__(self, valid: _Optional[bool] = ..., deliverable: _Optional[bool] = ..., problems: _Optional[_Iterable[_Union[Problem, _Mapping]]] = ..., credits_required: _Optional[int] = ..., credit_balance: _Optional[int] = ..., destinations: _Optional[_Iterable[_Union[DestinationPreview, _Mapping]]] = ..., draft: _Optional[bool] = ..., schedule_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListCalendarPostsRequest(_message.Message):
    __slots__ = ("start_time", "end_time", "profile", "tag", "status")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    profile: str
    tag: str
    status: str
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., profile: _Optional[str] = ..., tag: _Optional[str] = ..., status: _Optional[str] = ...) -> None: ...

class CalendarPost(_message.Message):
    __slots__ = ("id", "group_id", "profile", "connector", "status", "schedule_time", "excerpt")
    ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_TIME_FIELD_NUMBER: _ClassVar[int]
    EXCERPT_FIELD_NUMBER: _ClassVar[int]
    id: str
    group_id: str
    profile: str
    connector: str
    status: PostStatus
    schedule_time: _timestamp_pb2.Timestamp
    excerpt: str
    def __init__(self, id: _Optional[str] = ..., group_id: _Optional[str] = ..., profile: _Optional[str] = ..., connector: _Optional[str] = ..., status: _Optional[_Union[PostStatus, str]] = ..., schedule_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., excerpt: _Optional[str] = ...) -> None: ...

class ListCalendarPostsResponse(_message.Message):
    __slots__ = ("posts", "truncated", "free_slots")
    POSTS_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    FREE_SLOTS_FIELD_NUMBER: _ClassVar[int]
    posts: _containers.RepeatedCompositeFieldContainer[CalendarPost]
    truncated: bool
    free_slots: _containers.RepeatedCompositeFieldContainer[_timestamp_pb2.Timestamp]
    def __init__(self, posts: _Optional[_Iterable[_Union[CalendarPost, _Mapping]]] = ..., truncated: _Optional[bool] = ..., free_slots: _Optional[_Iterable[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]]] = ...) -> None: ...
