import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from herald.identity.v1 import identity_pb2 as _identity_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetCreditAccountRequest(_message.Message):
    __slots__ = ("recent_entries",)
    RECENT_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    recent_entries: int
    def __init__(self, recent_entries: _Optional[int] = ...) -> None: ...

class CreditAccount(_message.Message):
    __slots__ = ("organization", "balance", "plan", "low_credit_threshold", "recent_entries")
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    LOW_CREDIT_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    RECENT_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    organization: str
    balance: int
    plan: _identity_pb2.Plan
    low_credit_threshold: int
    recent_entries: _containers.RepeatedCompositeFieldContainer[LedgerEntry]
    def __init__(self, organization: _Optional[str] = ..., balance: _Optional[int] = ..., plan: _Optional[_Union[_identity_pb2.Plan, str]] = ..., low_credit_threshold: _Optional[int] = ..., recent_entries: _Optional[_Iterable[_Union[LedgerEntry, _Mapping]]] = ...) -> None: ...

class LedgerEntry(_message.Message):
    __slots__ = ("id", "delta", "balance_after", "reason", "reference", "create_time")
    ID_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    BALANCE_AFTER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    id: str
    delta: int
    balance_after: int
    reason: str
    reference: str
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., delta: _Optional[int] = ..., balance_after: _Optional[int] = ..., reason: _Optional[str] = ..., reference: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListLedgerEntriesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListLedgerEntriesResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LedgerEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[LedgerEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
