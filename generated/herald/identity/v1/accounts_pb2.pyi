import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from herald.identity.v1 import identity_pb2 as _identity_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SignInByInvitationRequest(_message.Message):
    __slots__ = ("token", "password")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    token: str
    password: str
    def __init__(self, token: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class VerifyEmailRequest(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class VerifyEmailResponse(_message.Message):
    __slots__ = ("email",)
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    email: str
    def __init__(self, email: _Optional[str] = ...) -> None: ...

class ResendVerificationRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ResendVerificationResponse(_message.Message):
    __slots__ = ("sent",)
    SENT_FIELD_NUMBER: _ClassVar[int]
    sent: bool
    def __init__(self, sent: _Optional[bool] = ...) -> None: ...

class SignUpByInvitationRequest(_message.Message):
    __slots__ = ("token", "password")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    token: str
    password: str
    def __init__(self, token: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class SignUpRequest(_message.Message):
    __slots__ = ("email", "password", "organization")
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    email: str
    password: str
    organization: str
    def __init__(self, email: _Optional[str] = ..., password: _Optional[str] = ..., organization: _Optional[str] = ...) -> None: ...

class SignUpResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetSignUpPolicyRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SignUpPolicy(_message.Message):
    __slots__ = ("open",)
    OPEN_FIELD_NUMBER: _ClassVar[int]
    open: bool
    def __init__(self, open: _Optional[bool] = ...) -> None: ...

class SignInRequest(_message.Message):
    __slots__ = ("email", "password", "organization")
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    email: str
    password: str
    organization: str
    def __init__(self, email: _Optional[str] = ..., password: _Optional[str] = ..., organization: _Optional[str] = ...) -> None: ...

class Session(_message.Message):
    __slots__ = ("token", "session_id", "user_id", "email", "organization", "expire_time")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    token: str
    session_id: str
    user_id: str
    email: str
    organization: Organization
    expire_time: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., session_id: _Optional[str] = ..., user_id: _Optional[str] = ..., email: _Optional[str] = ..., organization: _Optional[_Union[Organization, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SignOutRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SignOutResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListOrganizationsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListOrganizationsResponse(_message.Message):
    __slots__ = ("organizations",)
    ORGANIZATIONS_FIELD_NUMBER: _ClassVar[int]
    organizations: _containers.RepeatedCompositeFieldContainer[Organization]
    def __init__(self, organizations: _Optional[_Iterable[_Union[Organization, _Mapping]]] = ...) -> None: ...

class GetSessionViewRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SessionView(_message.Message):
    __slots__ = ("principal", "organizations", "unread_notifications")
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATIONS_FIELD_NUMBER: _ClassVar[int]
    UNREAD_NOTIFICATIONS_FIELD_NUMBER: _ClassVar[int]
    principal: _identity_pb2.Principal
    organizations: _containers.RepeatedCompositeFieldContainer[Organization]
    unread_notifications: int
    def __init__(self, principal: _Optional[_Union[_identity_pb2.Principal, _Mapping]] = ..., organizations: _Optional[_Iterable[_Union[Organization, _Mapping]]] = ..., unread_notifications: _Optional[int] = ...) -> None: ...

class Organization(_message.Message):
    __slots__ = ("id", "slug", "role", "plan")
    ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    id: str
    slug: str
    role: str
    plan: _identity_pb2.Plan
    def __init__(self, id: _Optional[str] = ..., slug: _Optional[str] = ..., role: _Optional[str] = ..., plan: _Optional[_Union[_identity_pb2.Plan, str]] = ...) -> None: ...

class SwitchOrganizationRequest(_message.Message):
    __slots__ = ("organization",)
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    organization: str
    def __init__(self, organization: _Optional[str] = ...) -> None: ...

class GetOrganizationRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class OrganizationSettings(_message.Message):
    __slots__ = ("id", "slug", "name", "time_zone", "create_time", "approvals")
    ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    APPROVALS_FIELD_NUMBER: _ClassVar[int]
    id: str
    slug: str
    name: str
    time_zone: str
    create_time: _timestamp_pb2.Timestamp
    approvals: Approvals
    def __init__(self, id: _Optional[str] = ..., slug: _Optional[str] = ..., name: _Optional[str] = ..., time_zone: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., approvals: _Optional[_Union[Approvals, _Mapping]] = ...) -> None: ...

class Approvals(_message.Message):
    __slots__ = ("required_for", "profile_tags", "self_approval")
    REQUIRED_FOR_FIELD_NUMBER: _ClassVar[int]
    PROFILE_TAGS_FIELD_NUMBER: _ClassVar[int]
    SELF_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    required_for: _containers.RepeatedScalarFieldContainer[str]
    profile_tags: _containers.RepeatedScalarFieldContainer[str]
    self_approval: bool
    def __init__(self, required_for: _Optional[_Iterable[str]] = ..., profile_tags: _Optional[_Iterable[str]] = ..., self_approval: _Optional[bool] = ...) -> None: ...

class UpdateOrganizationRequest(_message.Message):
    __slots__ = ("name", "time_zone", "approvals_required_for", "approval_profile_tags", "self_approval")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    APPROVALS_REQUIRED_FOR_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_PROFILE_TAGS_FIELD_NUMBER: _ClassVar[int]
    SELF_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    name: str
    time_zone: str
    approvals_required_for: StringList
    approval_profile_tags: StringList
    self_approval: bool
    def __init__(self, name: _Optional[str] = ..., time_zone: _Optional[str] = ..., approvals_required_for: _Optional[_Union[StringList, _Mapping]] = ..., approval_profile_tags: _Optional[_Union[StringList, _Mapping]] = ..., self_approval: _Optional[bool] = ...) -> None: ...

class StringList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, values: _Optional[_Iterable[str]] = ...) -> None: ...
