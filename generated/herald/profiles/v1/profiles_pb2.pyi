import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from herald.catalog.v1 import catalog_pb2 as _catalog_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Profile(_message.Message):
    __slots__ = ("id", "slug", "connector", "display_name", "tags", "create_time", "connection", "default_language")
    ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    CONNECTION_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    id: str
    slug: str
    connector: str
    display_name: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    create_time: _timestamp_pb2.Timestamp
    connection: ProfileConnection
    default_language: str
    def __init__(self, id: _Optional[str] = ..., slug: _Optional[str] = ..., connector: _Optional[str] = ..., display_name: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., connection: _Optional[_Union[ProfileConnection, _Mapping]] = ..., default_language: _Optional[str] = ...) -> None: ...

class ProfileConnection(_message.Message):
    __slots__ = ("status", "platform_account_id", "handle", "avatar_url", "instance_url", "scopes", "token_expire_time", "connect_time", "error", "token_renewable", "metrics_error", "metrics_unavailable")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    AVATAR_URL_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_URL_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    TOKEN_EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    CONNECT_TIME_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TOKEN_RENEWABLE_FIELD_NUMBER: _ClassVar[int]
    METRICS_ERROR_FIELD_NUMBER: _ClassVar[int]
    METRICS_UNAVAILABLE_FIELD_NUMBER: _ClassVar[int]
    status: str
    platform_account_id: str
    handle: str
    avatar_url: str
    instance_url: str
    scopes: _containers.RepeatedScalarFieldContainer[str]
    token_expire_time: _timestamp_pb2.Timestamp
    connect_time: _timestamp_pb2.Timestamp
    error: str
    token_renewable: bool
    metrics_error: str
    metrics_unavailable: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, status: _Optional[str] = ..., platform_account_id: _Optional[str] = ..., handle: _Optional[str] = ..., avatar_url: _Optional[str] = ..., instance_url: _Optional[str] = ..., scopes: _Optional[_Iterable[str]] = ..., token_expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., connect_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., error: _Optional[str] = ..., token_renewable: _Optional[bool] = ..., metrics_error: _Optional[str] = ..., metrics_unavailable: _Optional[_Iterable[str]] = ...) -> None: ...

class ListProfilesRequest(_message.Message):
    __slots__ = ("tag", "page_size", "page_token")
    TAG_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tag: str
    page_size: int
    page_token: str
    def __init__(self, tag: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListProfilesResponse(_message.Message):
    __slots__ = ("profiles", "next_page_token")
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    profiles: _containers.RepeatedCompositeFieldContainer[Profile]
    next_page_token: str
    def __init__(self, profiles: _Optional[_Iterable[_Union[Profile, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class CreateProfileRequest(_message.Message):
    __slots__ = ("profile",)
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    profile: Profile
    def __init__(self, profile: _Optional[_Union[Profile, _Mapping]] = ...) -> None: ...

class UpdateProfileRequest(_message.Message):
    __slots__ = ("slug", "default_language", "display_name", "update_tags", "tags")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TAGS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    slug: str
    default_language: str
    display_name: str
    update_tags: bool
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, slug: _Optional[str] = ..., default_language: _Optional[str] = ..., display_name: _Optional[str] = ..., update_tags: _Optional[bool] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class DeleteProfileRequest(_message.Message):
    __slots__ = ("slug", "validate_only")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    VALIDATE_ONLY_FIELD_NUMBER: _ClassVar[int]
    slug: str
    validate_only: bool
    def __init__(self, slug: _Optional[str] = ..., validate_only: _Optional[bool] = ...) -> None: ...

class GetProfileRequest(_message.Message):
    __slots__ = ("slug",)
    SLUG_FIELD_NUMBER: _ClassVar[int]
    slug: str
    def __init__(self, slug: _Optional[str] = ...) -> None: ...

class GetDestinationLimitsRequest(_message.Message):
    __slots__ = ("profiles",)
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    profiles: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, profiles: _Optional[_Iterable[str]] = ...) -> None: ...

class DestinationLimits(_message.Message):
    __slots__ = ("profile", "display_name", "platform")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    profile: str
    display_name: str
    platform: _catalog_pb2.Platform
    def __init__(self, profile: _Optional[str] = ..., display_name: _Optional[str] = ..., platform: _Optional[_Union[_catalog_pb2.Platform, _Mapping]] = ...) -> None: ...

class GetDestinationLimitsResponse(_message.Message):
    __slots__ = ("destinations",)
    DESTINATIONS_FIELD_NUMBER: _ClassVar[int]
    destinations: _containers.RepeatedCompositeFieldContainer[DestinationLimits]
    def __init__(self, destinations: _Optional[_Iterable[_Union[DestinationLimits, _Mapping]]] = ...) -> None: ...

class TimeSlot(_message.Message):
    __slots__ = ("day", "time")
    DAY_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    day: str
    time: str
    def __init__(self, day: _Optional[str] = ..., time: _Optional[str] = ...) -> None: ...

class ProfileSlots(_message.Message):
    __slots__ = ("timezone", "slots")
    TIMEZONE_FIELD_NUMBER: _ClassVar[int]
    SLOTS_FIELD_NUMBER: _ClassVar[int]
    timezone: str
    slots: _containers.RepeatedCompositeFieldContainer[TimeSlot]
    def __init__(self, timezone: _Optional[str] = ..., slots: _Optional[_Iterable[_Union[TimeSlot, _Mapping]]] = ...) -> None: ...

class GetProfileSlotsRequest(_message.Message):
    __slots__ = ("slug",)
    SLUG_FIELD_NUMBER: _ClassVar[int]
    slug: str
    def __init__(self, slug: _Optional[str] = ...) -> None: ...

class SetProfileSlotsRequest(_message.Message):
    __slots__ = ("slug", "timezone", "slots")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    TIMEZONE_FIELD_NUMBER: _ClassVar[int]
    SLOTS_FIELD_NUMBER: _ClassVar[int]
    slug: str
    timezone: str
    slots: _containers.RepeatedCompositeFieldContainer[TimeSlot]
    def __init__(self, slug: _Optional[str] = ..., timezone: _Optional[str] = ..., slots: _Optional[_Iterable[_Union[TimeSlot, _Mapping]]] = ...) -> None: ...
