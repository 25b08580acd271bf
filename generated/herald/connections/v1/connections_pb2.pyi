import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from herald.profiles.v1 import profiles_pb2 as _profiles_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListPlatformsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ConnectablePlatform(_message.Message):
    __slots__ = ("platform", "method", "available")
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    platform: str
    method: str
    available: bool
    def __init__(self, platform: _Optional[str] = ..., method: _Optional[str] = ..., available: _Optional[bool] = ...) -> None: ...

class ListPlatformsResponse(_message.Message):
    __slots__ = ("platforms", "publish_mode")
    PLATFORMS_FIELD_NUMBER: _ClassVar[int]
    PUBLISH_MODE_FIELD_NUMBER: _ClassVar[int]
    platforms: _containers.RepeatedCompositeFieldContainer[ConnectablePlatform]
    publish_mode: str
    def __init__(self, platforms: _Optional[_Iterable[_Union[ConnectablePlatform, _Mapping]]] = ..., publish_mode: _Optional[str] = ...) -> None: ...

class StartConnectionRequest(_message.Message):
    __slots__ = ("platform", "instance_url", "return_to", "slug", "display_name", "tags")
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_URL_FIELD_NUMBER: _ClassVar[int]
    RETURN_TO_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    platform: str
    instance_url: str
    return_to: str
    slug: str
    display_name: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, platform: _Optional[str] = ..., instance_url: _Optional[str] = ..., return_to: _Optional[str] = ..., slug: _Optional[str] = ..., display_name: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class StartConnectionResponse(_message.Message):
    __slots__ = ("authorization_url", "expire_time")
    AUTHORIZATION_URL_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    authorization_url: str
    expire_time: _timestamp_pb2.Timestamp
    def __init__(self, authorization_url: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CompleteConnectionRequest(_message.Message):
    __slots__ = ("state", "code", "error", "session_token")
    STATE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SESSION_TOKEN_FIELD_NUMBER: _ClassVar[int]
    state: str
    code: str
    error: str
    session_token: str
    def __init__(self, state: _Optional[str] = ..., code: _Optional[str] = ..., error: _Optional[str] = ..., session_token: _Optional[str] = ...) -> None: ...

class CompleteConnectionResponse(_message.Message):
    __slots__ = ("profile", "return_to", "created")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    RETURN_TO_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    profile: _profiles_pb2.Profile
    return_to: str
    created: bool
    def __init__(self, profile: _Optional[_Union[_profiles_pb2.Profile, _Mapping]] = ..., return_to: _Optional[str] = ..., created: _Optional[bool] = ...) -> None: ...

class ConnectBlueskyRequest(_message.Message):
    __slots__ = ("identifier", "app_password", "pds_url", "slug", "display_name", "tags")
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    APP_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    PDS_URL_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    identifier: str
    app_password: str
    pds_url: str
    slug: str
    display_name: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, identifier: _Optional[str] = ..., app_password: _Optional[str] = ..., pds_url: _Optional[str] = ..., slug: _Optional[str] = ..., display_name: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class DisconnectProfileRequest(_message.Message):
    __slots__ = ("slug",)
    SLUG_FIELD_NUMBER: _ClassVar[int]
    slug: str
    def __init__(self, slug: _Optional[str] = ...) -> None: ...

class DisconnectProfileResponse(_message.Message):
    __slots__ = ("profile", "revoked")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    REVOKED_FIELD_NUMBER: _ClassVar[int]
    profile: _profiles_pb2.Profile
    revoked: bool
    def __init__(self, profile: _Optional[_Union[_profiles_pb2.Profile, _Mapping]] = ..., revoked: _Optional[bool] = ...) -> None: ...
