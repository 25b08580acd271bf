"""What every fake platform shares: a real HTTP server on loopback (stdlib, one thread per
connection), every request recorded, routes written per platform, and faults a test queues.

A fake platform is written from the platform's documented requests and answers (its own API
reference, named in each fake's docstring; docs/platforms.md says what Herald sends): the same
paths, methods, bodies, auth and error shapes. The OAuth grant they all speak is oauth.py's.
Tests read what it received (`requests`, `seen`) and what exists on it (each platform's posts).

Faults (`fail`, `hang_after_receive`, `slow`) match a method, a path regex and optionally a
substring of the body, and are used up in order: `times` of them (None: until cleared). A
`hang_after_receive` request is handled as usual (a post is made) and then never answered: the
connection is held until `seconds` pass (or the server stops), then dropped.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit


@dataclass(frozen=True)
class Part:
    """One multipart/form-data part: a file part keeps its size and SHA-256, not its bytes."""

    name: str
    filename: str | None
    content_type: str | None
    size: int
    sha256: str
    value: str | None  # the text of a non-file part


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names
    body: bytes
    at: float  # time.time() when it arrived
    status: int | None = None  # what it was answered (None: not answered, a hang)
    json: Any = None
    form: dict[str, str] | None = None
    parts: dict[str, Part] | None = None
    raw_query: str = ""  # as sent: repeated keys (Mastodon's `id[]=`) are in it, not in `query`

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    @property
    def bearer(self) -> str | None:
        scheme, _, token = self.headers.get("authorization", "").partition(" ")
        return token.strip() if scheme.lower() == "bearer" and token.strip() else None

    @property
    def basic(self) -> tuple[str, str] | None:
        """RFC 6749 2.3.1 client credentials from HTTP Basic (form-urlencoded, then base64)."""
        scheme, _, encoded = self.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            user, sep, password = base64.b64decode(encoded.strip()).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            return None
        return (unquote(user.replace("+", " ")), unquote(password.replace("+", " "))) if sep else None

    def params(self) -> dict[str, Any]:
        """The body's fields, whatever its encoding (JSON, urlencoded or multipart text parts)."""
        if isinstance(self.json, dict):
            return self.json
        if self.form is not None:
            return self.form
        if self.parts is not None:
            return {k: p.value for k, p in self.parts.items() if p.value is not None}
        return {}

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method, "path": self.path, "status": self.status}
        if self.json is not None:
            out["json"] = self.json
        if self.form is not None:
            out["form"] = {k: ("***" if "secret" in k or "token" in k else v) for k, v in self.form.items()}
        if self.parts is not None:
            out["parts"] = {k: p.value if p.value is not None else f"<{p.size} bytes>" for k, p in self.parts.items()}
        return out


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any = None  # dict/list: JSON; str: text; bytes: as is
    headers: dict[str, str] = field(default_factory=dict)


def answer(status: int, body: Any = None, **headers: str) -> Answer:
    return Answer(status, body, {k.replace("_", "-"): v for k, v in headers.items()})


def redirect(location: str, status: int = 302) -> Answer:
    return Answer(status, None, {"Location": location})


def with_query(url: str, **params: str) -> str:
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True) + list(params.items())
    return urlunsplit(parts._replace(query=urlencode(query)))


@dataclass
class Fault:
    method: str
    path: re.Pattern[str]
    times: int | None
    body_contains: str | None = None
    status: int | None = None
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    hang_seconds: float | None = None
    latency: float = 0.0

    def matches(self, request: Request) -> bool:
        return (
            self.method == request.method
            and self.path.fullmatch(request.path) is not None
            and (self.body_contains is None or self.body_contains in request.text)
        )


Route = tuple[str, re.Pattern[str], Callable[[Request, re.Match[str]], Answer]]


