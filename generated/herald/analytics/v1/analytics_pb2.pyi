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
    __slots__ = ("post_id", "latest", "history", "thread", "next_read_time", "tracking")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    LATEST_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    NEXT_READ_TIME_FIELD_NUMBER: _ClassVar[int]
    TRACKING_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    latest: MetricSnapshot
    history: _containers.RepeatedCompositeFieldContainer[MetricSnapshot]
    thread: _containers.RepeatedCompositeFieldContainer[ThreadItemMetrics]
    next_read_time: _timestamp_pb2.Timestamp
    tracking: str
    def __init__(self, post_id: _Optional[str] = ..., latest: _Optional[_Union[MetricSnapshot, _Mapping]] = ..., history: _Optional[_Iterable[_Union[MetricSnapshot, _Mapping]]] = ..., thread: _Optional[_Iterable[_Union[ThreadItemMetrics, _Mapping]]] = ..., next_read_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., tracking: _Optional[str] = ...) -> None: ...

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

class ListPostAnalyticsRequest(_message.Message):
    __slots__ = ("start_time", "end_time", "profile", "tag", "connector", "sort", "order", "page_size", "page_token")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    SORT_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    start_time: str
    end_time: str
    profile: str
    tag: str
    connector: str
    sort: str
    order: str
    page_size: int
    page_token: str
    def __init__(self, start_time: _Optional[str] = ..., end_time: _Optional[str] = ..., profile: _Optional[str] = ..., tag: _Optional[str] = ..., connector: _Optional[str] = ..., sort: _Optional[str] = ..., order: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class PostAnalytics(_message.Message):
    __slots__ = ("post_id", "profile", "connector", "content", "platform_url", "publish_time", "metrics", "engagement", "collect_time", "source")
    class MetricsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_URL_FIELD_NUMBER: _ClassVar[int]
    PUBLISH_TIME_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    ENGAGEMENT_FIELD_NUMBER: _ClassVar[int]
    COLLECT_TIME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    profile: str
    connector: str
    content: str
    platform_url: str
    publish_time: _timestamp_pb2.Timestamp
    metrics: _containers.ScalarMap[str, int]
    engagement: int
    collect_time: _timestamp_pb2.Timestamp
    source: str
    def __init__(self, post_id: _Optional[str] = ..., profile: _Optional[str] = ..., connector: _Optional[str] = ..., content: _Optional[str] = ..., platform_url: _Optional[str] = ..., publish_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., metrics: _Optional[_Mapping[str, int]] = ..., engagement: _Optional[int] = ..., collect_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., source: _Optional[str] = ...) -> None: ...

class ListPostAnalyticsResponse(_message.Message):
    __slots__ = ("posts", "next_page_token", "start_time", "end_time")
    POSTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    posts: _containers.RepeatedCompositeFieldContainer[PostAnalytics]
    next_page_token: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    def __init__(self, posts: _Optional[_Iterable[_Union[PostAnalytics, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetAnalyticsSummaryRequest(_message.Message):
    __slots__ = ("start_time", "end_time", "group_by", "profile", "tag", "connector")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    GROUP_BY_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    CONNECTOR_FIELD_NUMBER: _ClassVar[int]
    start_time: str
    end_time: str
    group_by: str
    profile: str
    tag: str
    connector: str
    def __init__(self, start_time: _Optional[str] = ..., end_time: _Optional[str] = ..., group_by: _Optional[str] = ..., profile: _Optional[str] = ..., tag: _Optional[str] = ..., connector: _Optional[str] = ...) -> None: ...

class AnalyticsGroup(_message.Message):
    __slots__ = ("key", "posts", "metrics", "engagement")
    class MetricsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    KEY_FIELD_NUMBER: _ClassVar[int]
    POSTS_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    ENGAGEMENT_FIELD_NUMBER: _ClassVar[int]
    key: str
    posts: int
    metrics: _containers.ScalarMap[str, int]
    engagement: int
    def __init__(self, key: _Optional[str] = ..., posts: _Optional[int] = ..., metrics: _Optional[_Mapping[str, int]] = ..., engagement: _Optional[int] = ...) -> None: ...

class AnalyticsSummary(_message.Message):
    __slots__ = ("group_by", "time_zone", "start_time", "end_time", "groups", "total")
    GROUP_BY_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    group_by: str
    time_zone: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    groups: _containers.RepeatedCompositeFieldContainer[AnalyticsGroup]
    total: AnalyticsGroup
    def __init__(self, group_by: _Optional[str] = ..., time_zone: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., groups: _Optional[_Iterable[_Union[AnalyticsGroup, _Mapping]]] = ..., total: _Optional[_Union[AnalyticsGroup, _Mapping]] = ...) -> None: ...
