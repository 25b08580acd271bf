"""A media record as the core holds it once read from the `media` table: shared by the media
service, its messages and events, and the places that load media for posts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class MediaRecord:
    id: str
    kind: str
    mime_type: str
    size_bytes: int
    name: str
    description: str
    tags: str
    status: str
    content_hash: str
    width: int | None
    height: int | None
    created_at: datetime
    storage_key: str
    thumbnail_key: str | None = None


def media_record(row) -> MediaRecord:  # a Row of the media table
    return MediaRecord(
        row.id,
        row.kind,
        row.mime_type,
        row.size_bytes,
        row.name,
        row.description,
        row.tags,
        row.status,
        row.content_hash or "",
        row.width,
        row.height,
        row.created_at,
        row.storage_key,
        row.thumbnail_key,
    )
