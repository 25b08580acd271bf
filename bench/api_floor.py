"""The API beside its floor: bench.profiles_get and bench.posts_create measure one request through
the stack (facade -> gRPC -> database), then its floor: the same SQL straight through the driver
(psycopg 3 async on PostgreSQL, the stdlib sqlite3 module on SQLite), on the same database with
the stack stopped. Each phase runs at --concurrency, then at 1 in flight. Each bench keeps its
seed, its request and its floor's SQL; this module drives the floors, runs the phases and prints
them side by side. The dashboard's benches (bench.dashboard_pages) take its capture, and its
replay of the captured statements as they are (`replayed_load`), for the reads their pages make.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.load import RunResult, Window, Worker, measured_closed_loop, warmup_brief
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import PgMonitor, measure, psycopg_dsn

# ----------------------------------------------------------------------------- the floor's SQL


async def captured_statements(database_url: str, work: Callable[[Any], Awaitable[Any]]) -> tuple[list[dict], Any]:
    """Runs `work(connection)` (the core's own code for one request) on a real connection, in a
    transaction rolled back at the end, and records every statement at the driver boundary as
    the driver gets it: SQL text, parameters, executemany or not (a `before_cursor_execute`
    listener; the core's driver-direct statements, core/db/prepared.py, announce themselves to
    it too). Returns the statements, transaction control left out, and what `work` returned."""
    from sqlalchemy import event
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(database_url)
    seen: list[dict[str, Any]] = []

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        seen.append({"sql": statement, "params": parameters, "executemany": executemany})

    try:
        async with engine.connect() as conn:
            transaction = await conn.begin()
            returned = await work(conn)
            await transaction.rollback()
    finally:
        await engine.dispose()
    control = ("BEGIN", "ROLLBACK", "COMMIT")
    return [s for s in seen if not s["sql"].lstrip().upper().startswith(control)], returned


# ----------------------------------------------------------------------------- the floors' drivers
# (in the load process)


def sync_closed_loop(one: Callable[[], str | None], seconds: float) -> RunResult:
    """Calls one() back to back in this thread for `seconds`: one request in flight (a floor on
    SQLite, which runs in-process). one() returns None when the request succeeded, else what
    went wrong."""
    latencies: list[float] = []
    errors, first, perf = 0, "", time.perf_counter
    start = perf()
    deadline = start + seconds
    while (t0 := perf()) < deadline:
        failure = one()
        if failure:
            errors += 1
            first = first or failure
        latencies.append(perf() - t0)
    return RunResult(1, perf() - start, len(latencies), errors, latencies, first_error=first)


async def measured_sync_run(
    window: Window, one: Callable[[], str | None], duration: float, warmup: float
) -> dict[str, Any]:
    """measured_closed_loop for a load phase whose requests run synchronously in this thread:
    sync_closed_loop of one() for `warmup`, then for `duration` in the parent's window."""
    warm = sync_closed_loop(one, warmup).summary() if warmup else None
    await window.open()
    result = sync_closed_loop(one, duration).summary()
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


async def measured_sqlite_loop(
    window: Window, path: str, one_for: Callable[[Any], Callable[[], str | None]], duration: float, warmup: float
) -> dict[str, Any]:
    """measured_sync_run of `one_for(connection)` on one stdlib sqlite3 connection to the file
    at `path`, set up as the core's engine sets SQLite up (WAL, synchronous NORMAL, foreign keys,
    30 s busy timeout), in autocommit mode: the floor issues BEGIN / COMMIT itself. Closed at the
    end."""
    import sqlite3

    db = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=30000"):
        db.execute(f"PRAGMA {pragma}")
    try:
        return await measured_sync_run(window, one_for(db), duration, warmup)
    finally:
        db.close()


async def replayed_load(
    window: Window, *, url: str, statements: list[dict[str, Any]], duration: float, warmup: float
) -> dict[str, Any]:
    """A load phase (bench.runs.measure): captured statements replayed as they are, every row
    fetched, one transaction per request, one request in flight on one connection of the driver
    (psycopg 3 async on PostgreSQL, sqlite3 on SQLite). The floor of a read whose SQL does not
    change from one request to the next."""
    if url.startswith("sqlite"):

        def one_for(db: Any) -> Callable[[], str | None]:
            def one() -> str | None:
                db.execute("BEGIN")
                for s in statements:
                    db.execute(s["sql"], s["params"]).fetchall()
                db.execute("COMMIT")
                return None

            return one

        return await measured_sqlite_loop(window, url.split("///", 1)[1], one_for, duration, warmup)

    def worker_for(conn: Any) -> Worker:
        async def one(validate: bool) -> str | None:
            try:
                for s in statements:
                    await (await conn.execute(s["sql"], s["params"])).fetchall()
                await conn.commit()
            except BaseException:
                await conn.rollback()
                raise
            return None

        return one

    return await measured_psycopg_loop(window, psycopg_dsn(url), 1, worker_for, duration, warmup)


# ----------------------------------------------------------------------------- the phases (in the bench's process)


def _measure_with_c1(
    out: dict[str, Any],
    key: str,
    names: tuple[str, str],
    target: Any,
    kwargs: dict[str, Any],
    concurrency: int,
    warmup: float,
    named_pids: dict[str, int],
    args: argparse.Namespace,
    sessions: PgMonitor,
) -> None:
    """A phase at `concurrency` for --duration after `warmup` s (out[key]), then the same at
    concurrency 1 for --c1-duration after 0.5 s of warm-up (out[key + "_c1"]). `names`: the
    phase's name, and the short one the concurrency-1 run is named after."""
    name, short_name = names
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


def _api_runs(
    out: dict[str, Any], stack: Any, api_load: Any, api_kwargs: dict[str, Any], args: argparse.Namespace, sessions: Any
) -> None:
    """The API phases against a running harness.stack Stack: `api_load` at --concurrency for
    --duration after --warmup (out["api"]), then at concurrency 1 for --c1-duration
    (out["api_c1"]), with the CPU of the stack's processes; then the peak RSS of each
    (out["peak_rss_mib"]), read while they still run."""
    pids = stack_pids(stack)
    names = ("API (facade->gRPC->db)", "API")
    _measure_with_c1(out, "api", names, api_load, api_kwargs, args.concurrency, args.warmup, pids, args, sessions)
    out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}


