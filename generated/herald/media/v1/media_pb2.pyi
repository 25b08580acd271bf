import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Media(_message.Message):
    __slots__ = ("media_id", "type", "mime_type", "size_bytes", "name", "description", "tags", "create_time", "status", "content_hash", "width", "height")
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    type: str
    mime_type: str
    size_bytes: int
    name: str
    description: str
    tags: str
    create_time: _timestamp_pb2.Timestamp
    status: str
    content_hash: str
    width: int
    height: int
    def __init__(self, media_id: _Optional[str] = ..., type: _Optional[str] = ..., mime_type: _Optional[str] = ..., size_bytes: _Optional[int] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., tags: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status: _Optional[str] = ..., content_hash: _Optional[str] = ..., width: _Optional[int] = ..., height: _Optional[int] = ...) -> None: ...

class CreateUploadRequest(_message.Message):
    __slots__ = ("filename", "mime_type", "size_bytes", "content_hash")
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    filename: str
    mime_type: str
    size_bytes: int
    content_hash: str
    def __init__(self, filename: _Optional[str] = ..., mime_type: _Optional[str] = ..., size_bytes: _Optional[int] = ..., content_hash: _Optional[str] = ...) -> None: ...

class Upload(_message.Message):
    __slots__ = ("media_id", "upload_url", "expires_in", "duplicate")
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    UPLOAD_URL_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    upload_url: str
    expires_in: int
    duplicate: bool
    def __init__(self, media_id: _Optional[str] = ..., upload_url: _Optional[str] = ..., expires_in: _Optional[int] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class UploadMediaRequest(_message.Message):
    __slots__ = ("header", "chunk")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    header: UploadHeader
    chunk: bytes
    def __init__(self, header: _Optional[_Union[UploadHeader, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class UploadHeader(_message.Message):
    __slots__ = ("filename", "mime_type")
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    filename: str
    mime_type: str
    def __init__(self, filename: _Optional[str] = ..., mime_type: _Optional[str] = ...) -> None: ...

class ConfirmMediaRequest(_message.Message):
    __slots__ = ("media_id",)
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    def __init__(self, media_id: _Optional[str] = ...) -> None: ...

class ListMediaRequest(_message.Message):
    __slots__ = ("tag", "page_size", "page_token")
    TAG_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tag: str
    page_size: int
    page_token: str
    def __init__(self, tag: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListMediaResponse(_message.Message):
    __slots__ = ("media", "next_page_token")
    MEDIA_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    media: _containers.RepeatedCompositeFieldContainer[Media]
    next_page_token: str
    def __init__(self, media: _Optional[_Iterable[_Union[Media, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetMediaRequest(_message.Message):
    __slots__ = ("media_id",)
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    def __init__(self, media_id: _Optional[str] = ...) -> None: ...

class UpdateMediaRequest(_message.Message):
    __slots__ = ("media_id", "description", "tags")
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    description: str
    tags: str
    def __init__(self, media_id: _Optional[str] = ..., description: _Optional[str] = ..., tags: _Optional[str] = ...) -> None: ...

class DeleteMediaRequest(_message.Message):
    __slots__ = ("media_id",)
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    def __init__(self, media_id: _Optional[str] = ...) -> None: ...

class ListMediaDetailsRequest(_message.Message):
    __slots__ = ("media_ids",)
    MEDIA_IDS_FIELD_NUMBER: _ClassVar[int]
    media_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, media_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class MediaUse(_message.Message):
    __slots__ = ("post_id", "status")
    POST_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    post_id: str
    status: str
    def __init__(self, post_id: _Optional[str] = ..., status: _Optional[str] = ...) -> None: ...

class MediaDetails(_message.Message):
    __slots__ = ("media_id", "has_thumbnail", "uses", "use_count", "blocking_post_id")
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    HAS_THUMBNAIL_FIELD_NUMBER: _ClassVar[int]
    USES_FIELD_NUMBER: _ClassVar[int]
    USE_COUNT_FIELD_NUMBER: _ClassVar[int]
    BLOCKING_POST_ID_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    has_thumbnail: bool
    uses: _containers.RepeatedCompositeFieldContainer[MediaUse]
    use_count: int
    blocking_post_id: str
    def __init__(self, media_id: _Optional[str] = ..., has_thumbnail: _Optional[bool] = ..., uses: _Optional[_Iterable[_Union[MediaUse, _Mapping]]] = ..., use_count: _Optional[int] = ..., blocking_post_id: _Optional[str] = ...) -> None: ...

class ListMediaDetailsResponse(_message.Message):
    __slots__ = ("details",)
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    details: _containers.RepeatedCompositeFieldContainer[MediaDetails]
    def __init__(self, details: _Optional[_Iterable[_Union[MediaDetails, _Mapping]]] = ...) -> None: ...

class GetMediaThumbnailRequest(_message.Message):
    __slots__ = ("media_id",)
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    def __init__(self, media_id: _Optional[str] = ...) -> None: ...

class MediaThumbnail(_message.Message):
    __slots__ = ("media_id", "type", "mime_type", "data")
    MEDIA_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    media_id: str
    type: str
    mime_type: str
    data: bytes
    def __init__(self, media_id: _Optional[str] = ..., type: _Optional[str] = ..., mime_type: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class GetUploadOriginRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UploadOrigin(_message.Message):
    __slots__ = ("origin",)
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    origin: str
    def __init__(self, origin: _Optional[str] = ...) -> None: ...
