import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Comment(_message.Message):
    __slots__ = ("id", "group_id", "post_id", "author_id", "author_email", "body", "mentions", "create_time")
    ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_ID_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_EMAIL_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    MENTIONS_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    id: str
    group_id: str
    post_id: str
    author_id: str
    author_email: str
    body: str
    mentions: _containers.RepeatedScalarFieldContainer[str]
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., group_id: _Optional[str] = ..., post_id: _Optional[str] = ..., author_id: _Optional[str] = ..., author_email: _Optional[str] = ..., body: _Optional[str] = ..., mentions: _Optional[_Iterable[str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class AddCommentRequest(_message.Message):
    __slots__ = ("post_id", "group_id", "body")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    group_id: str
    body: str
    def __init__(self, post_id: _Optional[str] = ..., group_id: _Optional[str] = ..., body: _Optional[str] = ...) -> None: ...

class ListCommentsRequest(_message.Message):
    __slots__ = ("post_id", "group_id")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    group_id: str
    def __init__(self, post_id: _Optional[str] = ..., group_id: _Optional[str] = ...) -> None: ...

class ListCommentsResponse(_message.Message):
    __slots__ = ("comments",)
    COMMENTS_FIELD_NUMBER: _ClassVar[int]
    comments: _containers.RepeatedCompositeFieldContainer[Comment]
    def __init__(self, comments: _Optional[_Iterable[_Union[Comment, _Mapping]]] = ...) -> None: ...

class Notification(_message.Message):
    __slots__ = ("id", "kind", "text", "subject_id", "link", "create_time", "read_time")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    LINK_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    READ_TIME_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    text: str
    subject_id: str
    link: str
    create_time: _timestamp_pb2.Timestamp
    read_time: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ..., subject_id: _Optional[str] = ..., link: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., read_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListNotificationsRequest(_message.Message):
    __slots__ = ("unread_only", "page_size", "page_token")
    UNREAD_ONLY_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    unread_only: bool
    page_size: int
    page_token: str
    def __init__(self, unread_only: _Optional[bool] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListNotificationsResponse(_message.Message):
    __slots__ = ("notifications", "next_page_token", "unread_count")
    NOTIFICATIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    UNREAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    notifications: _containers.RepeatedCompositeFieldContainer[Notification]
    next_page_token: str
    unread_count: int
    def __init__(self, notifications: _Optional[_Iterable[_Union[Notification, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., unread_count: _Optional[int] = ...) -> None: ...

class MarkNotificationsReadRequest(_message.Message):
    __slots__ = ("ids", "all")
    IDS_FIELD_NUMBER: _ClassVar[int]
    ALL_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    all: bool
    def __init__(self, ids: _Optional[_Iterable[str]] = ..., all: _Optional[bool] = ...) -> None: ...

class MarkNotificationsReadResponse(_message.Message):
    __slots__ = ("unread_count",)
    UNREAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    unread_count: int
    def __init__(self, unread_count: _Optional[int] = ...) -> None: ...

class GetNotificationSettingsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class NotificationChannel(_message.Message):
    __slots__ = ("kind", "description", "inbox", "email")
    KIND_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INBOX_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    kind: str
    description: str
    inbox: bool
    email: bool
    def __init__(self, kind: _Optional[str] = ..., description: _Optional[str] = ..., inbox: _Optional[bool] = ..., email: _Optional[bool] = ...) -> None: ...

class NotificationSettings(_message.Message):
    __slots__ = ("channels", "mail_configured")
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    MAIL_CONFIGURED_FIELD_NUMBER: _ClassVar[int]
    channels: _containers.RepeatedCompositeFieldContainer[NotificationChannel]
    mail_configured: bool
    def __init__(self, channels: _Optional[_Iterable[_Union[NotificationChannel, _Mapping]]] = ..., mail_configured: _Optional[bool] = ...) -> None: ...

class UpdateNotificationSettingsRequest(_message.Message):
    __slots__ = ("channels",)
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    channels: _containers.RepeatedCompositeFieldContainer[NotificationChannel]
    def __init__(self, channels: _Optional[_Iterable[_Union[NotificationChannel, _Mapping]]] = ...) -> None: ...
