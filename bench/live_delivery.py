"""Bench: live delivery to a fake X answering in 50 ms: lateness of scheduled posts, and posts/s by
1, 2, 4 worker processes.

    .venv/bin/python -m bench.live_delivery [--backend postgresql|sqlite] [--posts 2000] [--rate 100]
        [--workers 1 2] [--burst-posts 2000] [--burst-workers 1 2 4] [--latency-ms 50]
        [--profiles 4] [--poll-seconds S] [--batch-size N] [--fake-as-written] [--wait-quiet 30] [--no-json]

Issue 12's target: "with the fake platforms answering in 50 ms, due posts are delivered within
1 s p99 of their schedule_at at 100 posts/s, and throughput grows with worker processes until
the machine's cores are used".

Set-up, once: a fake X (harness/fakes/platforms/x.py) in its own process (so its CPU is its own),
answering every request after --latency-ms (the fake's `slow` fault, no limit), its server socket
set up as a production server's (backlog 128, TCP_NODELAY: see tune_server_socket; the stdlib's
defaults, kept by --fake-as-written, reset connections and add ~40 ms to answers); a fresh migrated
database; the real live-mode stack (core, facade, storage: harness.stack.running_stack with
HERALD_PUBLISH_MODE=live, X's hosts overridden to the fake, private addresses allowed, the
fake's client id/secret); one organization; --profiles X accounts (users of the fake) connected
through `POST /v1/profiles:connect` and a browser's redirects (harness/live.connect).

Each run, on emptied tables and an emptied fake:

1. Starts K real `python -m core worker` processes (the core's default poll interval and batch
   size unless --poll-seconds / --batch-size) and waits until each has a database connection
   and is idle. Start-up is not measured.
2. *Scheduled* (--workers): creates --posts posts, one per call of core.posts.create.create_posts
   (live=True), each to one profile in turn, with schedule_at = t0 + i / --rate, all in ONE
   transaction committed before t0 (t0 = now + --lead, by default enough for the creation).
   *Burst* (--burst-workers): creates --burst-posts posts due now (4 profiles per call) in one
   transaction; the clock starts at its COMMIT.
3. Polls the database every 100 ms until every post is final. Per post: lateness =
   published_at - schedule_at (burst: - the commit), and where it went: schedule -> claim (the
   `post_delivery` debit's time: waiting for a worker), claim -> tweet made at the fake (saving
   `create_sent_at`, the request, the fake's 50 ms), tweet -> published_at (the outbox row and the
   final UPDATE).
4. Verifies exactly once: every post `published`, outbox rows = distinct outbox post ids =
   debits = N, and the fake holds exactly N tweets of the run, no text twice, whose ids are the
   posts' platform_post_id.
5. Reports lateness p50/p90/p99/max (and p99 of the posts due after the first second, once the
   workers are running flat out), posts/s, CPU seconds and % of one CPU of the workers, the fake,
   PostgreSQL's backends, the idle core/facade/storage, this process's polling and anything else,
   and the peak RSS (VmHWM) of the workers and the fake.

Prints a table and writes the full result as JSON under bench/results/. Exit status 1 if a run
did not deliver every post exactly once.

The fake is Python (ThreadingHTTPServer, one thread per connection) and shares the 2 CPUs with
everything else: its CPU per post is printed beside the workers' so the limit can be placed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import multiprocessing
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from bench.load import CpuWindow, cpu_seconds, json_dump, peak_rss_mib, percentile, wait_until_quiet

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
POLL_SECONDS = 0.1
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


# ----------------------------------------------------------------------------- the stack


def live_env(fake_x: FakeProcess | None, **extra: str) -> dict[str, str]:
    """The environment of a live-mode stack whose X is the fake."""
    env = {
        "HERALD_PUBLISH_MODE": "live",
        "HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES": "true",
        "HERALD_LOW_CREDIT_THRESHOLD": "0",
        **extra,
    }
    if fake_x is not None:
        env["HERALD_PLATFORM_HOST_OVERRIDES"] = json.dumps({"api.x.com": fake_x.base_url, "x.com": fake_x.base_url})
        env["HERALD_X_CLIENT_ID"] = X_CLIENT_ID
        env["HERALD_X_CLIENT_SECRET"] = X_CLIENT_SECRET
    return env


async def bootstrap(url: str, credits: int) -> dict[str, str]:
    from sqlalchemy.ext.asyncio import create_async_engine

    from core import admin

    engine = create_async_engine(url)
    try:
        return await admin.bootstrap(
            engine, email="bench@example.com", password="bench-password-1", org="bench", credits_=credits, plan="active"
        )
    finally:
        await engine.dispose()


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


def start_workers(stack: Any, k: int, extra: dict[str, str]) -> list[subprocess.Popen]:
    for log in stack.workdir.glob("worker*.log"):
        log.unlink()
    return [stack.spawn("core", "worker", env=extra, log_name=f"worker{i}") for i in range(k)]


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    with contextlib.suppress(FileNotFoundError, PermissionError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    return inodes


def _has_db_connection(pid: int, db_path: str | None) -> bool:
    """PostgreSQL: the process has a TCP connection to port 5432. SQLite: it has the file open."""
    if db_path is not None:
        with contextlib.suppress(FileNotFoundError, PermissionError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) == db_path:
                        return True
        return False
    inodes = _socket_inodes(pid)
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(FileNotFoundError):
            for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
                fields = line.split()
                if fields[2].endswith(":1538") and fields[9] in inodes:  # 0x1538 = 5432
                    return True
    return False


def wait_workers_ready(procs: list[subprocess.Popen], db_path: str | None, timeout: float = 60) -> float:
    """Until every worker has its database connection and its CPU has settled."""
    t0 = time.monotonic()
    while time.monotonic() < t0 + timeout:
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"worker exited with {p.returncode} during start-up")
        if all(_has_db_connection(p.pid, db_path) for p in procs):
            before = [cpu_seconds(p.pid) for p in procs]
            time.sleep(0.5)
            if all(cpu_seconds(p.pid) - b < 0.1 for p, b in zip(procs, before, strict=True)):
                return time.monotonic() - t0
        else:
            time.sleep(0.1)
    raise TimeoutError("workers did not start polling in time")


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


# ----------------------------------------------------------------------------- posts


async def create_posts(
    url: str,
    org_id: str,
    contents: list[str],
    slugs: list[list[str]],
    schedule: list[datetime | None],
    before_commit: Callable[[], None],
) -> tuple[datetime, float]:
    """One create_posts call per content (live=True), all in ONE transaction; returns the time
    right after its COMMIT and how long the creation took."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from core.db.types import utcnow
    from core.posts import create
    from core.posts.validation import CreateRequest

    engine = create_async_engine(url)
    try:
        started = time.perf_counter()
        async with engine.connect() as conn:
            transaction = await conn.begin()
            for content, to, at in zip(contents, slugs, schedule, strict=True):
                when = at.isoformat().replace("+00:00", "Z") if at is not None else None
                await create.create_posts(
                    conn, org_id, CreateRequest(content, to, schedule_at=when), utcnow(), live=True
                )
            before_commit()
            await transaction.commit()
            committed = datetime.now(UTC)
        return committed, time.perf_counter() - started
    finally:
        await engine.dispose()


