"""herald.media.v1.MediaService: translates proto to the media service and back."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

import grpc
from herald.media.v1 import media_pb2, media_pb2_grpc

from core.errors import ValidationError
from core.identity.principal import CredentialKind
from core.ids import new_id
from core.media import service, thumbnails
from core.media.errors import FileNotUploaded, FileTooLarge, UnsupportedMediaType
from core.media.inspect import inspect, matches
from core.media.messages import media_message
from core.pagination import page_request
from core.rpc.context import current_call
from core.rpc.policy import MethodPolicy, PageBounds
from core.storage.base import ObjectStorage, ObjectTooLarge

log = logging.getLogger(__name__)

_WRITE = frozenset({"media:write"})
_READ = frozenset({"posts:read"})
_PAGE_KINDS = frozenset({CredentialKind.API_KEY, CredentialKind.SESSION})

POLICIES = {
    "CreateUpload": MethodPolicy(permission="compose", scopes=_WRITE, writes=True),
    # Streams and hashes up to 1 GB: no transaction stays open meanwhile.
    "ConfirmMedia": MethodPolicy(permission="compose", scopes=_WRITE, writes=True, transactional=False),
    # Streams up to 100 MB from the facade into storage: no transaction meanwhile.
    "UploadMedia": MethodPolicy(permission="compose", scopes=_WRITE, writes=True, transactional=False),
    "ListMedia": MethodPolicy(permission="read", scopes=_READ, page=PageBounds(default=50, maximum=100)),
    "GetMedia": MethodPolicy(permission="read", scopes=_READ),
    "UpdateMedia": MethodPolicy(permission="compose", scopes=_WRITE, writes=True),
    # The bytes are deleted only once the record's deletion has committed.
    "DeleteMedia": MethodPolicy(permission="compose", scopes=_WRITE, writes=True, transactional=False),
    # The dashboard's media page (and gRPC callers with an API key); plan-exempt like every
    # dashboard read. The thumbnail is read from storage outside any transaction.
    "ListMediaDetails": MethodPolicy(
        permission="read", credential_kinds=_PAGE_KINDS, plan_exempt_for_sessions=True, scopes=_READ
    ),
    "GetMediaThumbnail": MethodPolicy(
        permission="read",
        credential_kinds=_PAGE_KINDS,
        plan_exempt_for_sessions=True,
        scopes=_READ,
        transactional=False,
    ),
    "GetUploadOrigin": MethodPolicy(
        permission="read", credential_kinds=_PAGE_KINDS, plan_exempt_for_sessions=True, scopes=_READ
    ),
}
# A thumbnail is a few tens of KB; anything larger under its key is not served.
MAX_THUMBNAIL_BYTES = 1024 * 1024


class MediaServicer(media_pb2_grpc.MediaServiceServicer):
    def __init__(self, storage: ObjectStorage) -> None:
        self.storage = storage

    async def CreateUpload(
        self, request: media_pb2.CreateUploadRequest, context: grpc.aio.ServicerContext
    ) -> media_pb2.Upload:
        call = current_call()
        ticket = await service.create_upload(
            call.conn,
            self.storage,
            call.principal.org_id,
            filename=request.filename,
            mime_type=request.mime_type,
            size_bytes=request.size_bytes,
            content_hash=request.content_hash,
            now=call.now,
        )
        return media_pb2.Upload(
            media_id=ticket.media_id,
            upload_url=ticket.upload_url,
            expires_in=ticket.expires_in,
            duplicate=ticket.duplicate,
        )

    async def ConfirmMedia(
        self, request: media_pb2.ConfirmMediaRequest, context: grpc.aio.ServicerContext
    ) -> media_pb2.Media:
        call = current_call()
        org_id = call.principal.org_id
        async with call.transaction() as conn:
            record = await service.get_media(conn, org_id, request.media_id, status="pending")
        stored = await self.storage.stat(record.storage_key)
        service.check_landed(record, stored.size_bytes if stored else None)
        # What is checked is what gets confirmed: the generation stat saw (GCS) is the one hashed
        # and sniffed, and recorded, so a later PUT with the still-valid upload URL is never read.
        generation = stored.generation if stored else None
        try:
            found = await inspect(self.storage.read(record.storage_key, generation=generation))
        except FileNotFoundError:
            raise FileNotUploaded("the object was replaced or deleted while it was checked: confirm again") from None
        try:
            service.check_inspection(record, found)
        except Exception:
            await self.storage.delete(record.storage_key)  # refused bytes are not kept
            raise
        thumbnail = await self._thumbnail(
            org_id, found.sha256, record.storage_key, record.kind, found.size_bytes, generation
        )
        try:
            async with call.transaction(writes=True) as conn:
                confirmed, duplicate = await service.mark_confirmed(
                    conn, record, org_id, found, call.now, generation=generation, thumbnail_key=thumbnail
                )
        except Exception:
            await self._forget(thumbnail)
            raise
        if duplicate:
            await self._forget(record.storage_key, thumbnail)
        return media_message(confirmed)

    async def _thumbnail(
        self, org_id: str, sha256: str, key: str, kind: str, size_bytes: int, generation: int | None
    ) -> str | None:
        """The thumbnail of bytes about to be confirmed (docs/media.md, "Thumbnails"), unless the
        library already holds them (confirm then answers the existing media)."""
        async with current_call().transaction() as conn:
            if await service.find_duplicate(conn, org_id, sha256) is not None:
                return None
        return await thumbnails.store_thumbnail(
            self.storage, key, kind=kind, size_bytes=size_bytes, generation=generation
        )

    async def _forget(self, *keys: str | None) -> None:
        """Deletes objects no record will name (housekeeping removes any this fails on)."""
        for key in keys:
            if key:
                with contextlib.suppress(Exception):
                    await self.storage.delete(key)

    async def UploadMedia(
        self, request_iterator: AsyncIterator[media_pb2.UploadMediaRequest], context: grpc.aio.ServicerContext
    ) -> media_pb2.Media:
        call = current_call()
        org_id = call.principal.org_id
        first = await anext(aiter(request_iterator), None)
        if first is None or not first.HasField("header"):
            raise ValidationError("the multipart body needs a `file` part")
        header = first.header
        kind = service.validate_legacy_header(header.filename, header.mime_type)
        media_id = new_id("med")
        key = f"{org_id}/{media_id}"

        async def chunks():
            async for message in request_iterator:
                if message.HasField("chunk"):
                    yield message.chunk

        limit = service.LEGACY_LIMITS[kind]
        try:
            size = await self.storage.write(key, chunks(), content_type=header.mime_type.lower(), max_bytes=limit)
        except ObjectTooLarge:
            raise FileTooLarge(f"{kind} files sent to this endpoint are limited to {limit:,} bytes") from None
        thumbnail = None
        try:
            if size == 0:
                raise ValidationError("the file is empty")
            found = await inspect(self.storage.read(key))
            if not matches(header.mime_type.lower(), found.sniffed_type):
                raise UnsupportedMediaType(
                    f"the bytes are not {header.mime_type[:100]} (they look like {found.sniffed_type or 'an unknown type'})"
                )
            thumbnail = await self._thumbnail(org_id, found.sha256, key, kind, found.size_bytes, None)
            async with call.transaction(writes=True) as conn:
                record, duplicate = await service.insert_confirmed(
                    conn, org_id, media_id, key, kind, header.mime_type, header.filename, found, call.now, thumbnail
                )
        except Exception:
            await self.storage.delete(key)
            await self._forget(thumbnail)
            raise
        if duplicate:
            await self._forget(key, thumbnail)
        return media_message(record)

    async def ListMedia(
        self, request: media_pb2.ListMediaRequest, context: grpc.aio.ServicerContext
    ) -> media_pb2.ListMediaResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListMedia"].page)
        records, token = await service.list_media(call.conn, call.principal.org_id, request.tag, page)
        return media_pb2.ListMediaResponse(media=[media_message(r) for r in records], next_page_token=token)

    async def GetMedia(self, request: media_pb2.GetMediaRequest, context: grpc.aio.ServicerContext) -> media_pb2.Media:
        call = current_call()
        return media_message(await service.get_media(call.conn, call.principal.org_id, request.media_id))

    async def UpdateMedia(
        self, request: media_pb2.UpdateMediaRequest, context: grpc.aio.ServicerContext
    ) -> media_pb2.Media:
        call = current_call()
        record = await service.update_media(
            call.conn,
            call.principal.org_id,
            request.media_id,
            request.description if request.HasField("description") else None,
            request.tags if request.HasField("tags") else None,
        )
        return media_message(record)

    async def DeleteMedia(
        self, request: media_pb2.DeleteMediaRequest, context: grpc.aio.ServicerContext
    ) -> media_pb2.Media:
        call = current_call()
        async with call.transaction(writes=True) as conn:
            record = await service.delete_media(conn, call.principal.org_id, request.media_id)
        # A failure here leaves orphaned bytes, which the cleanup removes.
        for key in (record.storage_key, record.thumbnail_key):
            if not key:
                continue
            try:
                await self.storage.delete(key)
            except Exception:
                log.warning("could not delete the bytes of %s; the cleanup will", record.id, exc_info=True)
        return media_message(record)

    async def ListMediaDetails(
        self, request: media_pb2.ListMediaDetailsRequest, context: grpc.aio.ServicerContext
    ) -> media_pb2.ListMediaDetailsResponse:
        call = current_call()
        found = await service.media_details(call.conn, call.principal.org_id, list(request.media_ids))
        return media_pb2.ListMediaDetailsResponse(
            details=[
                media_pb2.MediaDetails(
                    media_id=d.media_id,
                    has_thumbnail=d.has_thumbnail,
                    uses=[media_pb2.MediaUse(post_id=post_id, status=status) for post_id, status in d.uses],
                    use_count=d.use_count,
                    blocking_post_id=d.blocking_post_id,
                )
                for d in found
            ]
        )

    async def GetMediaThumbnail(
        self, request: media_pb2.GetMediaThumbnailRequest, context: grpc.aio.ServicerContext
    ) -> media_pb2.MediaThumbnail:
        call = current_call()
        async with call.transaction() as conn:
            record = await service.get_media(conn, call.principal.org_id, request.media_id)
        answer = media_pb2.MediaThumbnail(media_id=record.id, type=record.kind)
        if record.thumbnail_key and record.status == "confirmed":
            try:
                data = await self._read_small(record.thumbnail_key)
            except Exception:  # gone or unreadable: the page shows the placeholder
                log.warning("could not read the thumbnail of %s", record.id, exc_info=True)
            else:
                answer.data, answer.mime_type = data, thumbnails.THUMBNAIL_TYPE
        return answer

    async def _read_small(self, key: str) -> bytes:
        data = bytearray()
        async for chunk in self.storage.read(key, end=MAX_THUMBNAIL_BYTES + 1):
            data += chunk
        if len(data) > MAX_THUMBNAIL_BYTES:
            raise ValueError(f"{key} is larger than a thumbnail")
        return bytes(data)

    async def GetUploadOrigin(
        self, request: media_pb2.GetUploadOriginRequest, context: grpc.aio.ServicerContext
    ) -> media_pb2.UploadOrigin:
        return media_pb2.UploadOrigin(origin=self.storage.upload_origin())
