"""Fake platforms in processes of their own, for the benches that deliver for real (bench.live_delivery,
bench.live_video_rss): the harness's fake X and fake Mastodon (harness/fakes/platforms, subclassed
here, not edited), driven over a pipe so their CPU and memory are their own, with

- large multipart bodies parsed as they arrive: file parts counted and hashed, never held (a
  500 MB video in 5 MB segments, or Mastodon's one-request upload), and for X one running SHA-256
  over each media's `append` segments in order;
- a server socket set up as a production server's (tune_server_socket);
- every answer after the bench's latency (the fakes' `slow` fault, with no limit).

Also the live-mode stack's settings that point Herald at them (live_env) and connecting their
accounts through the API and the browser's redirects (connect_accounts).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import re
import signal
import socket
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

X_CLIENT_ID = "bench-x-client"
X_CLIENT_SECRET = "bench-x-secret"  # the fake's, on loopback
# Multipart bodies larger than this are parsed as they arrive: file parts hashed and counted,
# never held (a 500 MB video in 5 MB segments, or Mastodon's one-request upload).
STREAM_THRESHOLD = 1024 * 1024
READ_BLOCK = 1024 * 1024


# ----------------------------------------------------------------------------- the fakes


def _stream_multipart(rfile: Any, length: int, boundary: bytes, on_file: Callable[[bytes], None] | None) -> dict:
    """Parses a multipart/form-data body of `length` bytes from `rfile` block by block. File parts
    keep their size and SHA-256 (and go to `on_file` as they arrive), text parts their value."""
    from harness.fakes.platforms.base import Part

    delimiter = b"\r\n--" + boundary
    buf = bytearray(b"\r\n")  # the body starts with the first delimiter, without its CRLF
    left = length
    parts: dict[str, Part] = {}
    current: dict[str, Any] | None = None

    def fill() -> None:
        nonlocal left
        if left <= 0:
            raise ValueError("multipart body ended early")
        block = rfile.read(min(READ_BLOCK, left))
        if not block:
            raise ConnectionError("client closed mid-body")
        left -= len(block)
        buf.extend(block)

    def emit(data: bytes) -> None:
        if current is None or not data:
            return
        current["size"] += len(data)
        current["hash"].update(data)
        if current["filename"] is None:
            current["text"] += data
        elif on_file is not None:
            on_file(data)

    def finish() -> None:
        if current is None:
            return
        is_file = current["filename"] is not None
        parts[current["name"]] = Part(
            name=current["name"],
            filename=current["filename"],
            content_type=current["content_type"],
            size=current["size"],
            sha256=current["hash"].hexdigest(),
            value=None if is_file else current["text"].decode("utf-8", "replace"),
        )

    while True:
        at = buf.find(delimiter)
        if at < 0:
            keep = len(delimiter) - 1
            if len(buf) > keep:
                emit(bytes(buf[:-keep]))
                del buf[:-keep]
            fill()
            continue
        emit(bytes(buf[:at]))
        finish()
        current = None
        del buf[: at + len(delimiter)]
        while len(buf) < 2:
            fill()
        if buf[:2] == b"--":  # the closing delimiter: the rest is the epilogue
            while left > 0:
                left -= len(rfile.read(min(READ_BLOCK, left)))
            return parts
        while (end := buf.find(b"\r\n\r\n")) < 0:
            fill()
        head = bytes(buf[2:end]).decode("utf-8", "replace")
        del buf[: end + 4]
        fields = {}
        for line in head.split("\r\n"):
            key, _, value = line.partition(":")
            fields[key.strip().lower()] = value.strip()
        disposition = fields.get("content-disposition", "")
        name = re.search(r'\bname="([^"]*)"', disposition)
        filename = re.search(r'\bfilename="([^"]*)"', disposition)
        current = {
            "name": name.group(1) if name else "",
            "filename": filename.group(1) if filename else None,
            "content_type": fields.get("content-type"),
            "size": 0,
            "hash": hashlib.sha256(),
            "text": bytearray(),
        }
        # The delimiter search restarts on the part's content; an empty buffer is refilled there.


class _Streaming:
    """Fake-platform mixin: large multipart bodies are streamed (see _stream_multipart) instead
    of read whole, and every file byte an X `append` carries also goes into that media's running
    SHA-256, in the order the segments arrive (`file_sha256`), kept only when the append is
    answered 2xx. Everything else is the base server's _serve, unchanged."""

    APPEND = re.compile(r"/2/media/upload/(?P<id>\d+)/append")

    def _init_streaming(self) -> None:
        self.file_hashes: dict[str, Any] = {}  # X media id -> hashlib object over its appends
        self.streamed_bytes = 0

    def _serve(self, handler: Any) -> None:
        from harness.fakes.platforms.base import Answer, Request

        headers = {k.lower(): v for k, v in handler.headers.items()}
        content_type = headers.get("content-type", "")
        length = int(headers.get("content-length") or 0)
        boundary = re.search(r'boundary="?([^";]+)"?', content_type)
        if (
            not content_type.lower().startswith("multipart/form-data")
            or length <= STREAM_THRESHOLD
            or boundary is None
            or "chunked" in headers.get("transfer-encoding", "").lower()
        ):
            super()._serve(handler)  # type: ignore[misc]
            return
        split = urlsplit(handler.path)
        request = Request(
            method=handler.command,
            path=split.path,
            query=dict(parse_qsl(split.query, keep_blank_values=True)),
            headers=headers,
            body=b"",
            at=time.time(),
        )
        append = self.APPEND.fullmatch(split.path)
        running = None
        before = None
        if append is not None:
            with self.lock:  # type: ignore[attr-defined]
                running = self.file_hashes.setdefault(append["id"], hashlib.sha256())
                before = running.copy()
        request.parts = _stream_multipart(
            handler.rfile, length, boundary.group(1).encode(), running.update if running is not None else None
        )
        self.streamed_bytes += length
        with self.lock:  # type: ignore[attr-defined]
            self.requests.append(request)  # type: ignore[attr-defined]
        fault = self._take_fault(request)  # type: ignore[attr-defined]
        if fault is not None and fault.latency:
            self._stopping.wait(fault.latency)  # type: ignore[attr-defined]
        if fault is not None and fault.status is not None:
            result = Answer(fault.status, fault.body, fault.headers)
        else:
            result = self._dispatch(request)  # type: ignore[attr-defined]
        if append is not None and not 200 <= result.status < 300:
            with self.lock:  # type: ignore[attr-defined]
                self.file_hashes[append["id"]] = before  # a refused segment is not part of the file
        if fault is not None and fault.hang_seconds is not None:
            self._stopping.wait(fault.hang_seconds)  # type: ignore[attr-defined]
            handler.close_connection = True
            return
        request.status = result.status
        self._write(handler, result)  # type: ignore[attr-defined]


