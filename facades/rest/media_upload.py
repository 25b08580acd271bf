"""POST /v1/media, the legacy multipart upload, kept for compatibility (docs/api.md, "Versioning";
docs/media.md, "Legacy multipart upload (`POST /v1/media`)"): the `file` part is parsed as it
arrives and streamed to the core in chunks (never held whole), which streams it to storage."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from herald.media.v1 import media_pb2
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from sanic import Request
from sanic.response import HTTPResponse

from contract.media_resources import Media
from contract.requests import rpc_path
from facades.errors import ApiError
from facades.rest.auth import api_key_authorization
from facades.rest.respond import ok, reject_after_auth

UPLOAD_MEDIA = rpc_path(media_pb2, "MediaService", "UploadMedia")

FILE_FIELD = "file"
MAX_BODY_BYTES = 100_000_000 + 1024 * 1024
_DONE = object()
# Chunks buffered between the HTTP body and the gRPC stream: bounds the facade's memory.
_QUEUE_CHUNKS = 16


class _FilePartReader:
    """Feeds multipart bytes to python-multipart and collects what the core must receive: one
    header message for the `file` part, then its data. Other parts are ignored."""

    def __init__(self, boundary: bytes) -> None:
        self.out: list[media_pb2.UploadMediaRequest] = []
        self._headers: dict[str, str] = {}
        self._field = b""
        self._value = b""
        self._in_file = False
        self.seen_file = False
        self.parser = MultipartParser(
            boundary,
            {
                "on_part_begin": self._part_begin,
                "on_header_field": self._header_field,
                "on_header_value": self._header_value,
                "on_header_end": self._header_end,
                "on_headers_finished": self._headers_finished,
                "on_part_data": self._part_data,
            },
        )

    def _part_begin(self) -> None:
        self._headers, self._in_file = {}, False

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        # Kept byte for byte (latin-1 maps each byte to one character): parse_options_header works
        # on bytes, and parameter values such as a UTF-8 filename are decoded after parsing.
        self._headers[self._field.decode("latin-1").lower()] = self._value.decode("latin-1")
        self._field, self._value = b"", b""

    def _headers_finished(self) -> None:
        _, params = parse_options_header(self._headers.get("content-disposition", ""))
        name = params.get(b"name", b"").decode("utf-8", "replace")
        if name != FILE_FIELD or self.seen_file:
            return
        self._in_file = self.seen_file = True
        filename = params.get(b"filename", b"").decode("utf-8", "replace")
        mime_type = self._headers.get("content-type", "").split(";")[0].strip()
        self.out.append(
            media_pb2.UploadMediaRequest(header=media_pb2.UploadHeader(filename=filename, mime_type=mime_type))
        )

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._in_file and end > start:
            self.out.append(media_pb2.UploadMediaRequest(chunk=bytes(data[start:end])))

    def feed(self, data: bytes) -> list[media_pb2.UploadMediaRequest]:
        self.parser.write(data)
        produced, self.out = self.out, []
        return produced


def _boundary(request: Request) -> bytes | None:
    content_type, params = parse_options_header(request.headers.get("content-type", ""))
    if content_type != b"multipart/form-data":
        return None
    return params.get(b"boundary") or None


async def _put(queue: asyncio.Queue[Any], item: Any, call: asyncio.Task[Any]) -> bool:
    """Queues one message for the core, unless the core has already answered (an error)."""
    put = asyncio.ensure_future(queue.put(item))
    done, _ = await asyncio.wait({put, call}, return_when=asyncio.FIRST_COMPLETED)
    if put in done:
        return True
    put.cancel()
    return False


async def upload(request: Request) -> HTTPResponse:
    authorization = api_key_authorization(request)
    boundary = _boundary(request)
    if boundary is None:
        error = ApiError("VALIDATION_ERROR", "send multipart/form-data with a `file` part")
        return await reject_after_auth(request, authorization, UPLOAD_MEDIA, error)
    # This route alone takes bodies past the app's limit: the largest file plus the multipart
    # framing. The core refuses the file itself past its type's limit (FILE_TOO_LARGE).
    request.stream.request_max_size = MAX_BODY_BYTES
    reader = _FilePartReader(boundary)
    queue: asyncio.Queue[Any] = asyncio.Queue(_QUEUE_CHUNKS)

    async def messages() -> AsyncIterator[media_pb2.UploadMediaRequest]:
        while (item := await queue.get()) is not _DONE:
            yield item

    core = request.app.ctx.core
    call = asyncio.create_task(core.call(core.media.UploadMedia, messages(), authorization=authorization))
    try:
        while not call.done() and (body := await request.stream.read()) is not None:
            for message in reader.feed(body):
                if not await _put(queue, message, call):
                    break
    except MultipartParseError:
        call.cancel()
        error = ApiError("VALIDATION_ERROR", "the multipart body is malformed")
        return await reject_after_auth(request, authorization, UPLOAD_MEDIA, error)
    except BaseException:
        call.cancel()
        raise
    if not call.done():
        await _put(queue, _DONE, call)
    result = await call
    return ok(result, Media.from_proto(result.response), status=201)
