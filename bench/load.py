"""Shared pieces of the benches: a closed-loop load generator that runs in its own process,
latency percentiles, and CPU / memory readings of other processes from /proc.

A load generator on a 2-core machine competes with what it measures, so it must be cheap per
request: the default HTTP client here is a minimal HTTP/1.1 keep-alive client on an asyncio
Protocol under uvloop (a few tens of microseconds of CPU per request; httpx costs several times
that and is kept as an option for comparison). It understands exactly what the facade sends
back (a status line, headers with Content-Length, a body) and counts anything else as an error.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
            except Exception as exc:  # noqa: BLE001 - a failed request is a counted error
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
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
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


def stack_pids(stack: Any) -> dict[str, int]:
    """The pids of a tests.harness Stack by role: core0..N (`python -m core core`), facade
    (`python -m facades`), and any other process under its subcommand's name (e.g. `storage`)."""
    pids: dict[str, int] = {}
    cores = 0
    for proc in stack.processes:
        command = list(proc.args)[2:]  # after `python -m`
        if command == ["core", "core"]:
            pids[f"core{cores}"] = proc.pid
            cores += 1
        elif command == ["facades"]:
            pids["facade"] = proc.pid
        else:
            pids[command[-1]] = proc.pid
    return pids


# ----------------------------------------------------------------------------- /proc readings

_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def peak_rss_mib(pid: int) -> float:
    """VmHWM (peak resident set size) of a live process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def machine_busy_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    total = sum(values[:8])
    idle = values[3] + values[4]
    return total - idle, total


def wait_until_quiet(max_wait: float, threshold: float = 0.15) -> float:
    """Waits (up to max_wait seconds) for a second in which the machine is less than `threshold`
    busy, so a run does not start while something else (other people's tests) loads the CPUs.
    Returns the busy fraction of the last second looked at."""
    deadline = time.monotonic() + max_wait
    while True:
        b0, t0 = machine_busy_jiffies()
        time.sleep(1.0)
        b1, t1 = machine_busy_jiffies()
        busy = (b1 - b0) / max(1, t1 - t0)
        if busy < threshold or time.monotonic() >= deadline:
            return busy


class CpuWindow:
    """CPU seconds each named process, and the database server processes `backend_pids()` lists
    together, used in a window (a backend that both starts and ends inside it is missed), and what
    the whole machine spent besides (`other`)."""

    def __init__(self, named_pids: dict[str, int], backend_pids: Callable[[], list[int]] = list) -> None:
        self.named = named_pids
        self._backends = backend_pids
        self.before: dict[str, float] = {}
        self.pg_before: dict[int, float] = {}
        self.machine_before = (0, 0)
        self.result: dict[str, float] = {}

    def start(self, **extra_pids: int) -> None:
        self.named = {**self.named, **extra_pids}
        self.before = {name: cpu_seconds(pid) for name, pid in self.named.items()}
        self.pg_before = {pid: cpu_seconds(pid) for pid in self._backends()}
        self.machine_before = machine_busy_jiffies()
        self.t0 = time.perf_counter()

    def end(self) -> None:
        wall = time.perf_counter() - self.t0
        self.result = {name: cpu_seconds(pid) - self.before[name] for name, pid in self.named.items()}
        if self._backends is not list:
            self.result["postgres"] = sum(cpu_seconds(pid) - self.pg_before.get(pid, 0.0) for pid in self._backends())
        busy, total = machine_busy_jiffies()
        busy_s = (busy - self.machine_before[0]) / _TICK
        # CPU the machine spent on anything else (other people's tests, the kernel's softirqs, ...).
        self.result["other"] = max(0.0, busy_s - sum(self.result.values()))
        self.result["machine_busy_fraction"] = (busy - self.machine_before[0]) / max(1, total - self.machine_before[1])
        self.result["wall_s"] = wall


def json_dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
