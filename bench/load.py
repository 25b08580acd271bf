"""Shared pieces of the benches: a closed-loop load generator that runs in its own process,
latency percentiles, and CPU / memory readings of other processes from /proc.

A load generator on a 2-core machine competes with what it measures, so it must be cheap per
request: the default HTTP client here is a minimal HTTP/1.1 keep-alive client on an asyncio
Protocol under uvloop (a few tens of microseconds of CPU per request; httpx costs several times
that and is kept as an option for comparison). It understands exactly what the facade sends
back (a status line, headers with Content-Length, a body) and counts anything else as an error.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
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


async def measured_sync_run(
    window: Window, run: Callable[[float], dict[str, Any]], duration: float, warmup: float
) -> dict[str, Any]:
    """measured_closed_loop for a load phase that drives its requests itself, synchronously:
    `run(seconds)` does requests back to back for that long and returns a RunResult summary."""
    warm = run(warmup) if warmup else None
    await window.open()
    result = run(duration)
    await window.close()
    result["warmup"] = warmup_brief(warm)
    return result


async def measured_psycopg_loop(
    window: Window, dsn: str, concurrency: int, worker_for: Callable[[Any], Worker], duration: float, warmup: float
) -> dict[str, Any]:
    """measured_closed_loop over `concurrency` psycopg 3 async connections to `dsn`, one worker
    each (`worker_for(connection)`); the connections are closed at the end."""
    import psycopg

    conns = [await psycopg.AsyncConnection.connect(dsn) for _ in range(concurrency)]
    try:
        return await measured_closed_loop(window, [worker_for(c) for c in conns], duration, warmup)
    finally:
        for c in conns:
            await c.close()


def sqlite_floor_connection(path: str) -> Any:
    """A stdlib sqlite3 connection for a floor, set up as the core's engine sets SQLite up (WAL,
    synchronous NORMAL, foreign keys, 30 s busy timeout), in autocommit mode: the floor issues
    BEGIN / COMMIT itself."""
    import sqlite3

    db = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=30000"):
        db.execute(f"PRAGMA {pragma}")
    return db


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


def stack_pids(stack: Any) -> dict[str, int]:
    """The pids of a harness.stack Stack by role: core0..N (`python -m core core`), facade
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


# ----------------------------------------------------------------------------- API beside its floor
#
# The orchestration of the benches that measure one request through the stack (facade -> gRPC ->
# database) and then its floor (the same SQL straight through the driver): bench.profiles_get,
# bench.posts_create. Each bench keeps its seed, its floor SQL and its request.

RESULTS = Path(__file__).resolve().parent / "results"


class PgMonitor:
    """Looks at the bench database from an admin connection: the backends serving it (for their
    CPU time) and how many of its sessions ended (pg_stat_database.sessions: connection churn).
    With no database_url (SQLite) it sees nothing: no backends, 0 sessions ended."""

    def __init__(self, database_url: str | None) -> None:
        self.name = database_url.rsplit("/", 1)[1] if database_url else ""
        self.conn = None
        if database_url:
            import psycopg

            from harness.stack import PG_ADMIN_DSN

            self.conn = psycopg.connect(PG_ADMIN_DSN, autocommit=True)

    def ended(self) -> int:
        if self.conn is None:
            return 0
        row = self.conn.execute("SELECT sessions FROM pg_stat_database WHERE datname = %s", (self.name,)).fetchone()
        return int(row[0])

    def backend_pids(self) -> list[int]:
        if self.conn is None:
            return []
        rows = self.conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.name,)).fetchall()
        return [r[0] for r in rows]

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def psycopg_dsn(database_url: str) -> str:
    """The libpq DSN of a SQLAlchemy `postgresql+psycopg://` URL."""
    return database_url.replace("postgresql+psycopg://", "postgresql://", 1)


def postgres_version(database_url: str) -> str:
    """`SHOW server_version` of the server behind a SQLAlchemy PostgreSQL URL."""
    import psycopg

    with psycopg.connect(psycopg_dsn(database_url)) as conn:
        return conn.execute("SHOW server_version").fetchone()[0]


@contextlib.contextmanager
def bench_database(backend: str) -> Iterator[tuple[str, Path, PgMonitor]]:
    """A fresh migrated database of `backend` (harness.stack.database, in a temporary work
    directory) for one bench: yields its SQLAlchemy URL, the work directory and a PgMonitor of
    it (sees nothing on SQLite); on leaving (Ctrl-C included) closes the monitor, drops the
    database and removes the directory."""
    from harness.stack import database

    with tempfile.TemporaryDirectory(prefix="herald-bench-") as tmp, database(backend, Path(tmp)) as url:
        sessions = PgMonitor(url if backend == "postgresql" else None)
        try:
            yield url, Path(tmp), sessions
        finally:
            sessions.close()