class FakePlatform:
    """The server, the recording and the faults; a subclass lists its `routes()`."""

    name = "platform"

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.requests: list[Request] = []
        self.faults: list[Fault] = []
        self._stopping = threading.Event()
        self._routes = self.routes()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Small answers go out at once (no Nagle delay of ~40 ms per answer).
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                fake._serve(self)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _any

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, name=f"fake-{self.name}", daemon=True)

    def routes(self) -> list[Route]:
        raise NotImplementedError

    # --- life ----------------------------------------------------------------------------------

    def __enter__(self) -> FakePlatform:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    # --- faults --------------------------------------------------------------------------------

    def fail(
        self,
        method: str,
        path: str,
        status: int,
        body: Any = None,
        headers: dict[str, str] | None = None,
        *,
        times: int | None = 1,
        body_contains: str | None = None,
    ) -> None:
        """The next `times` matching requests are answered `status` (and not handled)."""
        self._add(Fault(method, re.compile(path), times, body_contains, status, body, dict(headers or {})))

    def hang_after_receive(
        self, method: str, path: str, *, seconds: float = 10.0, times: int | None = 1, body_contains: str | None = None
    ) -> None:
        """The next `times` matching requests are handled (the post is made), then never answered."""
        self._add(Fault(method, re.compile(path), times, body_contains, hang_seconds=seconds))

    def slow(
        self, method: str, path: str, seconds: float, *, times: int | None = None, body_contains: str | None = None
    ) -> None:
        """Matching requests are answered after `seconds`."""
        self._add(Fault(method, re.compile(path), times, body_contains, latency=seconds))

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

    def _add(self, fault: Fault) -> None:
        with self.lock:
            self.faults.append(fault)

    def _take_fault(self, request: Request) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.matches(request):
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self.faults.remove(fault)
                    return fault
        return None

    # --- what it saw ---------------------------------------------------------------------------

    def seen(self, method: str, path: str, *, body_contains: str | None = None) -> list[Request]:
        """The requests received so far whose method and path (a regex) match."""
        pattern = re.compile(path)
        with self.lock:
            return [
                r
                for r in self.requests
                if r.method == method
                and pattern.fullmatch(r.path)
                and (body_contains is None or body_contains in r.text)
            ]

    # --- serving -------------------------------------------------------------------------------

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        split = urlsplit(handler.path)
        headers = {k.lower(): v for k, v in handler.headers.items()}
        request = Request(
            method=handler.command,
            path=split.path,
            query=dict(parse_qsl(split.query, keep_blank_values=True)),
            headers=headers,
            body=_read_body(handler, headers),
            at=time.time(),
            raw_query=split.query,
        )
        _parse_body(request)
        with self.lock:
            self.requests.append(request)
        fault = self._take_fault(request)
        if fault is not None and fault.latency:
            self._stopping.wait(fault.latency)
        if fault is not None and fault.status is not None:
            result = Answer(fault.status, fault.body, fault.headers)
        else:
            result = self._dispatch(request)
        if fault is not None and fault.hang_seconds is not None:
            # Made, then never answered: the client times out; the connection is then dropped.
            self._stopping.wait(fault.hang_seconds)
            handler.close_connection = True
            return
        request.status = result.status
        self._write(handler, result)

    def _dispatch(self, request: Request) -> Answer:
        allowed = False
        for method, pattern, handle in self._routes:
            match = pattern.fullmatch(request.path)
            if match is None:
                continue
            allowed = True
            if method == request.method:
                with self.lock:
                    return handle(request, match)
        if allowed:
            return self.not_allowed(request)
        return self.not_found(request)

    def not_found(self, request: Request) -> Answer:
        return answer(404, {"error": "Not Found"})

    def not_allowed(self, request: Request) -> Answer:
        return answer(405, {"error": "Method Not Allowed"})

    @staticmethod
    def _write(handler: BaseHTTPRequestHandler, result: Answer) -> None:
        headers = dict(result.headers)
        if isinstance(result.body, bytes):
            data = result.body
        elif isinstance(result.body, str):
            data = result.body.encode()
            headers.setdefault("Content-Type", "text/html; charset=utf-8")
        elif result.body is None:
            data = b""
        else:
            data = json.dumps(result.body).encode()
            headers.setdefault("Content-Type", "application/json; charset=utf-8")
        try:
            handler.send_response(result.status)
            for key, value in headers.items():
                handler.send_header(key, value)
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            if handler.command != "HEAD":
                handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout)


class _Server(ThreadingHTTPServer):
    # Many workers connecting at once must not be reset by a full accept queue (the default 5).
    request_queue_size = 256


def _read_body(handler: BaseHTTPRequestHandler, headers: dict[str, str]) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        data = bytearray()
        while True:
            size = int(handler.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return bytes(data)
            data += handler.rfile.read(size)
            handler.rfile.readline()
    length = int(headers.get("content-length") or 0)
    return handler.rfile.read(length) if length else b""


def _parse_body(request: Request) -> None:
    content_type = request.headers.get("content-type", "")
    mime = content_type.split(";", 1)[0].strip().lower()
    if not request.body:
        return
    if mime == "application/json":
        try:
            request.json = json.loads(request.body)
        except ValueError:
            request.json = None
    elif mime == "application/x-www-form-urlencoded":
        request.form = dict(parse_qsl(request.text, keep_blank_values=True))
    elif mime == "multipart/form-data":
        boundary = re.search(r'boundary="?([^";]+)"?', content_type)
        request.parts = _multipart(request.body, boundary.group(1).encode()) if boundary else {}


def _multipart(body: bytes, boundary: bytes) -> dict[str, Part]:
    parts: dict[str, Part] = {}
    for chunk in body.split(b"--" + boundary)[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, content = chunk.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        content = content.removesuffix(b"\r\n")
        fields: dict[str, str] = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            key, _, value = line.partition(":")
            fields[key.strip().lower()] = value.strip()
        disposition = fields.get("content-disposition", "")
        name = re.search(r'\bname="([^"]*)"', disposition)
        filename = re.search(r'\bfilename="([^"]*)"', disposition)
        if name is None:
            continue
        is_file = filename is not None
        parts[name.group(1)] = Part(
            name=name.group(1),
            filename=filename.group(1) if is_file else None,
            content_type=fields.get("content-type"),
            size=len(content),
            sha256=hashlib.sha256(content).hexdigest(),
            value=None if is_file else content.decode("utf-8", "replace"),
        )
    return parts


def pkce_s256(verifier: str) -> str:
    """RFC 7636 4.2: BASE64URL(SHA256(ASCII(code_verifier))) without padding."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
