import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_STATUS_UNSPECIFIED: _ClassVar[RunStatus]
    RUN_STATUS_QUEUED: _ClassVar[RunStatus]
    RUN_STATUS_RUNNING: _ClassVar[RunStatus]
    RUN_STATUS_READY: _ClassVar[RunStatus]
    RUN_STATUS_FAILED: _ClassVar[RunStatus]
RUN_STATUS_UNSPECIFIED: RunStatus
RUN_STATUS_QUEUED: RunStatus
RUN_STATUS_RUNNING: RunStatus
RUN_STATUS_READY: RunStatus
RUN_STATUS_FAILED: RunStatus

class GeneratePostRequest(_message.Message):
    __slots__ = ("brief", "profiles")
    BRIEF_FIELD_NUMBER: _ClassVar[int]
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    brief: str
    profiles: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, brief: _Optional[str] = ..., profiles: _Optional[_Iterable[str]] = ...) -> None: ...

class GenerateThreadRequest(_message.Message):
    __slots__ = ("text", "profiles", "numbered")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    NUMBERED_FIELD_NUMBER: _ClassVar[int]
    text: str
    profiles: _containers.RepeatedScalarFieldContainer[str]
    numbered: bool
    def __init__(self, text: _Optional[str] = ..., profiles: _Optional[_Iterable[str]] = ..., numbered: _Optional[bool] = ...) -> None: ...

class GenerateVariationsRequest(_message.Message):
    __slots__ = ("brief", "profiles", "count")
    BRIEF_FIELD_NUMBER: _ClassVar[int]
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    brief: str
    profiles: _containers.RepeatedScalarFieldContainer[str]
    count: int
    def __init__(self, brief: _Optional[str] = ..., profiles: _Optional[_Iterable[str]] = ..., count: _Optional[int] = ...) -> None: ...

class GenerateHashtagsRequest(_message.Message):
    __slots__ = ("text", "profiles", "count")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    text: str
    profiles: _containers.RepeatedScalarFieldContainer[str]
    count: int
    def __init__(self, text: _Optional[str] = ..., profiles: _Optional[_Iterable[str]] = ..., count: _Optional[int] = ...) -> None: ...

class RewriteForDestinationRequest(_message.Message):
    __slots__ = ("text", "profile")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    text: str
    profile: str
    def __init__(self, text: _Optional[str] = ..., profile: _Optional[str] = ...) -> None: ...

class GetGenerateRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class Part(_message.Message):
    __slots__ = ("text", "length", "max_length", "unit")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    MAX_LENGTH_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    text: str
    length: int
    max_length: int
    unit: str
    def __init__(self, text: _Optional[str] = ..., length: _Optional[int] = ..., max_length: _Optional[int] = ..., unit: _Optional[str] = ...) -> None: ...

class Draft(_message.Message):
    __slots__ = ("profile", "connector", "variant", "parts", "fits", "problems")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    FITS_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    profile: str
    connector: str
    variant: int
    parts: _containers.RepeatedCompositeFieldContainer[Part]
    fits: bool
    problems: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, profile: _Optional[str] = ..., connector: _Optional[str] = ..., variant: _Optional[int] = ..., parts: _Optional[_Iterable[_Union[Part, _Mapping]]] = ..., fits: _Optional[bool] = ..., problems: _Optional[_Iterable[str]] = ...) -> None: ...

class GenerateOutput(_message.Message):
    __slots__ = ("drafts", "hashtags", "notes")
    DRAFTS_FIELD_NUMBER: _ClassVar[int]
    HASHTAGS_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    drafts: _containers.RepeatedCompositeFieldContainer[Draft]
    hashtags: _containers.RepeatedScalarFieldContainer[str]
    notes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, drafts: _Optional[_Iterable[_Union[Draft, _Mapping]]] = ..., hashtags: _Optional[_Iterable[str]] = ..., notes: _Optional[_Iterable[str]] = ...) -> None: ...

class RunError(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class GenerateRun(_message.Message):
    __slots__ = ("id", "tool", "status", "backend", "output", "error", "cost", "create_time", "finish_time")
    ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    FINISH_TIME_FIELD_NUMBER: _ClassVar[int]
    id: str
    tool: str
    status: RunStatus
    backend: str
    output: GenerateOutput
    error: RunError
    cost: int
    create_time: _timestamp_pb2.Timestamp
    finish_time: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., tool: _Optional[str] = ..., status: _Optional[_Union[RunStatus, str]] = ..., backend: _Optional[str] = ..., output: _Optional[_Union[GenerateOutput, _Mapping]] = ..., error: _Optional[_Union[RunError, _Mapping]] = ..., cost: _Optional[int] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finish_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
