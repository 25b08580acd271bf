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

class GetProfileMetricsRequest(_message.Message):
    __slots__ = ("slug", "start_time", "end_time")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    slug: str
    start_time: str
    end_time: str
    def __init__(self, slug: _Optional[str] = ..., start_time: _Optional[str] = ..., end_time: _Optional[str] = ...) -> None: ...

class FollowersReading(_message.Message):
    __slots__ = ("followers", "collect_time", "source")
    FOLLOWERS_FIELD_NUMBER: _ClassVar[int]
    COLLECT_TIME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    followers: int
    collect_time: _timestamp_pb2.Timestamp
    source: str
    def __init__(self, followers: _Optional[int] = ..., collect_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., source: _Optional[str] = ...) -> None: ...

class ProfileMetrics(_message.Message):
    __slots__ = ("slug", "latest", "history", "start_time", "end_time", "next_read_time")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    LATEST_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    NEXT_READ_TIME_FIELD_NUMBER: _ClassVar[int]
    slug: str
    latest: FollowersReading
    history: _containers.RepeatedCompositeFieldContainer[FollowersReading]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    next_read_time: _timestamp_pb2.Timestamp
    def __init__(self, slug: _Optional[str] = ..., latest: _Optional[_Union[FollowersReading, _Mapping]] = ..., history: _Optional[_Iterable[_Union[FollowersReading, _Mapping]]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., next_read_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetBestTimesRequest(_message.Message):
    __slots__ = ("slug",)
    SLUG_FIELD_NUMBER: _ClassVar[int]
    slug: str
    def __init__(self, slug: _Optional[str] = ...) -> None: ...

class BestTimeCell(_message.Message):
    __slots__ = ("day", "hour", "posts", "engagement", "score")
    DAY_FIELD_NUMBER: _ClassVar[int]
    HOUR_FIELD_NUMBER: _ClassVar[int]
    POSTS_FIELD_NUMBER: _ClassVar[int]
    ENGAGEMENT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    day: str
    hour: int
    posts: int
    engagement: float
    score: float
    def __init__(self, day: _Optional[str] = ..., hour: _Optional[int] = ..., posts: _Optional[int] = ..., engagement: _Optional[float] = ..., score: _Optional[float] = ...) -> None: ...

class BestTimes(_message.Message):
    __slots__ = ("slug", "connector", "time_zone", "basis", "sample_size", "minimum_sample", "top", "grid")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    BASIS_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    MINIMUM_SAMPLE_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    GRID_FIELD_NUMBER: _ClassVar[int]
    slug: str
    connector: str
    time_zone: str
    basis: str
    sample_size: int
    minimum_sample: int
    top: _containers.RepeatedCompositeFieldContainer[BestTimeCell]
    grid: _containers.RepeatedCompositeFieldContainer[BestTimeCell]
    def __init__(self, slug: _Optional[str] = ..., connector: _Optional[str] = ..., time_zone: _Optional[str] = ..., basis: _Optional[str] = ..., sample_size: _Optional[int] = ..., minimum_sample: _Optional[int] = ..., top: _Optional[_Iterable[_Union[BestTimeCell, _Mapping]]] = ..., grid: _Optional[_Iterable[_Union[BestTimeCell, _Mapping]]] = ...) -> None: ...

class SuggestQueueSlotsRequest(_message.Message):
    __slots__ = ("slug", "count", "apply")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    APPLY_FIELD_NUMBER: _ClassVar[int]
    slug: str
    count: int
    apply: bool
    def __init__(self, slug: _Optional[str] = ..., count: _Optional[int] = ..., apply: _Optional[bool] = ...) -> None: ...

class SuggestedSlot(_message.Message):
    __slots__ = ("day", "time")
    DAY_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    day: str
    time: str
    def __init__(self, day: _Optional[str] = ..., time: _Optional[str] = ...) -> None: ...

class QueueSuggestion(_message.Message):
    __slots__ = ("slug", "time_zone", "basis", "sample_size", "slots", "applied")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    BASIS_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    SLOTS_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    slug: str
    time_zone: str
    basis: str
    sample_size: int
    slots: _containers.RepeatedCompositeFieldContainer[SuggestedSlot]
    applied: bool
    def __init__(self, slug: _Optional[str] = ..., time_zone: _Optional[str] = ..., basis: _Optional[str] = ..., sample_size: _Optional[int] = ..., slots: _Optional[_Iterable[_Union[SuggestedSlot, _Mapping]]] = ..., applied: _Optional[bool] = ...) -> None: ...
