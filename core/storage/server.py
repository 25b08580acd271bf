"""`herald storage`: the embedded object store's HTTP server (docs/media.md, "The upload URL";
docs/decisions.md, "Upload URLs point at object storage").

`PUT /upload/{key}?size=&type=&expires=&sig=` accepts the bytes of one object, signed by the core
(core/storage/signing.py), and streams them to a file under `{data_dir}/objects/` (core/storage/
local.py): memory stays bounded whatever the size, and nothing is visible until the body is
complete. (`GET|HEAD /objects/{key}?expires=&sig=` serves an object through a signed read URL,
ranges included: core/storage/downloads.py.) Decisions on uploads (documented here and in the tests):

- 403 `UPLOAD_URL_INVALID`: the signature does not match (any field tampered with, a parameter
  missing or repeated, another key). 403 `UPLOAD_URL_EXPIRED`: authentic but past `expires`.
  Both are checked before any of the body is read.
- 400 `CONTENT_TYPE_MISMATCH`: the `Content-Type` header is not exactly the signed type.
- 413 `FILE_TOO_LARGE`: the body (declared Content-Length, or counted when chunked) is larger than
  the signed size, or the signed size is past the 1 GiB ceiling; nothing is kept. A smaller body is
  accepted: the API's confirm step reports it as `FILE_SIZE_MISMATCH` (docs/media.md, "Confirm").
- 409 `UPLOAD_ALREADY_COMPLETE`: an object already landed under this key. An upload URL takes one
  complete PUT, so bytes cannot be swapped after the API checked them; a racing second PUT loses
  atomically. Ask the API for a new upload URL to upload again.
- 200 `{"key", "size_bytes"}` when the object landed.

Browsers (the dashboard's upload script) may PUT from one origin only, the dashboard's
(`HERALD_BASE_URL`'s): a preflight `OPTIONS /upload/{key}` from it asking for `PUT` with at most
the `Content-Type` header answers 204 with `Access-Control-Allow-Origin: {that origin}`, and every
answer to a `PUT` from it (errors included, so the script can read their code) carries the same;
a preflight from any other origin, or asking for another method or header, is 403
`CORS_REFUSED` without them, so the browser sends nothing. Clients that are not browsers send no
`Origin` and are unaffected. Read URLs are not for browsers: they answer no CORS.

After a refusal the server reads and drops a body of at most 1 MiB, so the client reads the
answer on a reusable connection; a larger body is not read: the connection is closed instead.

A body with a Content-Length (the usual upload) is moved from the socket to the temp file with
`os.splice` (core/storage/fileio.py) on Linux, so the bytes never become Python objects; a chunked
body goes through Sanic's reader. Either way the disk starts writing behind the upload and the
file is fsynced before it is renamed into place. Should the client stop sending midway: 408
`REQUEST_TIMEOUT` after 50 s without a byte, and the connection is closed; nothing is kept.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator

from sanic import Request, Sanic
from sanic.exceptions import SanicException
from sanic.http.http1 import HTTP_CONTINUE
from sanic.response import HTTPResponse, json

from core.settings import CoreSettings
from core.storage.base import ObjectTooLarge, origin_of
from core.storage.downloads import serve_object
from core.storage.fileio import HAVE_SPLICE, SocketPipe, Writeback, splice_to_file, write_all
from core.storage.local import InvalidKey, LocalStorage, ObjectExists, check_key, in_thread
from core.storage.signing import Verdict

# Hard ceiling of one upload; the API enforces the per-type limits (docs/api.md, "Limits") when it
# signs.
MAX_UPLOAD_BYTES = 1024**3
REFUSED_BODY_DRAIN = 1024 * 1024
CORS_MAX_AGE = 600  # seconds a browser may keep a preflight's answer
_SANIC_CODES = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 408: "REQUEST_TIMEOUT", 413: "FILE_TOO_LARGE"}
log = logging.getLogger(__name__)


def _error(status: int, code: str, message: str) -> HTTPResponse:
    return json({"error": message, "code": code}, status=status)


def _drop_body(request: Request) -> None:
    """Limits what Sanic reads of an unread body after the handler answered (it drains the rest to
    keep the connection): a small body is drained, a larger one closes the connection. This sets
    the fields of Sanic's HTTP/1 stream that `Http.http1()` consults (sanic 25.12)."""
    stream = request.stream
    if stream is None or not getattr(stream, "request_body", None):
        return
    if getattr(stream, "expecting_continue", False):
        stream.expecting_continue = False  # never invite a body we refused (Expect: 100-continue)
        stream.request_max_size = 0
    else:
        stream.request_max_size = REFUSED_BODY_DRAIN