# Posts in a final state (a transient failure goes back to queued and is not final).
DONE_SQL = "SELECT count(*) FROM posts WHERE status IN ('published', 'failed', 'canceled')"
RETRYING_SQL = "SELECT id, attempts, platform_error FROM posts WHERE status = 'queued' AND platform_error <> ''"


def listen_overflows() -> int:
    """The kernel's count of connections dropped because a listen queue was full (TcpExt
    ListenOverflows, the whole machine: the fake's small accept queue shows up here)."""
    lines = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines() if line.startswith("TcpExt:")]
    return int(dict(zip(lines[0], lines[1], strict=True)).get("ListenOverflows", 0))


def _stats(values: list[float]) -> dict[str, float]:
    s = sorted(values)
    if not s:
        return {"n": 0}
    return {
        "n": len(s),
        "p50_ms": round(percentile(s, 50) * 1000, 1),
        "p90_ms": round(percentile(s, 90) * 1000, 1),
        "p99_ms": round(percentile(s, 99) * 1000, 1),
        "max_ms": round(s[-1] * 1000, 1),
    }


# ----------------------------------------------------------------------------- one run


def one_run(ctx: dict[str, Any], *, mode: str, n: int, k: int, run_no: int, args: argparse.Namespace) -> dict[str, Any]:
    from bench.publisher_throughput import BackendTracker

    db, stack, fake, slugs = ctx["db"], ctx["stack"], ctx["fake"], ctx["slugs"]
    db.reset(ctx["org_id"], credits=2 * n)
    fake.call("reset")
    extra = {}
    if args.poll_seconds is not None:
        extra["HERALD_PUBLISH_POLL_SECONDS"] = str(args.poll_seconds)
    if args.batch_size:
        extra["HERALD_PUBLISH_BATCH_SIZE"] = str(args.batch_size)
    procs = start_workers(stack, k, extra)
    tag = f"r{run_no}"
    retried: dict[str, tuple[int, str]] = {}
    overflows_before = listen_overflows()
    try:
        startup_s = wait_workers_ready(procs, db.path if db.sqlite else None)
        busy_before = wait_until_quiet(args.wait_quiet) if args.wait_quiet > 0 else float("nan")
        named = {f"worker{i}": p.pid for i, p in enumerate(procs)}
        named["fake_x"] = fake.pid
        named.update(ctx["stack_pids"])
        named["bench"] = os.getpid()  # this process: creation is outside the window, polling inside
        window = CpuWindow(named)
        backends = BackendTracker(db)

        def open_window() -> None:
            window.start()
            backends.start()

        if mode == "scheduled":
            contents = [f"Live bench {tag}-{i:05d}: a post scheduled at {args.rate:g}/s." for i in range(n)]
            to = [[slugs[i % len(slugs)]] for i in range(n)]
            lead = args.lead if args.lead is not None else 3.0 + 0.005 * n
            t0 = datetime.now(UTC) + timedelta(seconds=lead)
            schedule: list[datetime | None] = [t0 + timedelta(seconds=i / args.rate) for i in range(n)]
            committed, creation_s = asyncio.run(
                create_posts(db.url, ctx["org_id"], contents, to, schedule, lambda: None)
            )
            ahead = (t0 - committed).total_seconds()
            if ahead < 0.5:
                raise RuntimeError(f"creating {n} posts took {creation_s:.1f} s, past t0 - 0.5 s: raise --lead")
            time.sleep(max(0.0, ahead - 0.3))
            open_window()
            start = t0
        else:
            calls = n // len(slugs)
            contents = [f"Live bench {tag}-{i:05d}: due now, all at once." for i in range(calls)]
            to = [list(slugs)] * calls
            committed, creation_s = asyncio.run(
                create_posts(db.url, ctx["org_id"], contents, to, [None] * calls, open_window)
            )
            start = committed
        deadline = time.monotonic() + args.timeout + (n / args.rate if mode == "scheduled" else 0)
        polls = 0
        while True:
            done = db.one(DONE_SQL)
            if done >= n:
                break
            polls += 1
            if polls % 5 == 0:  # a post waiting for its retry keeps the error (cleared once published)
                for post_id, attempts, error in db.all(RETRYING_SQL):
                    retried.setdefault(post_id, (attempts, error[:300]))
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {done} of {n} posts final in time")
            if any(p.poll() is not None for p in procs):
                raise RuntimeError("a worker exited during the run")
            backends.sample()
            time.sleep(POLL_SECONDS)
        backends.sample()
        window.end()
        if not db.sqlite:
            pg = backends.total()
            window.result["postgres"] = pg
            window.result["other"] = max(0.0, window.result["other"] - pg)
        rss = {name: round(peak_rss_mib(pid), 1) for name, pid in named.items() if name.startswith("worker")}
        rss["fake_x"] = round(peak_rss_mib(fake.pid), 1)
    finally:
        stop_workers(procs)
    diagnostics = {"retried_posts": retried, "listen_overflows": listen_overflows() - overflows_before}
    return diagnostics | _verify_and_measure(
        ctx, mode, n, k, tag, start, committed, creation_s, startup_s, busy_before, window, rss, procs
    )


