"""The arguments of the media library's operations (docs/api.md, "Route reference"), each
converting itself to its core request message."""

from __future__ import annotations

from typing import Annotated, Any

from herald.media.v1 import media_pb2
from pydantic import Field

from contract.base import FromCatalog, InPath, Request
from contract.catalog import Catalog
from contract.requests import ABSENT, INT64_MAX, PageToken, Tag, _page_size, rpc_path


def _mime_types(catalog: Catalog) -> Any:  # a FieldInfo
    return Field(
        description=f"One of {', '.join(catalog.mime_types)}; any other is refused with UNSUPPORTED_MEDIA_TYPE."
    )


def _size_bytes(catalog: Catalog) -> Any:  # a FieldInfo
    limits = {t.kind: t.presign_max_bytes for t in catalog.message.media_types}
    return Field(
        description="The exact size in bytes. At most "
        + ", ".join(f"{size:,} for {kind}" for kind, size in limits.items())
        + " (FILE_TOO_LARGE)."
    )


class PresignRequest(Request):
    """Register an upload: the bytes then go straight to object storage."""

    filename: Annotated[
        str,
        FromCatalog(lambda c: Field(max_length=c.limits.max_filename_chars)),
        Field(
            min_length=1,
            pattern=r"^[^/\x00-\x1f\x7f]*\S[^/\x00-\x1f\x7f]*$",
            description="The original filename: printable, without '/'.",
        ),
    ]
    mime_type: Annotated[str, FromCatalog(_mime_types), Field(min_length=1)]
    size_bytes: Annotated[int, FromCatalog(_size_bytes), Field(ge=1, le=INT64_MAX)]
    content_hash: Annotated[
        str | None,
        FromCatalog(lambda c: Field(pattern=c.limits.content_hash_pattern)),
        Field(description="SHA-256 of the bytes, 64 lowercase hex characters; enables dedupe."),
    ] = None

    def to_proto(self) -> media_pb2.CreateUploadRequest:
        return media_pb2.CreateUploadRequest(
            filename=self.filename,
            mime_type=self.mime_type,
            size_bytes=self.size_bytes,
            content_hash=self.content_hash or "",
        )


MediaId = Annotated[str, InPath(), Field(min_length=1, description="The media record's `media_id`.")]


class ConfirmMediaRequest(Request):
    media_id: MediaId

    def to_proto(self) -> media_pb2.ConfirmMediaRequest:
        return media_pb2.ConfirmMediaRequest(media_id=self.media_id)


class GetMediaRequest(Request):
    media_id: MediaId

    def to_proto(self) -> media_pb2.GetMediaRequest:
        return media_pb2.GetMediaRequest(media_id=self.media_id)


class DeleteMediaRequest(Request):
    media_id: MediaId

    def to_proto(self) -> media_pb2.DeleteMediaRequest:
        return media_pb2.DeleteMediaRequest(media_id=self.media_id)


class ListMediaRequest(Request):
    tag: Tag = None
    page_size: _page_size(rpc_path(media_pb2, "MediaService", "ListMedia")) = 0  # type: ignore[valid-type]
    page_token: PageToken = None

    def to_proto(self) -> media_pb2.ListMediaRequest:
        return media_pb2.ListMediaRequest(
            tag=self.tag or "", page_size=self.page_size, page_token=self.page_token or ""
        )


class UpdateMediaRequest(Request):
    """Absent fields are kept."""

    media_id: MediaId
    description: Annotated[str, FromCatalog(lambda c: Field(max_length=c.limits.max_description_chars))] = ABSENT
    tags: Annotated[str, Field(description="Comma-separated tags (each 1-64 of a-z 0-9 _ : -); replaces the tags.")] = (
        ABSENT
    )

    def to_proto(self) -> media_pb2.UpdateMediaRequest:
        message = media_pb2.UpdateMediaRequest(media_id=self.media_id)
        if self.description is not None:
            message.description = self.description
        if self.tags is not None:
            message.tags = self.tags
        return message


class UploadMediaRequest(Request):
    """The legacy multipart upload, kept for compatibility (new clients presign and confirm): one
    part named `file`; other parts are ignored."""

    file: Annotated[
        bytes,
        Field(
            json_schema_extra={"format": "binary", "contentMediaType": "application/octet-stream"},
            description="The file; its filename and Content-Type become the record's name and mime_type.",
        ),
    ]
