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

class MetricSnapshot(_message.Message):
    __slots__ = ("metrics", "collect_time", "source")
    class MetricsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    METRICS_FIELD_NUMBER: _ClassVar[int]
    COLLECT_TIME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    metrics: _containers.ScalarMap[str, int]
    collect_time: _timestamp_pb2.Timestamp
    source: str
    def __init__(self, metrics: _Optional[_Mapping[str, int]] = ..., collect_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., source: _Optional[str] = ...) -> None: ...

class ThreadItemMetrics(_message.Message):
    __slots__ = ("position", "latest")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    LATEST_FIELD_NUMBER: _ClassVar[int]
    position: int
    latest: MetricSnapshot
    def __init__(self, position: _Optional[int] = ..., latest: _Optional[_Union[MetricSnapshot, _Mapping]] = ...) -> None: ...

class GetPostMetricsRequest(_message.Message):
    __slots__ = ("post_id",)
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    def __init__(self, post_id: _Optional[str] = ...) -> None: ...

class PostMetrics(_message.Message):
    __slots__ = ("post_id", "latest", "history", "thread", "next_read_time")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    LATEST_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    NEXT_READ_TIME_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    latest: MetricSnapshot
    history: _containers.RepeatedCompositeFieldContainer[MetricSnapshot]
    thread: _containers.RepeatedCompositeFieldContainer[ThreadItemMetrics]
    next_read_time: _timestamp_pb2.Timestamp
    def __init__(self, post_id: _Optional[str] = ..., latest: _Optional[_Union[MetricSnapshot, _Mapping]] = ..., history: _Optional[_Iterable[_Union[MetricSnapshot, _Mapping]]] = ..., thread: _Optional[_Iterable[_Union[ThreadItemMetrics, _Mapping]]] = ..., next_read_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RefreshPostMetricsRequest(_message.Message):
    __slots__ = ("post_id",)
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    def __init__(self, post_id: _Optional[str] = ...) -> None: ...

class RefreshPostMetricsResponse(_message.Message):
    __slots__ = ("post_id", "queued")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    queued: bool
    def __init__(self, post_id: _Optional[str] = ..., queued: _Optional[bool] = ...) -> None: ...