def _verify_and_measure(
    ctx: dict[str, Any],
    mode: str,
    n: int,
    k: int,
    tag: str,
    start: datetime,
    committed: datetime,
    creation_s: float,
    startup_s: float,
    busy_before: float,
    window: CpuWindow,
    rss: dict[str, float],
    procs: list[subprocess.Popen],
) -> dict[str, Any]:
    db, fake = ctx["db"], ctx["fake"]
    rows = db.all("SELECT id, content, status, schedule_at, published_at, platform_post_id, attempts FROM posts")
    claims = {
        r[0]: db.timestamp(r[1])
        for r in db.all("SELECT reference, created_at FROM credit_ledger WHERE reason = %s", ("post_delivery",))
    }
    by_status: dict[str, int] = {}
    for r in rows:
        by_status[r[2]] = by_status.get(r[2], 0) + 1
    outbox_rows = db.one("SELECT count(*) FROM outbox")
    outbox_posts = db.one("SELECT count(DISTINCT post_id) FROM outbox")
    debits = len(claims)
    tweets = fake.call("tweets")
    mine = [t for t in tweets if t[2].startswith(f"Live bench {tag}-")]
    tweet_at = {t[2] + "\0" + t[1]: t[3] for t in mine}
    accounts = ctx["accounts"]  # slug -> fake user id
    texts = [t[2] + "\0" + t[1] for t in mine]
    post_ids = {r[5] for r in rows if r[2] == "published"}
    fake_ok = len(mine) == n and len(set(texts)) == n and {t[0] for t in mine} == post_ids and len(tweets) == n
    ok = by_status == {"published": n} and outbox_rows == n and outbox_posts == n and debits == n and fake_ok

    lateness, wait, send, record = [], [], [], []
    steady = []
    by_second: dict[int, list[float]] = {}
    first_due = min(db.timestamp(r[3]) for r in rows)
    last_published = max((db.timestamp(r[4]) for r in rows if r[4] is not None), default=None)
    slug_of = {r[0]: r[1] for r in db.all("SELECT id, profile_slug FROM posts")}
    for r in rows:
        if r[4] is None:
            continue
        due = db.timestamp(r[3]) if mode == "scheduled" else committed
        published = db.timestamp(r[4])
        late = (published - due).total_seconds()
        lateness.append(late)
        if mode == "scheduled":
            if (due - first_due).total_seconds() >= 1.0:
                steady.append(late)
            by_second.setdefault(int((due - first_due).total_seconds()), []).append(late)
        claimed = claims.get(r[0])
        made = tweet_at.get(r[1] + "\0" + accounts.get(slug_of[r[0]], ""))
        if claimed is not None and made is not None:
            wait.append(max(0.0, (claimed - due).total_seconds()))
            send.append(made - claimed.timestamp())
            record.append(published.timestamp() - made)
    elapsed = (last_published - start).total_seconds() if last_published else float("nan")
    cpu = window.result
    wall = cpu["wall_s"]
    workers_cpu = sum(v for name, v in cpu.items() if name.startswith("worker"))
    per_post = {
        name: round(v * 1000 / n, 3) for name, v in cpu.items() if name not in ("machine_busy_fraction", "wall_s")
    }
    per_post["workers"] = round(workers_cpu * 1000 / n, 3)
    share = {name: round(v / wall, 3) for name, v in cpu.items() if name not in ("machine_busy_fraction", "wall_s")}
    share["workers"] = round(workers_cpu / wall, 3)
    log_problems = sum(
        1
        for log in ctx["stack"].workdir.glob("worker*.log")
        for line in log.read_text(errors="replace").splitlines()
        if "Traceback" in line or " ERROR " in line or "WARNING" in line
    )
    return {
        "mode": mode,
        "workers": k,
        "posts": n,
        "rate": ctx["args"].rate if mode == "scheduled" else None,
        "creation_s": round(creation_s, 2),
        "worker_startup_s": round(startup_s, 2),
        "elapsed_s": round(elapsed, 3),
        # scheduled: from the first schedule_at to the last publication; burst: from the commit.
        "posts_per_s": round(n / elapsed, 1) if elapsed > 0 else float("nan"),
        "lateness": _stats(lateness),
        "lateness_after_first_second": _stats(steady) if mode == "scheduled" else None,
        # scheduled: the lateness of the posts due in each second of the schedule
        "lateness_by_second": {s: _stats(v) for s, v in sorted(by_second.items())} or None,
        "schedule_to_claim": _stats(wait),
        "claim_to_tweet": _stats(send),
        "tweet_to_published": _stats(record),
        "by_status": by_status,
        "max_attempts": max((r[6] for r in rows), default=0),
        "outbox_rows": outbox_rows,
        "outbox_distinct_posts": outbox_posts,
        "debits": debits,
        "fake_tweets": len(tweets),
        "fake_tweets_of_run": len(mine),
        "fake_distinct_texts": len(set(texts)),
        "fake_ids_match_posts": {t[0] for t in mine} == post_ids,
        "fake_requests": fake.call("requests")["by_route"],
        "verified": ok,
        "worker_log_problems": log_problems,
        "cpu_s": {name: round(v, 3) for name, v in cpu.items()},
        "cpu_share_of_one_cpu": share,
        "cpu_ms_per_post": per_post,
        "machine_busy_before": round(busy_before, 3),
        "peak_rss_mib": rss,
        "worker_exit_codes": [p.returncode for p in procs],
    }