def _make_fake(kind: str, latency: float, as_written: bool = False) -> Any:
    from harness.fakes.platforms import FakeMastodon, FakeX

    if kind == "x":

        class BenchFakeX(_Streaming, FakeX):
            pass

        fake = BenchFakeX(client_id=X_CLIENT_ID, client_secret=X_CLIENT_SECRET)
    else:

        class BenchFakeMastodon(_Streaming, FakeMastodon):
            pass

        fake = BenchFakeMastodon()
    fake._init_streaming()
    if latency > 0:
        for method in ("GET", "POST", "PUT", "DELETE", "PATCH"):
            fake.slow(method, r".*", latency)  # every request, no limit
    if not as_written:
        tune_server_socket(fake.httpd)
    return fake


def tune_server_socket(httpd: Any) -> None:
    """What a production HTTP server does and the stdlib's ThreadingHTTPServer does not, so the
    fake answers in its latency and not later:

    - a listen backlog of 128 instead of socketserver's 5: each worker's pool opens up to its batch
      size of connections at once, the accept queue overflows and the kernel resets some of them
      (the client sees a ReadError after sending: an uncertain delivery, retried after the 30 s
      backoff). Listening again on Linux sets the new backlog;
    - TCP_NODELAY on accepted connections: BaseHTTPRequestHandler writes the headers and the body
      in two sends, and Nagle holds the body until the client's delayed ACK (~40 ms on Linux)."""
    httpd.socket.listen(128)
    accept = httpd.get_request

    def get_request() -> Any:
        sock, address = accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock, address

    httpd.get_request = get_request