def analyze(database_url: str) -> None:
    """What autovacuum does on a default PostgreSQL cluster, now: fresh planner statistics of
    every table of the bench database (ANALYZE also drops the plans cached on the old ones).
    This machine's cluster runs with autovacuum off (its CI configuration): without this, the
    generic plans psycopg's prepared statements settle on while the tables are nearly empty
    (sequential scans) stay for the whole run, however large the tables grow. No-op on SQLite,
    whose planner uses no statistics unless asked to."""
    if database_url.startswith("sqlite"):
        return
    import psycopg

    with psycopg.connect(psycopg_dsn(database_url), autocommit=True) as conn:
        conn.execute("ANALYZE")


def measure(
    name: str,
    target: Any,
    kwargs: dict[str, Any],
    named_pids: dict[str, int],
    duration: float,
    sessions: PgMonitor,
    wait_quiet: float,
) -> dict[str, Any]:
    """One measured load phase: waits (up to wait_quiet s) for an idle machine, runs
    `target(window, **kwargs)` in its own process with run_in_child, and takes a CpuWindow of the
    named processes, the load process (`loadgen`), the database's backends and the rest of the
    machine around its measured loop. Returns the phase's summary with its name, the CPU seconds
    and CPU ms per request of each, and the database sessions that ended; prints one line (and a
    warning when something else used the machine, the first error if any)."""
    busy_before = wait_until_quiet(wait_quiet) if wait_quiet > 0 else float("nan")
    window = CpuWindow(named_pids, sessions.backend_pids if sessions.conn is not None else list)
    ended: list[int] = []

    def start(pid: int) -> None:
        window.start(loadgen=pid)
        ended.append(sessions.ended())

    def end() -> None:
        window.end()
        ended.append(sessions.ended())

    result = run_in_child(target, kwargs, timeout=duration + 120, on_start=start, on_end=end)
    result["name"] = name
    result["machine_busy_before"] = round(busy_before, 3)
    result["db_sessions_ended"] = ended[1] - ended[0]
    n = max(1, result["requests"])
    result["cpu_s"] = {k: round(v, 3) for k, v in window.result.items()}
    result["cpu_ms_per_request"] = {
        k: round(v * 1000 / n, 3) for k, v in window.result.items() if k not in ("machine_busy_fraction", "wall_s")
    }
    print(
        f"  {name:<24} {result['rps']:>8.0f} req/s  p50 {result['p50_ms']:.2f} ms  p99 {result['p99_ms']:.2f} ms"
        f"  errors {result['errors']}  (machine busy {window.result['machine_busy_fraction']:.0%})",
        flush=True,
    )
    other = window.result["other"] / max(1e-9, window.result["wall_s"] * (os.cpu_count() or 1))
    if other > 0.1 or busy_before >= 0.15:
        print(
            f"    WARNING: something else used the machine ({busy_before:.0%} busy before the run, "
            f"{other:.0%} of all CPU time during it): these figures are disturbed",
            flush=True,
        )
    if result["errors"] or (result.get("warmup") or {}).get("errors"):
        print(f"    first error: {result['first_error'] or result['warmup']['first_error']}", flush=True)
    return result


def add_bench_options(parser: argparse.ArgumentParser) -> None:
    """The options every API-beside-floor bench takes: --backend, --duration, --concurrency,
    --core-processes, --warmup, --c1-duration, --wait-quiet, --no-json."""
    parser.add_argument("--backend", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each measured run at --concurrency")
    parser.add_argument("--concurrency", type=int, default=32, help="in-flight requests (closed loop)")
    parser.add_argument("--core-processes", type=int, default=2, help="core processes sharing one port")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of warm-up before the API run")
    parser.add_argument("--c1-duration", type=float, default=3.0, help="seconds of each concurrency-1 run")
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=30.0,
        help="before each run, wait up to this many seconds for the machine to be idle (0: do not wait)",
    )
    parser.add_argument("--no-json", action="store_true", help="do not write bench/results/*.json")


def bench_result(bench: str, module: str, args: argparse.Namespace, database_url: str) -> dict[str, Any]:
    """The head of a bench's JSON result: what ran, when, with which arguments, on which machine
    (with the PostgreSQL server version when the backend is PostgreSQL)."""
    out: dict[str, Any] = {
        "bench": bench,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([f".venv/bin/python -m {module}", *sys.argv[1:]]),
        "args": vars(args),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
    }
    if args.backend == "postgresql":
        out["machine"]["postgresql"] = postgres_version(database_url)
    return out


def _measure_with_c1(
    out: dict[str, Any],
    key: str,
    name: str,
    short_name: str,
    target: Any,
    kwargs: dict[str, Any],
    concurrency: int,
    warmup: float,
    named_pids: dict[str, int],
    args: argparse.Namespace,
    sessions: PgMonitor,
) -> None:
    """A phase at `concurrency` for --duration after `warmup` s (out[key]), then the same at
    concurrency 1 for --c1-duration after 0.5 s of warm-up (out[key + "_c1"])."""
    for suffix, label, in_flight, seconds, warm in (
        ("", name, concurrency, args.duration, warmup),
        ("_c1", f"{short_name}, concurrency 1", 1, args.c1_duration, 0.5),
    ):
        out[key + suffix] = measure(
            label,
            target,
            {**kwargs, "concurrency": in_flight, "duration": seconds, "warmup": warm},
            named_pids,
            seconds,
            sessions,
            args.wait_quiet,
        )