async def _body(request: Request) -> AsyncIterator[bytes]:
    while (chunk := await request.stream.read()) is not None:
        if chunk:
            yield chunk


def _direct_length(request: Request) -> int | None:
    """The body's length when it can be spliced from the socket: a Content-Length body over plain
    TCP on Linux, still unread. None otherwise (chunked, TLS, no socket, empty body)."""
    stream = request.stream
    if not HAVE_SPLICE or stream is None or stream.request_body is not True:
        return None
    transport = request.transport
    if transport.get_extra_info("sslcontext") is not None or transport.get_extra_info("socket") is None:
        return None
    return stream.request_bytes_left or None


async def _stoppable(fn, *args: object) -> int:  # splice_to_file
    """Runs `fn(*args, stop)` in a thread; when the caller is cancelled, sets `stop` and waits for
    `fn` to return before letting the cancellation through."""
    stop = threading.Event()
    task = asyncio.ensure_future(asyncio.to_thread(fn, *args, stop))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        stop.set()
        await asyncio.wait([task])
        raise


async def _splice_body(request: Request, storage: LocalStorage, key: str, content_type: str, length: int) -> int:
    """Stores a Content-Length body straight from the socket: what Sanic already buffered first,
    then the rest spliced to the temp file. Sanic's transport stops reading meanwhile (it resumes
    when Sanic reads the next request on the connection)."""
    stream, transport = request.stream, request.transport
    protocol = stream.protocol
    transport.pause_reading()
    if stream.expecting_continue:
        stream.expecting_continue = False
        await protocol.send(HTTP_CONTINUE)
    sock_fd = transport.get_extra_info("socket").fileno()

    def alive() -> None:  # (from the splicing thread) Sanic times a response out from the last bytes received
        protocol._time = time.monotonic()

    try:
        async with storage.staging(key, content_type=content_type, replace=False) as fd:
            writeback = Writeback(fd)
            buffered = stream.recv_buffer
            head = bytes(buffered[:length])
            del buffered[: len(head)]
            stream.request_bytes_left -= len(head)
            await in_thread(lambda: writeback.wrote(write_all(fd, [head])))
            if stream.request_bytes_left:
                pipe = SocketPipe()
                try:
                    await _stoppable(splice_to_file, sock_fd, pipe, fd, stream.request_bytes_left, writeback, alive)
                finally:
                    pipe.close()
                stream.request_bytes_left = 0
    finally:
        if stream.request_bytes_left:  # part of the body is gone: this connection cannot go on
            stream.keep_alive = False
        stream.request_body = None
    return length


def _cors_preflight(request: Request, allowed_origin: str) -> HTTPResponse:
    """The answer to a browser's preflight of an upload: allowed for the dashboard's origin, a
    PUT, and no header but Content-Type."""
    asked_headers = {
        h.strip().lower() for h in (request.headers.get("access-control-request-headers") or "").split(",") if h.strip()
    }
    if (
        request.headers.get("origin") != allowed_origin
        or request.headers.get("access-control-request-method") != "PUT"
        or not asked_headers <= {"content-type"}
    ):
        response = _error(403, "CORS_REFUSED", "uploads from a browser are allowed from the dashboard's origin only")
        response.headers["Vary"] = "Origin"
        return response
    return HTTPResponse(
        status=204,
        headers={
            "Access-Control-Allow-Origin": allowed_origin,
            "Access-Control-Allow-Methods": "PUT",
            "Access-Control-Allow-Headers": "Content-Type",
            "Access-Control-Max-Age": str(CORS_MAX_AGE),
            "Vary": "Origin",
        },
    )


def _single(request: Request, name: str) -> str | None:
    values = request.get_args(keep_blank_values=True).getlist(name) or []
    return values[0] if len(values) == 1 else None


