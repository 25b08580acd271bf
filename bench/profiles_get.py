"""Bench: authenticated GET /v1/profiles through facade -> gRPC -> database, beside its floor.

    .venv/bin/python -m bench.profiles_get [--backend postgresql|sqlite] [--duration 10]
        [--concurrency 32] [--core-processes 2] [--client raw|httpx] [--wait-quiet 30]

1. Creates a fresh migrated database (PostgreSQL by default; dropped at the end), bootstraps one
   organization with an API key and 5 profiles (2 of them tagged).
2. Starts the real core process(es) and facade (tests/harness.running_stack).
3. From a separate load process: warms up, then runs a closed loop of --concurrency in-flight
   `GET /v1/profiles` requests for --duration seconds, then the same at concurrency 1.
   Every response's status is checked (must be 200); one body in ten is parsed and checked.
4. Stops the stack and runs the floor from a separate process: the same two SQL statements the
   core runs (the API key lookup and the page of profiles joined to their tags, compiled from the
   core's own SQLAlchemy statements with the backend's dialect), straight through psycopg 3 async,
   one transaction per request (BEGIN; q1; q2; COMMIT) on --concurrency connections, each driven
   by one task; then at concurrency 1. (SQLite: the stdlib sqlite3 module, one connection.)
5. Prints a table and writes the full result as JSON under bench/results/, with the CPU time each
   process (core(s), facade, load generator, the database's backends, anything else on the
   machine) spent per request in each run and the peak RSS (VmHWM) of the core(s) and facade.

Exit status 1 if any request failed. Ctrl-C / SIGTERM stop the processes and drop the database.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.load import (
    CpuWindow,
    closed_loop,
    httpx_workers,
    json_dump,
    peak_rss_mib,
    raw_http_workers,
    run_in_child,
    stack_pids,
    wait_until_quiet,
)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PROFILES = [("alpha", ["launch", "team"]), ("bravo", []), ("charlie", ["launch"]), ("delta", []), ("echo", [])]
TAGGED = sum(1 for _, tags in PROFILES if tags)


# ----------------------------------------------------------------------------- setup (this process)


async def seed(database_url: str) -> dict[str, str]:
    from sqlalchemy.ext.asyncio import create_async_engine

    from core import admin

    engine = create_async_engine(database_url)
    try:
        boot = await admin.bootstrap(
            engine, email="bench@example.com", password="bench-password-1", org="bench", credits_=1000, plan="active"
        )
        for slug, tags in PROFILES:
            await admin.add_profile(engine, org="bench", slug=slug, platform="x", tags=tags)
    finally:
        await engine.dispose()
    return {"api_key": boot["api_key"], "org_id": boot["org_id"]}


class _CapturingConnection:
    """Stands in for an AsyncConnection to capture the statements the core's code builds."""

    class _Empty:
        def first(self) -> None:
            return None

        def all(self) -> list[Any]:
            return []

    def __init__(self) -> None:
        self.statements: list[Any] = []

    async def execute(self, statement: Any, parameters: dict[str, Any] | None = None) -> _Empty:
        self.statements.append((statement, parameters or {}))
        return self._Empty()


