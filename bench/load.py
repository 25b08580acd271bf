"""The load the benches put on what they measure, generated in a process of its own: closed loops
(each worker one request in flight, back to back), latency percentiles, a minimal HTTP client,
requests with a new body each, and the child process that runs a load phase while the bench's
process takes its readings (bench/runs.py, measure). The SQL floors' drivers are in
bench/api_floor.py; the plain file copy an upload is compared with is here (copy_with_fsync).

A load generator on a 2-core machine competes with what it measures, so it must be cheap per
request: the default HTTP client here is a minimal HTTP/1.1 keep-alive client on an asyncio
Protocol under uvloop (a few tens of microseconds of CPU per request; httpx costs several times
that and is kept as an option for comparison). It understands exactly what the facade sends
back (a status line, headers with Content-Length, a body) and counts anything else as an error.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# ----------------------------------------------------------------------------- results


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values (q in 0..100)."""
    if not sorted_values:
        return float("nan")
    rank = max(1, min(len(sorted_values), round(q / 100 * len(sorted_values) + 0.5)))
    return sorted_values[rank - 1]


@dataclass
class RunResult:
    """What one closed-loop run measured (latencies in seconds)."""

    concurrency: int
    elapsed: float
    requests: int
    errors: int
    latencies: list[float] = field(repr=False)
    validated: int = 0
    first_error: str = ""

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        return {
            "concurrency": self.concurrency,
            "elapsed_s": round(self.elapsed, 3),
            "requests": self.requests,
            "errors": self.errors,
            "validated_bodies": self.validated,
            "rps": round(self.requests / self.elapsed, 1) if self.elapsed else 0.0,
            "p50_ms": round(percentile(lat, 50) * 1000, 3),
            "p90_ms": round(percentile(lat, 90) * 1000, 3),
            "p99_ms": round(percentile(lat, 99) * 1000, 3),
            "max_ms": round(lat[-1] * 1000, 3) if lat else float("nan"),
            "first_error": self.first_error,
        }


# A worker does one request and returns None when it succeeded, else a description of the failure.
Worker = Callable[[bool], Any]


async def closed_loop(workers: list[Worker], duration: float) -> RunResult:
    """Drives each worker (one in-flight request each) back to back for `duration` seconds."""
    latencies: list[float] = []
    counts = {"errors": 0, "validated": 0, "n": 0}
    first_error: list[str] = []
    deadline = time.perf_counter() + duration

    async def drive(worker: Worker, offset: int) -> None:
        i = offset
        perf = time.perf_counter
        while True:
            t0 = perf()
            if t0 >= deadline:
                return
            validate = i % 10 == 0  # parse and check one body in ten (every status is checked)
            try:
                failure = await worker(validate)
            except Exception as exc:  # a failed request is a counted error
                failure = f"{type(exc).__name__}: {exc}"
            latencies.append(perf() - t0)
            counts["n"] += 1
            if failure is not None:
                counts["errors"] += 1
                if not first_error:
                    first_error.append(str(failure)[:500])
            elif validate:
                counts["validated"] += 1
            i += 1

    start = time.perf_counter()
    await asyncio.gather(*(drive(w, k) for k, w in enumerate(workers)))
    elapsed = time.perf_counter() - start
    return RunResult(
        len(workers), elapsed, counts["n"], counts["errors"], latencies, counts["validated"], "".join(first_error)
    )