def _fake_main(conn: Any, kind: str, latency: float, as_written: bool) -> None:
    """The fake's process: serves on loopback and answers the bench's commands over the pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops it
    fake = _make_fake(kind, latency, as_written)
    with fake:
        conn.send(fake.base_url)
        while True:
            try:
                command, args = conn.recv()
            except EOFError:
                return
            if command == "stop":
                conn.send(None)
                return
            try:
                conn.send(("ok", _fake_command(fake, kind, command, args)))
            except Exception as exc:  # reported to the bench
                conn.send(("error", f"{type(exc).__name__}: {exc}"))


def _fake_command(fake: Any, kind: str, command: str, args: tuple) -> Any:
    if command == "add_user":
        with fake.lock:
            user = fake.add_user(args[0]) if kind == "x" else fake.add_account(args[0])
        return user.id
    if command == "sign_in_as":
        fake.sign_in_as = args[0]
        return None
    if command == "grant":  # an access token of a user that does not expire (the metrics bench)
        with fake.lock:
            return fake.grant_access(args[0], tuple(args[1]))
    if command == "seed_tweets":  # (user id, count): the ids of that many posts of the user
        return fake.seed_tweets(args[0], args[1])
    if command == "metrics_limit":  # (calls, window seconds) per user; the counts start again
        fake.metrics_limit.reset_counts(limit=args[0], window=args[1])
        return None
    if command == "metrics_counts":  # calls refused by the limit, and the most a user made in a window
        return {"exceeded": fake.metrics_limit.exceeded, "most_in_a_window": fake.metrics_limit.most_in_a_window()}
    if command == "reset":  # a new run: what exists and what was received is forgotten
        with fake.lock:
            fake.requests.clear()
            fake.media.clear()
            fake.file_hashes.clear()
            fake.streamed_bytes = 0
            if kind == "x":
                fake.tweets.clear()
            else:
                fake.statuses.clear()
                fake.idempotency.clear()
        return None
    if command == "tweets":
        with fake.lock:
            return [(t.id, t.author_id, t.posted_text, t.created_at, list(t.media_ids)) for t in fake.tweets]
    if command == "statuses":
        with fake.lock:
            return [(s.id, s.account_id, s.text, s.created_at, list(s.media_ids)) for s in fake.statuses]
    if command == "media":
        with fake.lock:
            out = {}
            for media_id, m in fake.media.items():
                if kind == "x":
                    running = fake.file_hashes.get(media_id)
                    out[media_id] = {
                        "kind": m.kind,
                        "total_bytes": m.total_bytes,
                        "received": m.received,
                        "segments": len(m.sha256),
                        "finalized": m.finalized,
                        "sha256": running.hexdigest() if running is not None else None,
                    }
                else:
                    out[media_id] = {"kind": m.type, "size": m.size, "sha256": m.sha256}
            return out
    if command == "requests":
        with fake.lock:
            counts: dict[str, int] = {}
            for r in fake.requests:
                path = re.sub(r"\d{6,}", ":id", r.path)
                key = f"{r.method} {path} {r.status}"
                counts[key] = counts.get(key, 0) + 1
            return {"by_route": counts, "streamed_bytes": fake.streamed_bytes}
    raise ValueError(f"unknown command {command!r}")


class FakeProcess:
    """A fake platform (`x` or `mastodon`) in its own process, driven over a pipe."""

    def __init__(self, kind: str, latency_ms: float, as_written: bool = False) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.kind = kind
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_fake_main, args=(child, kind, latency_ms / 1000, as_written), daemon=True)
        self.base_url = ""

    def __enter__(self) -> FakeProcess:
        self.proc.start()
        if not self.conn.poll(60):
            raise RuntimeError(f"the fake {self.kind} did not start")
        self.base_url = self.conn.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            self.conn.send(("stop", ()))
            self.conn.poll(5)
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(5)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def call(self, command: str, *args: Any) -> Any:
        self.conn.send((command, args))
        if not self.conn.poll(120):
            raise TimeoutError(f"the fake {self.kind} did not answer {command}")
        status, value = self.conn.recv()
        if status != "ok":
            raise RuntimeError(f"fake {self.kind} {command}: {value}")
        return value


# ----------------------------------------------------------------------------- the live-mode stack


def live_env(fake_x: FakeProcess | None, **extra: str) -> dict[str, str]:
    """The environment of a live-mode stack whose X is the fake. Unlike the tests' live stacks
    (harness/live.py LIVE_ENV), the publisher keeps the core's own poll, backoff and lease."""
    from harness.live import RETURN_TO

    return_to = urlsplit(RETURN_TO)
    env = {
        "HERALD_PUBLISH_MODE": "live",
        "HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES": "true",
        # connect_accounts' return_to is on the REST caller's app (harness.live.connect), an
        # origin the stack must list: a return_to elsewhere is refused (docs/live-publishing.md,
        # "Connecting accounts").
        "HERALD_CONNECT_RETURN_ORIGINS": f"{return_to.scheme}://{return_to.netloc}",
        "HERALD_LOW_CREDIT_THRESHOLD": "0",
        **extra,
    }
    if fake_x is not None:
        env["HERALD_PLATFORM_HOST_OVERRIDES"] = json.dumps({"api.x.com": fake_x.base_url, "x.com": fake_x.base_url})
        env["HERALD_X_CLIENT_ID"] = X_CLIENT_ID
        env["HERALD_X_CLIENT_SECRET"] = X_CLIENT_SECRET
    return env


async def connect_accounts(
    base_url: str, api_key: str, fake: FakeProcess, names: list[str], **body: str
) -> dict[str, str]:
    """Connects one account of the fake per name through REST and the browser's redirects;
    returns {slug: the fake's account id}."""
    import httpx

    from harness.live import connect

    auth = {"Authorization": f"Bearer {api_key}"}
    out = {}
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as api:
        for name in names:
            account_id = fake.call("add_user", name)
            fake.call("sign_in_as", account_id)
            connected = await connect(api, auth, slug=name.replace("_", "-"), **body)
            if connected.query.get("connection") != "connected":
                raise RuntimeError(f"connecting {name} failed: {connected.location}")
            out[connected.slug] = account_id
    return out
