import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from herald.identity.v1 import accounts_pb2 as _accounts_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Invitation(_message.Message):
    __slots__ = ("id", "email", "role", "invited_by", "create_time", "expire_time", "state", "profile_tags")
    ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    INVITED_BY_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PROFILE_TAGS_FIELD_NUMBER: _ClassVar[int]
    id: str
    email: str
    role: str
    invited_by: str
    create_time: _timestamp_pb2.Timestamp
    expire_time: _timestamp_pb2.Timestamp
    state: str
    profile_tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., email: _Optional[str] = ..., role: _Optional[str] = ..., invited_by: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., state: _Optional[str] = ..., profile_tags: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateInvitationRequest(_message.Message):
    __slots__ = ("email", "role", "profile_tags")
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    PROFILE_TAGS_FIELD_NUMBER: _ClassVar[int]
    email: str
    role: str
    profile_tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, email: _Optional[str] = ..., role: _Optional[str] = ..., profile_tags: _Optional[_Iterable[str]] = ...) -> None: ...

class CreatedInvitation(_message.Message):
    __slots__ = ("invitation", "url", "emailed")
    INVITATION_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    EMAILED_FIELD_NUMBER: _ClassVar[int]
    invitation: Invitation
    url: str
    emailed: bool
    def __init__(self, invitation: _Optional[_Union[Invitation, _Mapping]] = ..., url: _Optional[str] = ..., emailed: _Optional[bool] = ...) -> None: ...

class ListInvitationsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListInvitationsResponse(_message.Message):
    __slots__ = ("invitations",)
    INVITATIONS_FIELD_NUMBER: _ClassVar[int]
    invitations: _containers.RepeatedCompositeFieldContainer[Invitation]
    def __init__(self, invitations: _Optional[_Iterable[_Union[Invitation, _Mapping]]] = ...) -> None: ...

class RevokeInvitationRequest(_message.Message):
    __slots__ = ("invitation_id",)
    INVITATION_ID_FIELD_NUMBER: _ClassVar[int]
    invitation_id: str
    def __init__(self, invitation_id: _Optional[str] = ...) -> None: ...

class GetInvitationRequest(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class InvitationView(_message.Message):
    __slots__ = ("organization_name", "organization_slug", "email", "role", "state", "has_account", "expire_time")
    ORGANIZATION_NAME_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_SLUG_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    HAS_ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    organization_name: str
    organization_slug: str
    email: str
    role: str
    state: str
    has_account: bool
    expire_time: _timestamp_pb2.Timestamp
    def __init__(self, organization_name: _Optional[str] = ..., organization_slug: _Optional[str] = ..., email: _Optional[str] = ..., role: _Optional[str] = ..., state: _Optional[str] = ..., has_account: _Optional[bool] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class AcceptInvitationRequest(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class AcceptedInvitation(_message.Message):
    __slots__ = ("organization_id", "organization_slug", "role")
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_SLUG_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    organization_slug: str
    role: str
    def __init__(self, organization_id: _Optional[str] = ..., organization_slug: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class Member(_message.Message):
    __slots__ = ("user_id", "email", "role", "join_time", "is_caller", "profile_tags")
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    JOIN_TIME_FIELD_NUMBER: _ClassVar[int]
    IS_CALLER_FIELD_NUMBER: _ClassVar[int]
    PROFILE_TAGS_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    email: str
    role: str
    join_time: _timestamp_pb2.Timestamp
    is_caller: bool
    profile_tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, user_id: _Optional[str] = ..., email: _Optional[str] = ..., role: _Optional[str] = ..., join_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., is_caller: _Optional[bool] = ..., profile_tags: _Optional[_Iterable[str]] = ...) -> None: ...

class ListMembersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListMembersResponse(_message.Message):
    __slots__ = ("members",)
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    members: _containers.RepeatedCompositeFieldContainer[Member]
    def __init__(self, members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ...) -> None: ...

class UpdateMemberRequest(_message.Message):
    __slots__ = ("user_id", "role", "profile_tags")
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    PROFILE_TAGS_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    role: str
    profile_tags: _accounts_pb2.StringList
    def __init__(self, user_id: _Optional[str] = ..., role: _Optional[str] = ..., profile_tags: _Optional[_Union[_accounts_pb2.StringList, _Mapping]] = ...) -> None: ...

class RemoveMemberRequest(_message.Message):
    __slots__ = ("user_id",)
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...