def report(r: dict[str, Any]) -> None:
    late = r["lateness"]
    share = r["cpu_share_of_one_cpu"]
    what = f"{r['rate']:g}/s scheduled" if r["mode"] == "scheduled" else "burst (all due)"
    pg = f"postgres {share['postgres']:.0%}, " if "postgres" in share else ""
    print(
        f"  {what:<18} {r['workers']} worker(s): {r['posts_per_s']:>6.0f} posts/s  lateness p50 {late['p50_ms']:.0f} ms"
        f"  p99 {late['p99_ms']:.0f} ms  max {late['max_ms']:.0f} ms  |  CPU (of one CPU): workers {share['workers']:.0%},"
        f" fake {share['fake_x']:.0%}, {pg}other {share['other']:.0%}  (machine busy {r['cpu_s']['machine_busy_fraction']:.0%})"
        f"  {'verified' if r['verified'] else 'NOT VERIFIED'}",
        flush=True,
    )
    if not r["verified"]:
        print(
            f"    by_status {r['by_status']}, outbox {r['outbox_rows']}/{r['outbox_distinct_posts']}, debits {r['debits']},"
            f" fake tweets {r['fake_tweets']} (of the run {r['fake_tweets_of_run']}, distinct {r['fake_distinct_texts']},"
            f" ids match {r['fake_ids_match_posts']})",
            flush=True,
        )
    other = r["cpu_s"]["other"] / max(1e-9, r["cpu_s"]["wall_s"] * (os.cpu_count() or 1))
    if other > 0.1 or r["machine_busy_before"] >= 0.15:
        print(
            f"    WARNING: something else used the machine ({r['machine_busy_before']:.0%} busy before the run, "
            f"{other:.0%} of all CPU time during it): these figures are disturbed",
            flush=True,
        )
    if r["worker_log_problems"]:
        print(f"    NOTE: {r['worker_log_problems']} warning/error lines in the worker logs", flush=True)
    if r["retried_posts"] or r["max_attempts"] > 1:
        errors: dict[str, int] = {}
        for _, error in r["retried_posts"].values():
            errors[error] = errors.get(error, 0) + 1
        print(
            f"    NOTE: posts delivered on a later attempt (max attempts {r['max_attempts']}); errors seen while they"
            f" waited: {errors or 'none caught'}; the kernel's listen-queue overflows during the run:"
            f" {r['listen_overflows']}",
            flush=True,
        )