def warmup_brief(warm: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a result keeps of its warm-up run's summary (None when there was no warm-up)."""
    return warm and {k: warm[k] for k in ("requests", "errors", "rps", "first_error")}


async def measured_closed_loop(window: Window, workers: list[Worker], duration: float, warmup: float) -> dict[str, Any]:
    """The measured part of a closed-loop load phase in its child process: `warmup` seconds of
    warm-up (none if 0), then opens the parent's window, drives the workers for `duration` seconds
    and closes the window. Returns the run's summary with the warm-up's brief under "warmup".
    Closing the workers' connections is left to the caller (after this returns or raises)."""
    warm = (await closed_loop(workers, warmup)).summary() if warmup else None
    await window.open()
    result = (await closed_loop(workers, duration)).summary()
    await window.close()
    result["warmup"] = warmup_brief(warm)
    return result


# ----------------------------------------------------------------------------- HTTP clients


class _HttpConnection(asyncio.Protocol):
    """One HTTP/1.1 keep-alive connection carrying one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.waiter: asyncio.Future | None = None
        self.lost: BaseException | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if self.waiter is not None:
            self._complete()

    def connection_lost(self, exc: BaseException | None) -> None:
        self.lost = exc or ConnectionResetError("server closed the connection")
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(self.lost)

    def _complete(self) -> None:
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return
        head = bytes(self.buf[:end]).lower()
        at = head.find(b"\r\ncontent-length:")
        if at < 0:
            self.waiter.set_exception(RuntimeError(f"response without Content-Length: {head[:200]!r}"))
            self.waiter = None
            return
        stop = head.find(b"\r\n", at + 2)
        length = int(head[at + 17 : stop if stop >= 0 else len(head)])
        total = end + 4 + length
        if len(self.buf) < total:
            return
        status = int(head[9:12])
        body = bytes(self.buf[end + 4 : total])
        del self.buf[:total]
        waiter, self.waiter = self.waiter, None
        waiter.set_result((status, body))

    async def request(self, raw: bytes) -> tuple[int, bytes]:
        if self.lost is not None:
            raise self.lost
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(raw)
        return await self.waiter


async def raw_http_connections(host: str, port: int, count: int) -> tuple[list[_HttpConnection], Callable[[], None]]:
    """`count` keep-alive connections; `await conn.request(raw_bytes)` answers (status, body).
    For benches whose requests differ from one another (bodies, ids): build the bytes per request."""
    loop = asyncio.get_running_loop()
    conns: list[_HttpConnection] = []
    for _ in range(count):
        _, proto = await loop.create_connection(_HttpConnection, host, port)
        conns.append(proto)

    def close() -> None:
        for c in conns:
            if c.transport is not None:
                c.transport.close()

    return conns, close


async def raw_http_workers(
    host: str, port: int, raw_request: bytes, concurrency: int, check: Callable[[bytes], str | None]
) -> tuple[list[Worker], Callable[[], None]]:
    conns, close = await raw_http_connections(host, port, concurrency)

    def worker_for(conn: _HttpConnection) -> Worker:
        async def one(validate: bool) -> str | None:
            status, body = await conn.request(raw_request)
            if status != 200:
                return f"HTTP {status}: {body[:300]!r}"
            return check(body) if validate else None

        return one

    return [worker_for(c) for c in conns], close


async def httpx_workers(
    url: str, headers: dict[str, str], concurrency: int, check: Callable[[bytes], str | None]
) -> tuple[list[Worker], Callable[[], Any]]:
    import httpx

    client = httpx.AsyncClient(
        limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency), timeout=30
    )

    async def one(validate: bool) -> str | None:
        response = await client.get(url, headers=headers)
        if response.status_code != 200:
            return f"HTTP {response.status_code}: {response.text[:300]}"
        return check(response.content) if validate else None

    return [one] * concurrency, client.aclose


# ----------------------------------------------------------------------------- requests with a body


def request_head(method: str, netloc: str, path: str, headers: dict[str, str]) -> bytes:
    """The head of a request that carries a body, up to `Content-Length: ` (with_body ends it)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {netloc}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\nContent-Length: ").encode()


def with_body(head: bytes, body: bytes) -> bytes:
    """A request_head completed with the length of `body` and `body` itself."""
    return b"%s%d\r\n\r\n%s" % (head, len(body), body)


def unique_tag() -> str:
    """A tag no other load process of the run has: with a worker's index and request count in
    it, each request's content is one the database has not seen."""
    return f"{os.getpid()}-{secrets.token_hex(2)}"


# body_for(k, n): the body of worker k's n-th request, and what check needs to know about it.
BodyFor = Callable[[int, int], tuple[bytes, Any]]


def body_workers(
    conns: list[Any],
    head: bytes,
    body_for: BodyFor,
    check: Callable[[bytes, Any], str | None],
    *,
    status: int = 201,
    error_marker: bytes = b"",
) -> list[Worker]:
    """One worker per raw_http_connections connection, each sending `head` with a body of its
    own per request. An answer must have `status`, and must not contain `error_marker` when one
    is given (an MCP tool's error answers 200); one body in ten goes to check(answer, expected)."""

    def worker_for(k: int, conn: Any) -> Worker:
        counter = iter(range(1 << 62))

        async def one(validate: bool) -> str | None:
            body, expected = body_for(k, next(counter))
            got, answer = await conn.request(with_body(head, body))
            if got != status or (error_marker and error_marker in answer):
                return f"HTTP {got}: {answer[:300]!r}"
            return check(answer, expected) if validate else None

        return one

    return [worker_for(k, c) for k, c in enumerate(conns)]


async def measured_body_loop(
    window: Window,
    *,
    base_url: str,
    path: str,
    headers: dict[str, str],
    body_for: BodyFor,
    check: Callable[[bytes, Any], str | None],
    concurrency: int,
    duration: float,
    warmup: float,
    status: int = 201,
    error_marker: bytes = b"",
) -> dict[str, Any]:
    """measured_closed_loop of `concurrency` body_workers POSTing to `path` of `base_url`."""
    parts = urlsplit(base_url)
    conns, close = await raw_http_connections(parts.hostname, parts.port, concurrency)
    head = request_head("POST", parts.netloc, path, headers)
    workers = body_workers(conns, head, body_for, check, status=status, error_marker=error_marker)
    try:
        return await measured_closed_loop(window, workers, duration, warmup)
    finally:
        close()


def copy_with_fsync(source: Path, destination: Path) -> tuple[float, float]:
    """The floor of an upload: shutil.copyfile (in-kernel on Linux) then fsync, as the storage
    server fsyncs an object before renaming it into place. Returns (total, fsync part) seconds."""
    started = time.perf_counter()
    shutil.copyfile(source, destination)
    copied = time.perf_counter()
    fd = os.open(destination, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    done = time.perf_counter()
    return done - started, done - copied


# ----------------------------------------------------------------------------- child processes


class Window:
    """Given to a load phase in its child process: `await window.open()` once set up and warmed
    up (the parent starts its CPU readings and answers), `await window.close()` right after the
    measured loop, before any clean-up (the parent takes its readings again and answers)."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def open(self) -> None:
        self._conn.send(("ready", os.getpid()))
        await asyncio.get_running_loop().run_in_executor(None, self._conn.recv)

    async def close(self) -> None:
        self._conn.send(("closed", None))
        await asyncio.get_running_loop().run_in_executor(None, self._conn.recv)


def _child_entry(conn: Any, target: Callable[..., Any], kwargs: dict[str, Any]) -> None:
    """Runs `target(window, **kwargs)` under uvloop and sends back the JSON-ready dict it returns."""
    import uvloop

    try:
        result = uvloop.run(target(Window(conn), **kwargs))
        conn.send(("result", result))
    except KeyboardInterrupt:
        pass
    except BaseException as exc:  # reported to the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}"))


def run_in_child(
    target: Callable[..., Any],
    kwargs: dict[str, Any],
    *,
    timeout: float,
    on_start: Callable[[int], None] = lambda pid: None,
    on_end: Callable[[], None] = lambda: None,
) -> dict[str, Any]:
    """Runs a load phase in its own process (spawned, so it shares nothing with this one).

    on_start(pid of the load process) and on_end() run in this process right when the measured
    window opens and closes.
    """
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_child_entry, args=(child, target, kwargs), daemon=True)
    proc.start()
    try:
        kind, value = _recv(parent, proc, 120)
        if kind != "ready":
            raise RuntimeError(f"load process failed before measuring: {value}")
        on_start(value)
        parent.send("go")
        kind, result = _recv(parent, proc, timeout)
        if kind != "closed":
            raise RuntimeError(f"load process failed: {result}")
        on_end()
        parent.send("done")
        kind, result = _recv(parent, proc, 60)
        if kind != "result":
            raise RuntimeError(f"load process failed: {result}")
        result["pid"] = proc.pid
        return result
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join(10)
        if proc.is_alive():
            proc.kill()
            proc.join()


def _recv(conn: Any, proc: Any, timeout: float) -> tuple[str, Any]:
    deadline = time.monotonic() + timeout
    while not conn.poll(0.2):
        if not proc.is_alive() and not conn.poll(0):
            raise RuntimeError(f"load process died (exit code {proc.exitcode})")
        if time.monotonic() > deadline:
            raise TimeoutError("load process did not answer in time")
    try:
        return conn.recv()
    except EOFError:
        raise RuntimeError(f"load process died (exit code {proc.exitcode})") from None
