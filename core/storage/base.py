"""Object storage for the media library: upload URLs point here, never at the API (DESIGN 8).

Two backends implement this interface: `local` (the embedded `herald storage` server: files
under the data directory, HMAC-signed expiring PUT URLs) and `gcs` (Google Cloud Storage, V4
signed URLs). The core uses it to issue upload URLs, to check what landed, to stream it back for
hashing and sniffing, to store legacy multipart uploads and to delete; housekeeping lists what is
stored to remove bytes no media record references (core/worker/maintenance.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

UPLOAD_URL_LIFETIME = 3600  # seconds (SPEC 8)
CHUNK_SIZE = 1024 * 1024


@dataclass(frozen=True, slots=True)
class StoredObject:
    key: str
    size_bytes: int
    content_type: str


@dataclass(frozen=True, slots=True)
class ListedObject:
    """One entry of `list_objects`. `key` is the object's key; for a partial upload (a temp file the
    local backend keeps beside an object while it arrives) the key it was meant for. `name` is the
    backend's own name for the entry (a path under the objects directory, a blob name) and
    `version` what `delete_listed` checks (modification time and inode, a GCS generation)."""

    key: str
    size_bytes: int
    modified: datetime  # last modification, UTC
    name: str
    version: str
    partial: bool = False


class ObjectStorage(Protocol):
    def upload_url(self, key: str, *, content_type: str, size_bytes: int, expires_in: int = UPLOAD_URL_LIFETIME) -> str:
        """A URL that accepts exactly one `PUT` of the object's bytes with this Content-Type
        until it expires. Tampering with it (key, type, size, expiry) invalidates it."""
        ...

    async def stat(self, key: str) -> StoredObject | None:
        """What landed under `key`, or None when nothing (complete) did."""
        ...

    def read(self, key: str, *, chunk_size: int = CHUNK_SIZE) -> AsyncIterator[bytes]:
        """The object's bytes, streamed in chunks (never whole in memory)."""
        ...

    async def write(self, key: str, chunks: AsyncIterator[bytes], *, content_type: str, max_bytes: int) -> int:
        """Stores a stream (the legacy multipart upload); returns its size. Raises
        `ObjectTooLarge` past `max_bytes`, leaving nothing behind."""
        ...

    async def delete(self, key: str) -> None:
        """Removes the object; absent is not an error."""
        ...

    def list_objects(self, prefix: str = "") -> AsyncIterator[ListedObject]:
        """Everything stored under keys starting with `prefix` (a whole segment, e.g. `org_x/`), in
        no particular order, streamed page by page: complete objects and, for the local backend,
        temp files of uploads in progress or abandoned (`partial`)."""
        ...

    async def delete_listed(self, listed: ListedObject) -> bool:
        """Removes what `list_objects` listed, only if it is unchanged since (same `version`): a
        newer object under the same key is kept. True when something was removed."""
        ...


class ObjectTooLarge(Exception):
    pass
