"""Object storage for the media library: upload URLs point here, never at the API
(docs/decisions.md, "Upload URLs point at object storage").

Two backends implement this interface: `local` (the embedded `herald storage` server: files
under the data directory, HMAC-signed expiring PUT URLs) and `gcs` (Google Cloud Storage, V4
signed URLs). The core uses it to issue upload URLs, to check what landed, to stream it back for
hashing and sniffing, to store legacy multipart uploads and to delete; housekeeping lists what is
stored to remove bytes no media record references (core/worker/maintenance.py). Live publishing
hands platforms short-lived signed read URLs (`read_url`) and streams byte ranges to chunked
upload APIs (`read` with `start`/`end`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from urllib.parse import urlsplit

UPLOAD_URL_LIFETIME = 3600  # seconds (docs/api.md, "Limits")
READ_URL_LIFETIME = 900  # seconds: long enough for a platform to fetch a video, short enough to leak little
MAX_URL_LIFETIME = 7 * 24 * 3600  # the longest a GCS V4 signed URL may live; both backends enforce it
CHUNK_SIZE = 1024 * 1024


@dataclass(frozen=True, slots=True)
class StoredObject:
    """What `stat` found. `generation` names these exact bytes where the backend can read an
    object's earlier versions (GCS: replacing an object makes a new generation); None for the
    local backend, whose objects at an upload URL's key are never replaced (the second PUT is
    refused)."""

    key: str
    size_bytes: int
    content_type: str
    generation: int | None = None


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

    def upload_origin(self) -> str:
        """The origin (`scheme://host[:port]`) every upload URL points at: the dashboard's
        Content-Security-Policy lets its upload script reach it (docs/media.md, "Uploads from the
        browser")."""
        ...

    async def stat(self, key: str) -> StoredObject | None:
        """What landed under `key`, or None when nothing (complete) did."""
        ...

    def read_url(self, key: str, *, expires_in: int = READ_URL_LIFETIME, generation: int | None = None) -> str:
        """A URL anyone can `GET` the object's bytes with until it expires, single byte ranges
        included (the embedded storage answers `HEAD` on it too); platforms that pull media from a
        public URL are given one. It signs the method, the key and the expiry, and can never serve
        as an upload URL (nor the reverse). At most MAX_URL_LIFETIME seconds (ValueError). With a
        `generation` (from `stat`), it serves those bytes only, never a later replacement."""
        ...

    def read(
        self,
        key: str,
        *,
        chunk_size: int = CHUNK_SIZE,
        start: int = 0,
        end: int | None = None,
        generation: int | None = None,
    ) -> AsyncIterator[bytes]:
        """The object's bytes `[start, end)` (end exclusive, None: to the end; clamped to the
        object's size like a slice), streamed in chunks of at most `chunk_size` (never whole in
        memory). Raises ValueError at once for a negative `start`, `end < start` or `chunk_size < 1`;
        FileNotFoundError, when iterated, if the object is absent (even for an empty range). With a
        `generation` (from `stat`), those bytes only: FileNotFoundError when they are gone."""
        ...

    async def write(self, key: str, chunks: AsyncIterator[bytes], *, content_type: str, max_bytes: int) -> int:
        """Stores a stream (the legacy multipart upload); returns its size. Raises
        `ObjectTooLarge` past `max_bytes`, leaving nothing behind."""
        ...

    async def put(self, key: str, data: bytes, *, content_type: str) -> None:
        """Stores a small object already in memory (a cropped stock photo) in one step,
        replacing any object of that key; as durable as `write`."""
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


def check_read_range(chunk_size: int, start: int, end: int | None) -> None:
    """The arguments of `ObjectStorage.read`, checked when it is called."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    if start < 0:
        raise ValueError("start must not be negative")
    if end is not None and end < start:
        raise ValueError("end must not be before start")


def origin_of(url: str) -> str:
    """`scheme://host[:port]` of a URL (the port only when it names one)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def check_lifetime(expires_in: int) -> int:
    if expires_in > MAX_URL_LIFETIME:
        raise ValueError(f"a signed URL lives at most {MAX_URL_LIFETIME} seconds")
    return expires_in
