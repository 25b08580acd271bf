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

class CredentialKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CREDENTIAL_KIND_UNSPECIFIED: _ClassVar[CredentialKind]
    CREDENTIAL_KIND_API_KEY: _ClassVar[CredentialKind]
    CREDENTIAL_KIND_OAUTH_ACCESS_TOKEN: _ClassVar[CredentialKind]
    CREDENTIAL_KIND_SESSION: _ClassVar[CredentialKind]

class Plan(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLAN_UNSPECIFIED: _ClassVar[Plan]
    PLAN_ACTIVE: _ClassVar[Plan]
    PLAN_TRIALING: _ClassVar[Plan]
    PLAN_NONE: _ClassVar[Plan]
CREDENTIAL_KIND_UNSPECIFIED: CredentialKind
CREDENTIAL_KIND_API_KEY: CredentialKind
CREDENTIAL_KIND_OAUTH_ACCESS_TOKEN: CredentialKind
CREDENTIAL_KIND_SESSION: CredentialKind
PLAN_UNSPECIFIED: Plan
PLAN_ACTIVE: Plan
PLAN_TRIALING: Plan
PLAN_NONE: Plan

class GetPrincipalRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CheckAccessRequest(_message.Message):
    __slots__ = ("method",)
    METHOD_FIELD_NUMBER: _ClassVar[int]
    method: str
    def __init__(self, method: _Optional[str] = ...) -> None: ...

class CheckAccessResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Principal(_message.Message):
    __slots__ = ("user_id", "organization_id", "organization", "credential_kind", "credential_id", "scopes", "plan", "email", "time_zone", "role", "awaiting_verification")
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_KIND_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    AWAITING_VERIFICATION_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    organization_id: str
    organization: str
    credential_kind: CredentialKind
    credential_id: str
    scopes: _containers.RepeatedScalarFieldContainer[str]
    plan: Plan
    email: str
    time_zone: str
    role: str
    awaiting_verification: bool
    def __init__(self, user_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., organization: _Optional[str] = ..., credential_kind: _Optional[_Union[CredentialKind, str]] = ..., credential_id: _Optional[str] = ..., scopes: _Optional[_Iterable[str]] = ..., plan: _Optional[_Union[Plan, str]] = ..., email: _Optional[str] = ..., time_zone: _Optional[str] = ..., role: _Optional[str] = ..., awaiting_verification: _Optional[bool] = ...) -> None: ...

class ListApiKeysRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListApiKeysResponse(_message.Message):
    __slots__ = ("api_keys", "next_page_token")
    API_KEYS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    api_keys: _containers.RepeatedCompositeFieldContainer[ApiKey]
    next_page_token: str
    def __init__(self, api_keys: _Optional[_Iterable[_Union[ApiKey, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ApiKey(_message.Message):
    __slots__ = ("id", "display_prefix", "create_time", "last_use_time", "revoke_time")
    ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_PREFIX_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_USE_TIME_FIELD_NUMBER: _ClassVar[int]
    REVOKE_TIME_FIELD_NUMBER: _ClassVar[int]
    id: str
    display_prefix: str
    create_time: _timestamp_pb2.Timestamp
    last_use_time: _timestamp_pb2.Timestamp
    revoke_time: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., display_prefix: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_use_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., revoke_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreatedApiKey(_message.Message):
    __slots__ = ("api_key", "secret")
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    api_key: ApiKey
    secret: str
    def __init__(self, api_key: _Optional[_Union[ApiKey, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class RevokeApiKeyRequest(_message.Message):
    __slots__ = ("api_key_id",)
    API_KEY_ID_FIELD_NUMBER: _ClassVar[int]
    api_key_id: str
    def __init__(self, api_key_id: _Optional[str] = ...) -> None: ...

class RotateApiKeyRequest(_message.Message):
    __slots__ = ("api_key_id",)
    API_KEY_ID_FIELD_NUMBER: _ClassVar[int]
    api_key_id: str
    def __init__(self, api_key_id: _Optional[str] = ...) -> None: ...

class CreateApiKeyRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