def create_storage_app(settings: CoreSettings) -> Sanic:
    app = Sanic("herald_storage", configure_logging=False)
    app.config.update(
        {
            "MOTD": False,
            "ACCESS_LOG": False,
            "KEEP_ALIVE_TIMEOUT": 30,
            # Streamed uploads are bounded by their signed size; this caps everything else.
            "REQUEST_MAX_SIZE": MAX_UPLOAD_BYTES + 64 * 1024,
        }
    )
    app.ctx.settings = settings
    storage = LocalStorage(settings)
    app.ctx.storage = storage
    # The one origin whose pages may upload from a browser: the dashboard's.
    allowed_origin = origin_of(settings.base_url)

    @app.on_response
    async def allow_the_dashboard(request: Request, response: HTTPResponse) -> None:
        if request.method == "PUT" and request.path.startswith("/upload/"):
            response.headers["Vary"] = "Origin"
            if request.headers.get("origin") == allowed_origin:
                response.headers["Access-Control-Allow-Origin"] = allowed_origin

    @app.exception(Exception)
    async def on_error(request: Request, error: Exception) -> HTTPResponse:
        # Every answer is `{error, code}`, Sanic's own refusals (404, 405, bad request) included.
        if isinstance(error, SanicException):
            status = error.status_code
            return _error(status, _SANIC_CODES.get(status, "BAD_REQUEST" if status < 500 else "INTERNAL"), str(error))
        log.exception("storage request failed", exc_info=error)
        return _error(500, "INTERNAL", "internal error")

    @app.get("/healthz")
    async def healthz(request: Request) -> HTTPResponse:
        return json({"status": "ok"})

    @app.route("/objects/<key:path>", methods=["GET", "HEAD"])
    async def download(request: Request, key: str) -> HTTPResponse | None:
        return await serve_object(request, storage, key)

    @app.options("/upload/<key:path>")
    async def preflight(request: Request, key: str) -> HTTPResponse:
        return _cors_preflight(request, allowed_origin)

    @app.put("/upload/<key:path>", stream=True)
    async def upload(request: Request, key: str) -> HTTPResponse:
        response = await _upload(request, key)
        if response.status != 200:
            _drop_body(request)
        return response

    async def _upload(request: Request, key: str) -> HTTPResponse:
        try:
            check_key(key)
        except InvalidKey:
            return _error(403, "UPLOAD_URL_INVALID", "this upload URL is not valid")
        signed_size, signed_type = _single(request, "size"), _single(request, "type")
        verdict = storage.verify(
            key,
            size=signed_size,
            content_type=signed_type,
            expires=_single(request, "expires"),
            sig=_single(request, "sig"),
        )
        if verdict is Verdict.INVALID:
            return _error(403, "UPLOAD_URL_INVALID", "this upload URL is not valid (altered or incomplete)")
        if verdict is Verdict.EXPIRED:
            return _error(403, "UPLOAD_URL_EXPIRED", "this upload URL has expired; ask the API for a new one")
        if signed_size is None or signed_type is None:  # unreachable: a valid signature covers both
            return _error(403, "UPLOAD_URL_INVALID", "this upload URL is not valid")
        max_bytes = int(signed_size)
        if max_bytes > MAX_UPLOAD_BYTES:
            return _error(413, "FILE_TOO_LARGE", f"uploads are limited to {MAX_UPLOAD_BYTES:,} bytes")
        sent_type = (request.headers.get("content-type") or "").strip()
        if sent_type != signed_type:
            return _error(
                400, "CONTENT_TYPE_MISMATCH", f"Content-Type must be {signed_type!r} (the type this URL was issued for)"
            )
        declared = request.headers.get("content-length")
        if declared is not None and int(declared) > max_bytes:
            return _error(413, "FILE_TOO_LARGE", f"this upload URL accepts at most {max_bytes:,} bytes")
        if await storage.stat(key) is not None:
            return _error(409, "UPLOAD_ALREADY_COMPLETE", "this object was already uploaded")
        try:
            if (length := _direct_length(request)) is not None:
                size = await _splice_body(request, storage, key, signed_type, length)
            else:
                size = await storage.store(
                    key, _body(request), content_type=signed_type, max_bytes=max_bytes, replace=False
                )
        except TimeoutError:
            return _error(408, "REQUEST_TIMEOUT", "the body stopped arriving; nothing was kept")
        except ConnectionError:
            return _error(400, "BAD_REQUEST", "the connection closed before the body was complete")
        except ObjectTooLarge:
            return _error(413, "FILE_TOO_LARGE", f"this upload URL accepts at most {max_bytes:,} bytes")
        except ObjectExists:
            return _error(409, "UPLOAD_ALREADY_COMPLETE", "this object was already uploaded")
        except OSError:
            log.exception("storing an upload failed")
            return _error(500, "INTERNAL", "the upload could not be stored; try again")
        return json({"key": key, "size_bytes": size})

    return app


def run_storage(settings: CoreSettings, listen: str) -> None:
    host, _, port = listen.rpartition(":")
    create_storage_app(settings).run(host=host, port=int(port), single_process=True, motd=False, access_log=False)