async def request_path_statements(database_url: str, api_key: str, org_id: str) -> list[dict[str, Any]]:
    """The exact SQL of the request path, compiled from the core's own statements for this backend:
    (1) the API key lookup of core.identity.authentication, (2) the first page of
    core.profiles.service.list_profiles with the default page size the servicer uses."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from core.errors import Unauthorized
    from core.identity.authentication import authenticate
    from core.pagination import page_request
    from core.profiles.service import list_profiles

    capture = _CapturingConnection()
    with contextlib.suppress(Unauthorized):  # expected: the capturing connection finds no row
        await authenticate(capture, f"Bearer {api_key}", datetime.now(UTC), audience="")  # type: ignore[arg-type]
    page = page_request(0, "", default=100, maximum=500)  # as ProfileServicer.ListProfiles
    await list_profiles(capture, org_id, tag="", page=page)  # type: ignore[arg-type]
    engine = create_async_engine(database_url)
    dialect = engine.dialect
    out = []
    for statement, bound in capture.statements:
        compiled = statement.compile(dialect=dialect)
        values = compiled.construct_params(bound)
        if compiled.positiontup is not None:
            params: Any = [values[name] for name in compiled.positiontup]
        else:
            params = dict(values)
        out.append({"sql": compiled.string, "params": params})
    await engine.dispose()
    return out


# ----------------------------------------------------------------------------- load (child processes)


def check_profiles_body(body: bytes) -> str | None:
    try:
        profiles = json.loads(body)["profiles"]
    except (ValueError, KeyError, TypeError) as exc:
        return f"unparseable body ({exc}): {body[:200]!r}"
    slugs = [p["slug"] for p in profiles]
    if slugs != [slug for slug, _ in PROFILES]:
        return f"unexpected profiles {slugs}"
    if sum(1 for p in profiles if p["tags"]) != TAGGED:
        return f"unexpected tags {[p['tags'] for p in profiles]}"
    return None


async def api_load(
    window: Any, *, base_url: str, api_key: str, concurrency: int, duration: float, warmup: float, client: str
) -> dict[str, Any]:
    parts = urlsplit(base_url)
    if client == "httpx":
        workers, close = await httpx_workers(
            f"{base_url}/v1/profiles", {"Authorization": f"Bearer {api_key}"}, concurrency, check_profiles_body
        )
    else:
        raw = (
            f"GET /v1/profiles HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Authorization: Bearer {api_key}\r\nAccept: application/json\r\n\r\n"
        ).encode()
        workers, close = await raw_http_workers(parts.hostname, parts.port, raw, concurrency, check_profiles_body)
    try:
        warm = (await closed_loop(workers, warmup)).summary() if warmup else None
        await window.open()
        result = (await closed_loop(workers, duration)).summary()
        await window.close()
    finally:
        closing = close()
        if asyncio.iscoroutine(closing):
            await closing
    result["warmup"] = warm and {k: warm[k] for k in ("requests", "errors", "rps", "first_error")}
    return result


async def floor_load_postgresql(
    window: Any,
    *,
    dsn: str,
    api_key: str,
    statements: list[dict[str, Any]],
    concurrency: int,
    duration: float,
    warmup: float,
) -> dict[str, Any]:
    import psycopg

    from core.identity.credentials import parse_api_key, secret_matches

    (q1, p1), (q2, p2) = ((s["sql"], s["params"]) for s in statements)
    conns = [await psycopg.AsyncConnection.connect(dsn) for _ in range(concurrency)]

    def worker_for(conn: psycopg.AsyncConnection) -> Any:
        async def one(validate: bool) -> str | None:
            # What the core does per request, minus gRPC, SQLAlchemy and rendering:
            # parse the key, BEGIN; key lookup; hash compare; page of profiles; COMMIT.
            parse_api_key(api_key)
            try:
                row = await (await conn.execute(q1, p1)).fetchone()
                if row is None or not secret_matches(api_key, row[1]) or row[4] is not None:
                    await conn.rollback()
                    return "API key rejected"
                rows = await (await conn.execute(q2, p2)).fetchall()
                await conn.commit()
            except BaseException:
                await conn.rollback()
                raise
            if validate and (len({r[0] for r in rows}) != len(PROFILES)):
                return f"unexpected rows {rows!r}"[:300]
            return None

        return one

    workers = [worker_for(c) for c in conns]
    try:
        warm = (await closed_loop(workers, warmup)).summary() if warmup else None
        await window.open()
        result = (await closed_loop(workers, duration)).summary()
        await window.close()
    finally:
        for c in conns:
            await c.close()
    result["warmup"] = warm and {k: warm[k] for k in ("requests", "errors", "rps", "first_error")}
    return result


async def floor_load_sqlite(
    window: Any, *, path: str, api_key: str, statements: list[dict[str, Any]], duration: float, warmup: float, **_: Any
) -> dict[str, Any]:
    import sqlite3

    from bench.load import RunResult
    from core.identity.credentials import parse_api_key, secret_matches

    (q1, p1), (q2, p2) = ((s["sql"], s["params"]) for s in statements)
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=30000"):
        db.execute(f"PRAGMA {pragma}")

    def run(seconds: float) -> dict[str, Any]:
        latencies, errors, perf = [], 0, time.perf_counter
        start = perf()
        deadline = start + seconds
        while (t0 := perf()) < deadline:
            parse_api_key(api_key)
            db.execute("BEGIN")
            row = db.execute(q1, p1).fetchone()
            ok = row is not None and secret_matches(api_key, row[1]) and row[4] is None
            rows = db.execute(q2, p2).fetchall() if ok else []
            db.execute("COMMIT")
            errors += not ok or len({r[0] for r in rows}) != len(PROFILES)
            latencies.append(perf() - t0)
        return RunResult(1, perf() - start, len(latencies), errors, latencies).summary()

    warm = run(warmup) if warmup else None
    await window.open()
    result = run(duration)
    await window.close()
    db.close()
    result["warmup"] = warm and {k: warm[k] for k in ("requests", "errors", "rps", "first_error")}
    return result


# ----------------------------------------------------------------------------- orchestration


class PgMonitor:
    """Looks at the bench database from an admin connection: the backends serving it (for their
    CPU time) and how many of its sessions ended (pg_stat_database.sessions: connection churn)."""

    def __init__(self, database_url: str | None) -> None:
        self.name = database_url.rsplit("/", 1)[1] if database_url else ""
        self.conn = None
        if database_url:
            import psycopg

            from tests.harness import PG_ADMIN_DSN

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


def measure(
    name: str,
    target: Any,
    kwargs: dict[str, Any],
    named_pids: dict[str, int],
    duration: float,
    sessions: PgMonitor,
    wait_quiet: float,
) -> dict[str, Any]:
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


def postgres_version(database_url: str) -> str:
    import psycopg

    with psycopg.connect(_psycopg_dsn(database_url)) as conn:
        return conn.execute("SHOW server_version").fetchone()[0]


def _psycopg_dsn(database_url: str) -> str:
    return database_url.replace("postgresql+psycopg://", "postgresql://", 1)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from tests.harness import database, running_stack

    out: dict[str, Any] = {
        "bench": "GET /v1/profiles",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([".venv/bin/python -m bench.profiles_get", *sys.argv[1:]]),
        "args": vars(args),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
    }
    with (
        tempfile.TemporaryDirectory(prefix="herald-bench-") as tmp,
        database(args.backend, Path(tmp)) as url,
        contextlib.ExitStack() as cleanup,
    ):
        workdir = Path(tmp)
        if args.backend == "postgresql":
            out["machine"]["postgresql"] = postgres_version(url)
        seeded = asyncio.run(seed(url))
        statements = asyncio.run(request_path_statements(url, seeded["api_key"], seeded["org_id"]))
        out["floor_sql"] = [s["sql"] for s in statements]
        sessions = PgMonitor(url if args.backend == "postgresql" else None)
        cleanup.callback(sessions.close)

        print(
            f"GET /v1/profiles  backend={args.backend}  core processes={args.core_processes}  "
            f"concurrency={args.concurrency}  duration={args.duration}s  client={args.client}  cpus={os.cpu_count()}",
            flush=True,
        )
        with running_stack(url, workdir, core_processes=args.core_processes) as stack:
            pids = stack_pids(stack)
            api_kwargs = {"base_url": stack.base_url, "api_key": seeded["api_key"], "client": args.client}
            out["api"] = measure(
                "API (facade->gRPC->db)",
                api_load,
                {**api_kwargs, "concurrency": args.concurrency, "duration": args.duration, "warmup": args.warmup},
                pids,
                args.duration,
                sessions,
                args.wait_quiet,
            )
            out["api_c1"] = measure(
                "API, concurrency 1",
                api_load,
                {**api_kwargs, "concurrency": 1, "duration": args.c1_duration, "warmup": 0.5},
                pids,
                args.c1_duration,
                sessions,
                args.wait_quiet,
            )
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
        # The stack is stopped: the floor has the machine to itself, on the same database.
        if args.backend == "postgresql":
            floor_target: Any = floor_load_postgresql
            floor_kwargs: dict[str, Any] = {"dsn": _psycopg_dsn(url)}
            floor_name = "floor (psycopg direct)"
            floor_concurrency = args.concurrency
        else:
            floor_target = floor_load_sqlite
            floor_kwargs = {"path": url.split("///", 1)[1]}
            floor_name = "floor (sqlite3 direct)"
            floor_concurrency = 1  # one connection in one thread: SQLite runs in-process
        floor_kwargs.update(api_key=seeded["api_key"], statements=statements)
        out["floor"] = measure(
            floor_name,
            floor_target,
            {**floor_kwargs, "concurrency": floor_concurrency, "duration": args.duration, "warmup": 1.0},
            {},
            args.duration,
            sessions,
            args.wait_quiet,
        )
        out["floor_c1"] = measure(
            "floor, concurrency 1",
            floor_target,
            {**floor_kwargs, "concurrency": 1, "duration": args.c1_duration, "warmup": 0.5},
            {},
            args.c1_duration,
            sessions,
            args.wait_quiet,
        )
    return out


def print_table(out: dict[str, Any]) -> None:
    api, floor, api1, floor1 = out["api"], out["floor"], out["api_c1"], out["floor_c1"]
    print()
    print(f"{'path':<26}{'conc':>5}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}{'p50 ms @1':>11}")
    for name, r, r1 in (("API facade->gRPC->db", api, api1), (floor["name"], floor, floor1)):
        print(
            f"{name:<26}{r['concurrency']:>5}{r['rps']:>9.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}"
            f"{r['errors'] + r1['errors']:>8}{r1['p50_ms']:>11.2f}"
        )
    ratio = api["rps"] / floor["rps"] if floor["rps"] else float("nan")
    print(f"ratio API/floor: {ratio:.2f} of the floor's req/s; p50 @1 {api1['p50_ms'] / floor1['p50_ms']:.1f}x")
    cpu = api["cpu_ms_per_request"]
    print("CPU ms per request (API run): " + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items()))
    print(
        "CPU ms per request (floor run): " + ", ".join(f"{k} {v:.2f}" for k, v in floor["cpu_ms_per_request"].items())
    )
    print("peak RSS MiB: " + ", ".join(f"{k} {v:.0f}" for k, v in out["peak_rss_mib"].items()))
    cores = {k: v for k, v in api["cpu_s"].items() if k.startswith("core")}
    if len(cores) > 1 and min(cores.values()) < 0.1 * max(cores.values()):
        print(
            "NOTE: the core processes were unevenly loaded (CPU s: "
            + ", ".join(f"{k} {v:.1f}" for k, v in cores.items())
            + "): the facade's one gRPC channel is one HTTP/2 connection, and SO_REUSEPORT spreads"
            " connections, not calls"
        )
    out["ratio_api_floor_rps"] = round(ratio, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profiles_get", description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each measured run at --concurrency")
    parser.add_argument("--concurrency", type=int, default=32, help="in-flight requests (closed loop)")
    parser.add_argument("--core-processes", type=int, default=2, help="core processes sharing one port")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of warm-up before the API run")
    parser.add_argument("--c1-duration", type=float, default=3.0, help="seconds of each concurrency-1 run")
    parser.add_argument("--client", choices=("raw", "httpx"), default="raw", help="HTTP client of the load process")
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

    signal.signal(signal.SIGTERM, _terminate)  # clean up (processes, database) on kill too
    started = time.monotonic()
    try:
        out = run(args)
    except KeyboardInterrupt:
        print("interrupted: processes stopped, database dropped", file=sys.stderr)
        return 130
    print_table(out)
    out["total_s"] = round(time.monotonic() - started, 1)
    if not args.no_json:
        path = RESULTS / f"profiles_get-{args.backend}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
        json_dump(path, out)
        print(f"wrote {path.relative_to(ROOT)} ({out['total_s']} s in all)")
    failed = out["api"]["errors"] + out["api_c1"]["errors"] + out["floor"]["errors"] + out["floor_c1"]["errors"]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
