"""The `gcs` backend: Google Cloud Storage through google-cloud-storage
(docs/decisions.md, "Upload URLs point at object storage").

Upload URLs are V4 signed URLs for one `PUT` with the signed Content-Type, valid `expires_in`
seconds; read URLs (`read_url`) are V4 signed URLs for `GET` (only `host` is a signed header, so a
client may send `Range`; a HEAD would need a URL signed for HEAD). Both are signed with the
service-account key in HERALD_GCS_CREDENTIALS_FILE, offline; without one, with the IAM signBlob API
on behalf of the default credentials' service account (GCE, Cloud Run).

With HERALD_GCS_ENDPOINT (an emulator) the API calls use anonymous credentials: a service-account
client would try to reach Google's token endpoint; signed URLs point at that endpoint too. The
library is synchronous, so every call runs in a worker thread. Reads (whole or `[start, end)`) are
ranged downloads of one generation (a replaced object fails the read rather than mixing two
versions); writes spool to a temp file first, so `max_bytes` is enforced before anything reaches
the bucket and memory stays bounded.

Not signed: `x-goog-content-length-range`. The library can sign it (`headers=`), but a signed
extension header must then be sent by the client, and the contract's PUT carries only Content-Type
(docs/api.md, "Resources": the presign result);
so GCS does not cap the size at PUT time and the API's confirm step refuses a size that differs
from the declared one (FILE_SIZE_MISMATCH). Nor can GCS refuse a second PUT to the same URL (that
too would need a signed `x-goog-if-generation-match` header): it replaces the object. So what
confirm checked is pinned instead: `stat` answers the object's generation, confirm hashes that
generation and records it, and every later read and read URL names it (`generation=`). A
replacement made with a still-valid upload URL is a new generation that nothing reads; on a
bucket without Object Versioning GCS drops the old generation then, and the pinned reads fail
(FileNotFoundError, a 404 on the URL) rather than serve other bytes (docs/media.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator, Iterable, Iterator
from datetime import timedelta
from typing import Any

from google.api_core.exceptions import NotFound, PreconditionFailed
from google.auth.credentials import AnonymousCredentials
from google.cloud.storage import Blob, Client
from google.oauth2 import service_account

from core.settings import CoreSettings
from core.storage.base import (
    CHUNK_SIZE,
    READ_URL_LIFETIME,
    UPLOAD_URL_LIFETIME,
    ListedObject,
    ObjectTooLarge,
    StoredObject,
    check_lifetime,
    check_read_range,
    origin_of,
)
from core.storage.local import in_thread

DEFAULT_CONTENT_TYPE = "application/octet-stream"
# Where signed URLs point without HERALD_GCS_ENDPOINT (google-cloud-storage's default).
GCS_ENDPOINT = "https://storage.googleapis.com"
# One ranged GET fetches at least this much (one round trip per MiB would cap throughput).
RANGE_BYTES = 8 * 1024 * 1024
SPOOL_BUFFER = 1024 * 1024
LIST_PAGE = 1000


class GcsStorage:
    def __init__(self, settings: CoreSettings) -> None:
        if not settings.gcs_bucket:
            raise ValueError("HERALD_GCS_BUCKET is required with HERALD_STORAGE_BACKEND=gcs")
        self.endpoint = settings.gcs_endpoint.rstrip("/")
        self._signer: service_account.Credentials | None = None
        if settings.gcs_credentials_file:
            self._signer = service_account.Credentials.from_service_account_file(settings.gcs_credentials_file)
        if self.endpoint:
            project = (self._signer.project_id if self._signer else None) or "herald"
            self.client = Client(
                project=project, credentials=AnonymousCredentials(), client_options={"api_endpoint": self.endpoint}
            )
        elif self._signer is not None:
            self.client = Client(project=self._signer.project_id, credentials=self._signer)
        else:
            self.client = Client()
        self.bucket = self.client.bucket(settings.gcs_bucket)
        self._spool_dir = settings.data_dir if settings.data_dir.is_dir() else None

    def _signing(self) -> dict[str, Any]:
        if self._signer is not None:
            return {"credentials": self._signer}
        # Default credentials of a service account: sign through IAM with a fresh access token.
        import google.auth.transport.requests

        credentials = self.client._credentials
        if not credentials.valid:
            credentials.refresh(google.auth.transport.requests.Request())
        return {"service_account_email": credentials.service_account_email, "access_token": credentials.token}

    def upload_url(self, key: str, *, content_type: str, size_bytes: int, expires_in: int = UPLOAD_URL_LIFETIME) -> str:
        if size_bytes < 0:
            raise ValueError("size_bytes must not be negative")
        return self.bucket.blob(key).generate_signed_url(
            version="v4",
            method="PUT",
            expiration=timedelta(seconds=expires_in),
            content_type=content_type,
            api_access_endpoint=self.endpoint or None,
            **self._signing(),
        )

    def upload_origin(self) -> str:
        return origin_of(self.endpoint or GCS_ENDPOINT)

    def read_url(self, key: str, *, expires_in: int = READ_URL_LIFETIME, generation: int | None = None) -> str:
        """With a generation, the signed query names it (`generation=`): GCS serves that
        generation or 404, never the object that replaced it."""
        return self.bucket.blob(key).generate_signed_url(
            version="v4",
            method="GET",
            expiration=timedelta(seconds=check_lifetime(expires_in)),
            api_access_endpoint=self.endpoint or None,
            generation=generation,
            **self._signing(),
        )

    async def stat(self, key: str) -> StoredObject | None:
        blob = await asyncio.to_thread(self.bucket.get_blob, key)
        if blob is None:
            return None
        generation = int(blob.generation) if blob.generation is not None else None
        return StoredObject(key, int(blob.size or 0), blob.content_type or DEFAULT_CONTENT_TYPE, generation)

    def read(
        self,
        key: str,
        *,
        chunk_size: int = CHUNK_SIZE,
        start: int = 0,
        end: int | None = None,
        generation: int | None = None,
    ) -> AsyncIterator[bytes]:
        """Streams `[start, end)` of the object (of that generation, when given); raises
        FileNotFoundError when it is absent."""
        check_read_range(chunk_size, start, end)
        return self._read(key, chunk_size, start, end, generation)

    async def _read(
        self, key: str, chunk_size: int, start: int, end: int | None, generation: int | None
    ) -> AsyncIterator[bytes]:
        found = await asyncio.to_thread(self.bucket.get_blob, key, generation=generation)
        if found is None:
            raise FileNotFoundError(key if generation is None else f"{key} generation {generation}")
        size = int(found.size or 0)
        stop = size if end is None else min(end, size)
        # Every ranged download names the generation: the one asked for, else the one found now,
        # so a read never mixes two versions of an object.
        blob = Blob(key, self.bucket, generation=found.generation)
        fetch = max(chunk_size, RANGE_BYTES)
        position = start
        while position < stop:
            last = min(position + fetch, stop) - 1  # download_as_bytes takes an inclusive end
            try:
                data = await asyncio.to_thread(blob.download_as_bytes, start=position, end=last, checksum=None)
            except NotFound:
                raise FileNotFoundError(f"{key} was replaced or deleted while being read") from None
            if not data:
                raise OSError(f"{key}: empty range {position}-{last}")
            data = data[: stop - position]  # (a server sending more than asked is not trusted further)
            position += len(data)
            for offset in range(0, len(data), chunk_size):
                yield data[offset : offset + chunk_size]

    async def write(self, key: str, chunks: AsyncIterator[bytes], *, content_type: str, max_bytes: int) -> int:
        spool = await asyncio.to_thread(tempfile.TemporaryFile, dir=self._spool_dir)
        try:
            size = 0
            buffer = bytearray()
            async for chunk in chunks:
                size += len(chunk)
                if size > max_bytes:
                    raise ObjectTooLarge(f"more than {max_bytes:,} bytes")
                buffer += chunk
                if len(buffer) >= SPOOL_BUFFER:
                    data, buffer = buffer, bytearray()
                    await in_thread(spool.write, data)
            await in_thread(spool.write, buffer)
            await in_thread(
                self.bucket.blob(key).upload_from_file, spool, size=size, content_type=content_type, rewind=True
            )
            return size
        finally:
            spool.close()

    async def put(self, key: str, data: bytes, *, content_type: str) -> None:
        await in_thread(self.bucket.blob(key).upload_from_string, data, content_type=content_type)

    async def delete(self, key: str) -> None:
        with contextlib.suppress(NotFound):
            await asyncio.to_thread(self.bucket.blob(key).delete)

    async def list_objects(self, prefix: str = "") -> AsyncIterator[ListedObject]:
        """`list_blobs` with the prefix, one page (up to LIST_PAGE blobs) per worker-thread step.
        The modification time is the blob's `updated` (its creation, or a later metadata change)."""
        pages = self.client.list_blobs(self.bucket, prefix=prefix or None, page_size=LIST_PAGE).pages
        while page := await asyncio.to_thread(_next_page, pages):
            for blob in page:
                modified = blob.updated or blob.time_created
                if modified is None:
                    continue  # unknown age: never a candidate for removal
                yield ListedObject(blob.name, int(blob.size or 0), modified, blob.name, str(blob.generation))

    async def delete_listed(self, listed: ListedObject) -> bool:
        """Deletes the listed generation only (`ifGenerationMatch`): a newer object is kept."""
        try:
            await asyncio.to_thread(self.bucket.blob(listed.name).delete, if_generation_match=int(listed.version))
        except (NotFound, PreconditionFailed):
            return False
        return True


def _next_page(pages: Iterator[Iterable[Blob]]) -> list[Blob]:
    return list(next(pages, ()))