def run(args: argparse.Namespace) -> dict[str, Any]:
    from bench.publisher_throughput import Db
    from harness.stack import database, running_stack

    profiles = args.profiles
    burst_n = (args.burst_posts + profiles - 1) // profiles * profiles
    out: dict[str, Any] = {
        "bench": "live delivery (fake X)",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([".venv/bin/python -m bench.live_delivery", *sys.argv[1:]]),
        "args": vars(args),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "loadavg_at_start": Path("/proc/loadavg").read_text().split()[:3],
        "runs": [],
    }
    print(
        f"live delivery  backend={args.backend}  fake X latency={args.latency_ms} ms  profiles={profiles}  "
        f"scheduled: {args.posts} posts at {args.rate:g}/s, workers {args.workers}  burst: {burst_n} posts, "
        f"workers {args.burst_workers}  poll={args.poll_seconds or 'default'}  batch={args.batch_size or 'default'}"
        f"  cpus={os.cpu_count()}  loadavg {' '.join(out['loadavg_at_start'])}",
        flush=True,
    )
    with (
        FakeProcess("x", args.latency_ms, args.fake_as_written) as fake,
        tempfile.TemporaryDirectory(prefix="herald-bench-") as tmp,
        database(args.backend, Path(tmp)) as url,
        running_stack(url, Path(tmp), **live_env(fake)) as stack,
    ):
        boot = asyncio.run(bootstrap(url, 1))
        accounts = asyncio.run(
            connect_accounts(
                stack.base_url, boot["api_key"], fake, [f"bench_x{i}" for i in range(profiles)], platform="x"
            )
        )
        db = Db(url)
        db.url = url
        from bench.load import stack_pids

        ctx = {
            "db": db,
            "stack": stack,
            "fake": fake,
            "slugs": list(accounts),
            "accounts": accounts,
            "org_id": boot["org_id"],
            "args": args,
            "stack_pids": stack_pids(stack),
        }
        try:
            if not db.sqlite:
                out["machine"]["postgresql"] = db.one("SHOW server_version")
            run_no = 0
            for k in args.workers:
                run_no += 1
                result = one_run(ctx, mode="scheduled", n=args.posts, k=k, run_no=run_no, args=args)
                report(result)
                out["runs"].append(result)
            for k in args.burst_workers:
                run_no += 1
                result = one_run(ctx, mode="burst", n=burst_n, k=k, run_no=run_no, args=args)
                report(result)
                out["runs"].append(result)
        finally:
            db.close()
    return out