def _floor_runs(
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
    _measure_with_c1(out, "floor", (name, "floor"), target, kwargs, concurrency, 1.0, {}, args, sessions)


def measure_api_then_floor(
    out: dict[str, Any],
    database_url: str,
    workdir: Path,
    args: argparse.Namespace,
    sessions: PgMonitor,
    *,
    api_load: Any,
    api_kwargs: dict[str, Any],
    postgresql: Any,
    sqlite: Any,
    floor_kwargs: dict[str, Any],
    after_api: Callable[[], None] = lambda: None,
) -> None:
    """The whole of an API-beside-floor bench's measurement: the stack (--core-processes cores
    and the facade, no worker) and _api_runs against it, `api_kwargs` plus its base_url;
    then, the stack stopped (`after_api()` runs there) so the floor has the machine to itself on
    the same database, _floor_runs."""
    from harness.stack import running_stack

    with running_stack(database_url, workdir, core_processes=args.core_processes) as stack:
        _api_runs(out, stack, api_load, {"base_url": stack.base_url, **api_kwargs}, args, sessions)
    after_api()
    _floor_runs(out, database_url, args, sessions, postgresql=postgresql, sqlite=sqlite, floor_kwargs=floor_kwargs)


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
    for run, r in (("API", api), ("floor", floor)):
        print(
            f"CPU ms per request ({run} run): " + ", ".join(f"{k} {v:.2f}" for k, v in r["cpu_ms_per_request"].items())
        )
    print("peak RSS MiB: " + ", ".join(f"{k} {v:.0f}" for k, v in out["peak_rss_mib"].items()))
    out["ratio_api_floor_rps"] = round(ratio, 3)
