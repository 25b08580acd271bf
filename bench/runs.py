"""What every bench does around its load, in the bench's own process: a fresh database and plain
access to it, the measured phases (each load phase in a process of its own, with the CPU of every
process around it), the command-line options the benches share, and the result: the head of its
JSON, the table, the file under bench/results/.

The load phases themselves (closed loops, HTTP clients) are in bench/load.py, the /proc readings
in bench/readings.py, the API-beside-floor phases in bench/api_floor.py.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.load import run_in_child
from bench.readings import CpuWindow, wait_until_quiet, warn_if_disturbed

RESULTS = Path(__file__).resolve().parent / "results"

# ----------------------------------------------------------------------------- the database


def psycopg_dsn(database_url: str) -> str:
    """The libpq DSN of a SQLAlchemy `postgresql+psycopg://` URL."""
    return database_url.replace("postgresql+psycopg://", "postgresql://", 1)


def postgres_version(database_url: str) -> str:
    """`SHOW server_version` of the server behind a SQLAlchemy PostgreSQL URL."""
    import psycopg

    with psycopg.connect(psycopg_dsn(database_url)) as conn:
        return conn.execute("SHOW server_version").fetchone()[0]


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


class Db:
    """Plain driver access (psycopg or sqlite3, autocommit) to the bench database, for seeding in
    SQL, polling and verifying. Statements use %s placeholders on both backends."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqlite = url.startswith("sqlite")
        if self.sqlite:
            import sqlite3

            self.path = url.split("///", 1)[1]
            self.conn: Any = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.conn.execute("PRAGMA busy_timeout=30000")
            self.pid = None
        else:
            import psycopg

            self.conn = psycopg.connect(psycopg_dsn(url), autocommit=True)
            self.pid = self.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
            self.name = url.rsplit("/", 1)[1]

    def __enter__(self) -> Db:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def all(self, sql: str, params: tuple = ()) -> list[tuple]:
        return list(self.conn.execute(sql if not self.sqlite else sql.replace("%s", "?"), params).fetchall())

    def execute(self, sql: str, params: tuple = ()) -> None:
        self.conn.execute(sql if not self.sqlite else sql.replace("%s", "?"), params)

    def one(self, sql: str, params: tuple = ()) -> Any:
        return self.all(sql, params)[0][0]

    def backend_pids(self) -> list[int]:
        """PostgreSQL backends serving the bench database (this connection's included)."""
        if self.sqlite:
            return []
        return [r[0] for r in self.all("SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.name,))]

    def sessions_opened(self) -> int:
        """pg_stat_database.sessions of the bench database: sessions established so far."""
        if self.sqlite:
            return 0
        return int(self.one("SELECT sessions FROM pg_stat_database WHERE datname = %s", (self.name,)))

    def timestamp(self, value: Any) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):  # SQLite: naive UTC text
            return datetime.fromisoformat(value).replace(tzinfo=UTC)
        return value

    def close(self) -> None:
        self.conn.close()


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


# ----------------------------------------------------------------------------- measured phases


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
    result["cpu_s"] = {k: round(v, 3) for k, v in window.result.items()}
    result["cpu_ms_per_request"] = window.per_item(result["requests"])
    print(
        f"  {name:<24} {result['rps']:>8.0f} req/s  p50 {result['p50_ms']:.2f} ms  p99 {result['p99_ms']:.2f} ms"
        f"  errors {result['errors']}  (machine busy {window.result['machine_busy_fraction']:.0%})",
        flush=True,
    )
    warn_if_disturbed(window.result, busy_before)
    if result["errors"] or (result.get("warmup") or {}).get("errors"):
        print(f"    first error: {result['first_error'] or result['warmup']['first_error']}", flush=True)
    return result


def phases(args: argparse.Namespace, named_pids: dict[str, int], sessions: PgMonitor) -> Callable[..., dict[str, Any]]:
    """measure() bound to a bench's --duration, --warmup and --wait-quiet and to the processes it
    reads: `phase(name, target, **kwargs)` measures `target` given `kwargs`, `duration` and `warmup`."""

    def phase(name: str, target: Any, **kwargs: Any) -> dict[str, Any]:
        timing = {"duration": args.duration, "warmup": args.warmup}
        return measure(name, target, {**kwargs, **timing}, named_pids, args.duration, sessions, args.wait_quiet)

    return phase


# ----------------------------------------------------------------------------- options and results


def add_run_options(parser: argparse.ArgumentParser, *, backend: str = "postgresql") -> None:
    """The options of every bench that runs on a fresh database: --backend, --wait-quiet,
    --no-json. A bench changes their defaults with parser.set_defaults."""
    parser.add_argument("--backend", choices=("postgresql", "sqlite"), default=backend)
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=30.0,
        help="before each measured run, wait up to this many seconds for the machine to be idle (0: do not wait)",
    )
    parser.add_argument("--no-json", action="store_true", help="do not write bench/results/*.json")


def add_bench_options(parser: argparse.ArgumentParser) -> None:
    """The options of the closed-loop benches: add_run_options, and --duration, --concurrency,
    --core-processes, --warmup, --c1-duration."""
    add_run_options(parser)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each measured run at --concurrency")
    parser.add_argument("--concurrency", type=int, default=32, help="in-flight requests (closed loop)")
    parser.add_argument("--core-processes", type=int, default=2, help="core processes sharing one port")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of warm-up before the API run")
    parser.add_argument("--c1-duration", type=float, default=3.0, help="seconds of each concurrency-1 run")


def bench_result(bench: str, module: str, args: argparse.Namespace, database_url: str | None = None) -> dict[str, Any]:
    """The head of a bench's JSON result: what ran, when, with which arguments, on which machine
    and how loaded it was (with the PostgreSQL server version when the bench runs on PostgreSQL)."""
    out: dict[str, Any] = {
        "bench": bench,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([f".venv/bin/python -m {module}", *sys.argv[1:]]),
        "args": vars(args),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "loadavg_at_start": Path("/proc/loadavg").read_text().split()[:3],
    }
    if database_url and database_url.startswith("postgresql"):
        out["machine"]["postgresql"] = postgres_version(database_url)
    return out


def json_dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")


def write_result(stem: str, backend: str | None, out: dict[str, Any]) -> Path:
    """Writes a result to bench/results/<stem>[-<backend>]-<UTC time>.json; returns the path."""
    parts = [stem, *([backend] if backend else []), f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}"]
    path = RESULTS / f"{'-'.join(parts)}.json"
    json_dump(path, out)
    return path


def run_bench(
    args: argparse.Namespace,
    run: Callable[[argparse.Namespace], dict[str, Any]],
    print_table: Callable[[dict[str, Any]], None],
    stem: str,
) -> dict[str, Any] | None:
    """Runs a bench's `run(args)` with SIGTERM turned into KeyboardInterrupt (so the processes
    stop and the database is dropped on kill too), prints its table, adds the total time
    (out["total_s"]) and, unless --no-json, writes the result with write_result (named after
    --backend when the bench has one). Returns the result, or None when interrupted."""

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
    if not getattr(args, "no_json", False):
        path = write_result(stem, getattr(args, "backend", None), out)
        print(f"wrote {path.relative_to(RESULTS.parent.parent)} ({out['total_s']} s in all)")
    return out