def measure_api_runs(
    out: dict[str, Any],
    stack: Any,
    api_load: Any,
    api_kwargs: dict[str, Any],
    args: argparse.Namespace,
    sessions: PgMonitor,
) -> None:
    """The API phases against a running harness.stack Stack: `api_load` at --concurrency for
    --duration after --warmup (out["api"]), then at concurrency 1 for --c1-duration
    (out["api_c1"]), with the CPU of the stack's processes; then the peak RSS of each
    (out["peak_rss_mib"]), read while they still run."""
    pids = stack_pids(stack)
    _measure_with_c1(
        out,
        "api",
        "API (facade->gRPC->db)",
        "API",
        api_load,
        api_kwargs,
        args.concurrency,
        args.warmup,
        pids,
        args,
        sessions,
    )
    out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}


def measure_floor_runs(
    out: dict[str, Any],
    database_url: str,
    args: argparse.Namespace,
    sessions: PgMonitor,
    *,
    postgresql: Any,
    sqlite: Any,
    floor_kwargs: dict[str, Any],
) -> None:
    """The floor phases, once the stack is stopped: the bench's `postgresql(window, dsn=...)` on
    --concurrency connections, or its `sqlite(window, path=...)` on one (SQLite runs in-process),
    each also given `floor_kwargs`, for --duration after 1 s of warm-up (out["floor"]), then at
    concurrency 1 for --c1-duration (out["floor_c1"])."""
    if args.backend == "postgresql":
        target = postgresql
        kwargs: dict[str, Any] = {"dsn": psycopg_dsn(database_url)}
        name = "floor (psycopg direct)"
        concurrency = args.concurrency
    else:
        target = sqlite
        kwargs = {"path": database_url.split("///", 1)[1]}
        name = "floor (sqlite3 direct)"
        concurrency = 1  # one connection in one thread: SQLite runs in-process
    kwargs.update(floor_kwargs)
    _measure_with_c1(out, "floor", name, "floor", target, kwargs, concurrency, 1.0, {}, args, sessions)


def print_api_floor_table(out: dict[str, Any], ratio_note: str = "") -> None:
    """Prints the API and floor runs side by side (req/s, p50, p99, errors, p50 at concurrency 1),
    the API/floor ratio (followed by `ratio_note`), the CPU ms per request of each process in both
    runs and the peak RSS; records the ratio as out["ratio_api_floor_rps"]."""
    api, floor, api1, floor1 = out["api"], out["floor"], out["api_c1"], out["floor_c1"]
    print()
    print(f"{'path':<26}{'conc':>5}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}{'p50 ms @1':>11}")
    for name, r, r1 in (("API facade->gRPC->db", api, api1), (floor["name"], floor, floor1)):
        print(
            f"{name:<26}{r['concurrency']:>5}{r['rps']:>9.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}"
            f"{r['errors'] + r1['errors']:>8}{r1['p50_ms']:>11.2f}"
        )
    ratio = api["rps"] / floor["rps"] if floor["rps"] else float("nan")
    print(
        f"ratio API/floor: {ratio:.2f} of the floor's req/s{ratio_note}; p50 @1 {api1['p50_ms'] / floor1['p50_ms']:.1f}x"
    )
    print("CPU ms per request (API run): " + ", ".join(f"{k} {v:.2f}" for k, v in api["cpu_ms_per_request"].items()))
    print(
        "CPU ms per request (floor run): " + ", ".join(f"{k} {v:.2f}" for k, v in floor["cpu_ms_per_request"].items())
    )
    print("peak RSS MiB: " + ", ".join(f"{k} {v:.0f}" for k, v in out["peak_rss_mib"].items()))
    out["ratio_api_floor_rps"] = round(ratio, 3)


def run_bench(
    args: argparse.Namespace,
    run: Callable[[argparse.Namespace], dict[str, Any]],
    print_table: Callable[[dict[str, Any]], None],
    stem: str,
) -> dict[str, Any] | None:
    """Runs a bench's `run(args)` with SIGTERM turned into KeyboardInterrupt (so the processes
    stop and the database is dropped on kill too), prints its table, adds the total time
    (out["total_s"]) and, unless --no-json, writes the result to bench/results/<stem>-<backend>-
    <UTC time>.json. Returns the result, or None when interrupted."""

    def _terminate(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _terminate)
    started = time.monotonic()
    try:
        out = run(args)
    except KeyboardInterrupt:
        print("interrupted: processes stopped, database dropped", file=sys.stderr)
        return None
    print_table(out)
    out["total_s"] = round(time.monotonic() - started, 1)
    if not args.no_json:
        path = RESULTS / f"{stem}-{args.backend}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
        json_dump(path, out)
        print(f"wrote {path.relative_to(RESULTS.parent.parent)} ({out['total_s']} s in all)")
    return out
