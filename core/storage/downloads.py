"""`GET|HEAD /objects/{key}?expires=&sig=` of `herald storage`: the local backend's read URLs.

Live publishing gives platforms that pull media from a public URL (Instagram, Threads, TikTok) a
short-lived URL signed by the core (`LocalStorage.read_url`, core/storage/signing.py: its own HMAC
context, so an upload URL's signature never reads and a read URL's never uploads). Decisions
(documented in docs/media.md and tested in tests/core/test_storage_local.py):

- 403 `READ_URL_INVALID` (key malformed, signature wrong, a parameter missing or repeated) and 403
  `READ_URL_EXPIRED`, both decided before the disk is touched; 404 `NOT_FOUND` when no complete
  object is stored under the key (an upload still arriving is a hidden temp file no key can name).
- 200 with the stored Content-Type, Content-Length and `Accept-Ranges: bytes`; one range
  (`bytes=a-b`, `bytes=a-`, `bytes=-n`) answers 206 with Content-Range, an unsatisfiable one 416
  `RANGE_NOT_SATISFIABLE` with `Content-Range: bytes */{size}`. A Range header the server does not
  handle (several ranges, another unit, malformed, or sent with If-Range: no validators are
  issued, so none can match) is ignored and the whole object sent, as RFC 9110 allows.
- HEAD answers the same headers without a body.

The file is opened once (what is sent is the object as it was then) and streamed in READ_CHUNK
reads in a worker thread, the next read running while the previous chunk is sent; Sanic's
backpressure holds the handler while the client is slow, so memory per download stays at a few
chunks whatever the size.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

from sanic import Request
from sanic.response import HTTPResponse, json

from core.storage.local import InvalidKey, LocalStorage, OpenObject, check_key
from core.storage.signing import Verdict

READ_CHUNK = 256 * 1024
# Range positions longer than this many digits are past any object (and never reach int()).
_MAX_DIGITS = 18


@dataclass(frozen=True, slots=True)
class Unsatisfiable:
    pass


UNSATISFIABLE = Unsatisfiable()


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> HTTPResponse:
    return json({"error": message, "code": code}, status=status, headers=headers)


def _position(text: str) -> int | None:
    text = text.strip()
    if not text or not text.isascii() or not text.isdigit():
        return None
    return int(text) if len(text) <= _MAX_DIGITS else 10**_MAX_DIGITS


def parse_range(header: str | None, size: int) -> tuple[int, int] | Unsatisfiable | None:
    """The one byte range `[start, end)` a Range header asks for, UNSATISFIABLE, or None when the
    whole object is to be sent (no header, or one this server ignores)."""
    if header is None:
        return None
    unit, eq, ranges = header.partition("=")
    if not eq or unit.strip().lower() != "bytes" or "," in ranges:
        return None
    first, dash, last = ranges.partition("-")
    if not dash:
        return None
    if not first.strip():  # suffix: the last n bytes
        n = _position(last)
        if n is None:
            return None
        if n == 0:
            return UNSATISFIABLE
        if size == 0:
            return None  # nothing to take the last bytes of: the (empty) whole
        return (max(0, size - n), size)
    start = _position(first)
    if start is None:
        return None
    if not last.strip():
        stop = size
    else:
        last_n = _position(last)
        if last_n is None or last_n < start:
            return None  # invalid range-spec: the header is ignored
        stop = min(last_n + 1, size)
    if start >= size:
        return UNSATISFIABLE
    return (start, stop)


def _single(request: Request, name: str) -> str | None:
    values = request.get_args(keep_blank_values=True).getlist(name) or []
    return values[0] if len(values) == 1 else None


async def serve_object(request: Request, storage: LocalStorage, key: str) -> HTTPResponse | None:
    """Answers a read URL. Returns the response to send, or None once a streamed body was sent."""
    try:
        check_key(key)
    except InvalidKey:
        return _error(403, "READ_URL_INVALID", "this read URL is not valid")
    verdict = storage.verify_read(key, expires=_single(request, "expires"), sig=_single(request, "sig"))
    if verdict is Verdict.INVALID:
        return _error(403, "READ_URL_INVALID", "this read URL is not valid (altered or incomplete)")
    if verdict is Verdict.EXPIRED:
        return _error(403, "READ_URL_EXPIRED", "this read URL has expired; ask for a new one")
    opened = await _open(storage, key)
    if opened is None:
        return _error(404, "NOT_FOUND", "no object is stored under this key")
    try:
        return await _respond(request, opened)
    finally:
        os.close(opened.fd)


async def _open(storage: LocalStorage, key: str) -> OpenObject | None:
    """`open_stored` in a worker thread; should the caller be cancelled meanwhile, the file the
    thread still opens is closed."""
    task = asyncio.ensure_future(asyncio.to_thread(storage.open_stored, key))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.wait([task])
        if not task.cancelled() and task.exception() is None and (opened := task.result()) is not None:
            os.close(opened.fd)
        raise


async def _respond(request: Request, opened: OpenObject) -> HTTPResponse | None:
    size = opened.size_bytes
    headers = {"Accept-Ranges": "bytes", "X-Content-Type-Options": "nosniff"}
    wanted = None if "if-range" in request.headers else parse_range(request.headers.get("range"), size)
    if isinstance(wanted, Unsatisfiable):
        headers["Content-Range"] = f"bytes */{size}"
        return _error(416, "RANGE_NOT_SATISFIABLE", f"the object is {size} bytes long", headers)
    status, start, stop = 200, 0, size
    if wanted is not None:
        status, (start, stop) = 206, wanted
        headers["Content-Range"] = f"bytes {start}-{stop - 1}/{size}"
    headers["Content-Length"] = str(stop - start)
    if request.method == "HEAD" or stop == start:
        return HTTPResponse(status=status, headers=headers, content_type=opened.content_type)
    response = await request.respond(status=status, headers=headers, content_type=opened.content_type)
    reading = asyncio.ensure_future(_pread(opened.fd, start, stop))
    try:
        while True:
            chunk = await asyncio.shield(reading)
            start += len(chunk)
            if start >= stop:
                reading = None
                await response.send(chunk, end_stream=True)
                return None
            reading = asyncio.ensure_future(_pread(opened.fd, start, stop))
            await response.send(chunk)
    finally:
        if reading is not None:  # never close the file under a running read
            await asyncio.wait([reading])
            if not reading.cancelled():
                reading.exception()  # retrieved: the error in flight already propagates


async def _pread(fd: int, start: int, stop: int) -> bytes:
    chunk = await asyncio.to_thread(os.pread, fd, min(READ_CHUNK, stop - start), start)
    if not chunk:  # objects are never truncated in place; this would be a damaged file system
        raise OSError(f"the object ended at byte {start} of {stop}")
    return chunk
