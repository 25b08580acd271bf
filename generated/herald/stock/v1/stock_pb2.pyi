from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListStockProvidersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StockProvider(_message.Message):
    __slots__ = ("provider", "configured", "enabled")
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    CONFIGURED_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    provider: str
    configured: bool
    enabled: bool
    def __init__(self, provider: _Optional[str] = ..., configured: _Optional[bool] = ..., enabled: _Optional[bool] = ...) -> None: ...

class ListStockProvidersResponse(_message.Message):
    __slots__ = ("providers",)
    PROVIDERS_FIELD_NUMBER: _ClassVar[int]
    providers: _containers.RepeatedCompositeFieldContainer[StockProvider]
    def __init__(self, providers: _Optional[_Iterable[_Union[StockProvider, _Mapping]]] = ...) -> None: ...

class SetStockProvidersRequest(_message.Message):
    __slots__ = ("disabled",)
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    disabled: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, disabled: _Optional[_Iterable[str]] = ...) -> None: ...

class GetSourcingRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class SourcingError(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class SearchStockRequest(_message.Message):
    __slots__ = ("query", "preset", "count", "provider")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    query: str
    preset: str
    count: int
    provider: str
    def __init__(self, query: _Optional[str] = ..., preset: _Optional[str] = ..., count: _Optional[int] = ..., provider: _Optional[str] = ...) -> None: ...

class Attribution(_message.Message):
    __slots__ = ("photographer", "photographer_url", "source", "source_url")
    PHOTOGRAPHER_FIELD_NUMBER: _ClassVar[int]
    PHOTOGRAPHER_URL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_URL_FIELD_NUMBER: _ClassVar[int]
    photographer: str
    photographer_url: str
    source: str
    source_url: str
    def __init__(self, photographer: _Optional[str] = ..., photographer_url: _Optional[str] = ..., source: _Optional[str] = ..., source_url: _Optional[str] = ...) -> None: ...

class StockResult(_message.Message):
    __slots__ = ("source_ref", "provider", "preview_url", "mime_type", "width", "height", "alt_text", "attribution")
    SOURCE_REF_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    PREVIEW_URL_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    ALT_TEXT_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    source_ref: str
    provider: str
    preview_url: str
    mime_type: str
    width: int
    height: int
    alt_text: str
    attribution: Attribution
    def __init__(self, source_ref: _Optional[str] = ..., provider: _Optional[str] = ..., preview_url: _Optional[str] = ..., mime_type: _Optional[str] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., alt_text: _Optional[str] = ..., attribution: _Optional[_Union[Attribution, _Mapping]] = ...) -> None: ...

class SearchStockResponse(_message.Message):
    __slots__ = ("provider", "preset", "query", "results")
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    provider: str
    preset: str
    query: str
    results: _containers.RepeatedCompositeFieldContainer[StockResult]
    def __init__(self, provider: _Optional[str] = ..., preset: _Optional[str] = ..., query: _Optional[str] = ..., results: _Optional[_Iterable[_Union[StockResult, _Mapping]]] = ...) -> None: ...

class SourceMediaRequest(_message.Message):
    __slots__ = ("source_refs", "preset", "destination", "provider", "query")
    SOURCE_REFS_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    DESTINATION_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    source_refs: _containers.RepeatedScalarFieldContainer[str]
    preset: str
    destination: str
    provider: str
    query: str
    def __init__(self, source_refs: _Optional[_Iterable[str]] = ..., preset: _Optional[str] = ..., destination: _Optional[str] = ..., provider: _Optional[str] = ..., query: _Optional[str] = ...) -> None: ...

class SourcedMedia(_message.Message):
    __slots__ = ("media_id", "alt_text", "provider", "source_ref", "attribution")
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    ALT_TEXT_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    SOURCE_REF_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    alt_text: str
    provider: str
    source_ref: str
    attribution: Attribution
    def __init__(self, media_id: _Optional[str] = ..., alt_text: _Optional[str] = ..., provider: _Optional[str] = ..., source_ref: _Optional[str] = ..., attribution: _Optional[_Union[Attribution, _Mapping]] = ...) -> None: ...

class SourceFailure(_message.Message):
    __slots__ = ("source_ref", "code", "message")
    SOURCE_REF_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    source_ref: str
    code: str
    message: str
    def __init__(self, source_ref: _Optional[str] = ..., code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class SourceMediaResponse(_message.Message):
    __slots__ = ("kind", "run_id", "status", "requested_count", "delivered_count", "media_ids", "media", "failures", "error")
    KIND_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_COUNT_FIELD_NUMBER: _ClassVar[int]
    DELIVERED_COUNT_FIELD_NUMBER: _ClassVar[int]
    MEDIA_IDS_FIELD_NUMBER: _ClassVar[int]
    MEDIA_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    kind: str
    run_id: str
    status: str
    requested_count: int
    delivered_count: int
    media_ids: _containers.RepeatedScalarFieldContainer[str]
    media: _containers.RepeatedCompositeFieldContainer[SourcedMedia]
    failures: _containers.RepeatedCompositeFieldContainer[SourceFailure]
    error: SourcingError
    def __init__(self, kind: _Optional[str] = ..., run_id: _Optional[str] = ..., status: _Optional[str] = ..., requested_count: _Optional[int] = ..., delivered_count: _Optional[int] = ..., media_ids: _Optional[_Iterable[str]] = ..., media: _Optional[_Iterable[_Union[SourcedMedia, _Mapping]]] = ..., failures: _Optional[_Iterable[_Union[SourceFailure, _Mapping]]] = ..., error: _Optional[_Union[SourcingError, _Mapping]] = ...) -> None: ...