def print_table(out: dict[str, Any]) -> None:
    print()
    print(
        f"{'mode':<16}{'workers':>8}{'posts/s':>9}{'late p50':>10}{'p99':>8}{'max':>8}{'p99 >1s':>9}"
        f"{'wait p99':>10}{'send p50':>10}{'rec p50':>9}{'workers':>9}{'fake':>7}{'pg':>7}{'other':>7}{'RSS MiB':>9}{'verified':>9}"
    )
    print(
        f"{'':<16}{'':>8}{'':>9}{'ms':>10}{'ms':>8}{'ms':>8}{'ms':>9}{'ms':>10}{'ms':>10}{'ms':>9}{'% of one CPU':>30}"
    )
    for r in out["runs"]:
        share = r["cpu_share_of_one_cpu"]
        mode = f"{r['rate']:g}/s sched." if r["mode"] == "scheduled" else "burst"
        steady = r["lateness_after_first_second"]
        rss = max(v for name, v in r["peak_rss_mib"].items() if name.startswith("worker"))
        print(
            f"{mode:<16}{r['workers']:>8}{r['posts_per_s']:>9.0f}{r['lateness']['p50_ms']:>10.0f}"
            f"{r['lateness']['p99_ms']:>8.0f}{r['lateness']['max_ms']:>8.0f}"
            f"{steady['p99_ms'] if steady else float('nan'):>9.0f}{r['schedule_to_claim'].get('p99_ms', float('nan')):>10.0f}"
            f"{r['claim_to_tweet'].get('p50_ms', float('nan')):>10.0f}{r['tweet_to_published'].get('p50_ms', float('nan')):>9.0f}"
            f"{share['workers']:>9.0%}{share['fake_x']:>7.0%}{share.get('postgres', 0):>7.0%}{share['other']:>7.0%}"
            f"{rss:>9.0f}{'yes' if r['verified'] else 'NO':>9}"
        )
    print(
        "late = published_at - schedule_at (burst: - the commit); p99 >1s = posts due after the first second;"
        " wait = schedule -> claim; send = claim -> tweet made at the fake; rec = tweet -> published_at;"
        " RSS = the largest worker VmHWM"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.live_delivery", description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--posts", type=int, default=2000, help="scheduled posts per scheduled run")
    parser.add_argument("--rate", type=float, default=100.0, help="posts per second the schedule makes due")
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 2], help="worker counts of the scheduled runs")
    parser.add_argument("--burst-posts", type=int, default=2000, help="posts per burst run (all due at once)")
    parser.add_argument(
        "--burst-workers", type=int, nargs="*", default=[1, 2, 4], help="worker counts of the burst runs"
    )
    parser.add_argument("--latency-ms", type=float, default=50.0, help="the fake X answers every request after this")
    parser.add_argument("--profiles", type=int, default=4, help="X accounts connected (posts go to them in turn)")
    parser.add_argument(
        "--fake-as-written",
        action="store_true",
        help="keep the fake's stdlib server socket as it is (backlog 5, no TCP_NODELAY): see tune_server_socket",
    )
    parser.add_argument(
        "--poll-seconds", type=float, default=None, help="HERALD_PUBLISH_POLL_SECONDS (default: the core's)"
    )
    parser.add_argument("--batch-size", type=int, default=None, help="HERALD_PUBLISH_BATCH_SIZE (default: the core's)")
    parser.add_argument(
        "--lead",
        type=float,
        default=None,
        help="seconds from the creation's start to t0 (default: 3 s + 5 ms per post)",
    )
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds (after the last schedule) before a run is abandoned"
    )
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=30.0,
        help="before each run, wait up to this many seconds for the machine to be idle (0: do not wait)",
    )
    parser.add_argument("--no-json", action="store_true", help="do not write bench/results/*.json")
    args = parser.parse_args(argv)

    def _terminate(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _terminate)
    started = time.monotonic()
    try:
        out = run(args)
    except KeyboardInterrupt:
        print("interrupted: processes stopped, database dropped", file=sys.stderr)
        return 130
    print_table(out)
    out["total_s"] = round(time.monotonic() - started, 1)
    if not args.no_json:
        path = RESULTS / f"live_delivery-{args.backend}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
        json_dump(path, out)
        print(f"wrote {path.relative_to(ROOT)} ({out['total_s']} s in all)")
    return 0 if out["runs"] and all(r["verified"] for r in out["runs"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
