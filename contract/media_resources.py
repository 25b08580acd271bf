"""The media library's resources (docs/api.md, "Resources"; docs/media.md): a file of the
library, the page of a listing, and the answers to registering an upload (REST's and the MCP
tool's), each built from its proto message."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.media.v1 import media_pb2
from pydantic import BaseModel, Field

from contract.base import FromCatalog, Response, UtcTimestamp, timestamp
from contract.resources import MediaKind, NextPageToken, _id, _page

# Values the core's catalog enumerates.
MimeType = Annotated[str, FromCatalog(lambda c: Literal[c.mime_types])]


class Media(Response):
    """A file of the media library: its type, size and name, its status, content_hash and image
    dimensions (docs/media.md)."""

    media_id: Annotated[str, _id("med")]
    type: MediaKind
    mime_type: MimeType
    size_bytes: int = Field(ge=0)
    name: str = Field(description="The original filename.")
    description: str = Field(description="Empty string by default.")
    tags: str = Field(description="Comma-separated, lowercased; empty string by default.")
    created_at: UtcTimestamp
    status: Literal["pending", "confirmed"]
    content_hash: Annotated[str, Field(pattern="^[0-9a-f]{64}$")] | None
    width: Annotated[int, Field(ge=1)] | None
    height: Annotated[int, Field(ge=1)] | None

    @classmethod
    def from_proto(cls, m: media_pb2.Media) -> dict[str, Any]:
        return dict(
            media_id=m.media_id,
            type=m.type,
            mime_type=m.mime_type,
            size_bytes=m.size_bytes,
            name=m.name,
            description=m.description,
            tags=m.tags,
            created_at=timestamp(m.create_time),
            status=m.status,
            content_hash=m.content_hash or None,
            width=m.width or None,
            height=m.height or None,
        )


class MediaList(Response):
    """A page of confirmed media, newest first."""

    media: list[Media]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: media_pb2.ListMediaResponse) -> dict[str, Any]:
        return _page("media", [Media.from_proto(m) for m in r.media], r.next_page_token)


class PresignResult(Response):
    """An upload registered: PUT the bytes to `upload_url`, then confirm."""

    media_id: Annotated[str, _id("med")]
    upload_url: str = Field(
        json_schema_extra={"format": "uri"},
        description="PUT the raw bytes here with `Content-Type` equal to the declared mime_type.",
    )
    expires_in: int = Field(description="Seconds until upload_url expires.")

    @classmethod
    def from_proto(cls, u: media_pb2.Upload) -> dict[str, Any]:
        return dict(media_id=u.media_id, upload_url=u.upload_url, expires_in=u.expires_in)


class PresignDuplicate(Response):
    """The library already holds these bytes (by content_hash): nothing was created."""

    media_id: Annotated[str, _id("med")]
    duplicate: Literal[True]

    @classmethod
    def from_proto(cls, u: media_pb2.Upload) -> dict[str, Any]:
        return dict(media_id=u.media_id, duplicate=True)


class UploadInstructions(BaseModel):
    method: str
    url: str
    headers: dict[str, str]


class PresignTicket(Response):
    """create_media's result: the record to confirm and how to upload its bytes."""

    media_id: str
    duplicate: bool
    upload_url: str | None
    expires_in: int | None
    upload: UploadInstructions | None
    next_step: str

    @classmethod
    def from_upload(cls, upload: media_pb2.Upload, request: Any) -> dict[str, Any]:  # a PresignRequest
        if upload.duplicate:
            return dict(
                media_id=upload.media_id,
                duplicate=True,
                upload_url=None,
                expires_in=None,
                upload=None,
                next_step="Nothing to upload: the library already holds these bytes. Use media_id in create_post.",
            )
        return dict(
            media_id=upload.media_id,
            duplicate=False,
            upload_url=upload.upload_url,
            expires_in=upload.expires_in,
            upload=dict(method="PUT", url=upload.upload_url, headers={"Content-Type": request.mime_type}),
            next_step=f"PUT the raw bytes ({request.size_bytes} of them) to upload_url with the header "
            f"Content-Type: {request.mime_type} within {upload.expires_in} s (no Authorization header), then call "
            "confirm_media with media_id.",
        )
