"""Bench: authenticated GET /v1/profiles through facade -> gRPC -> database, beside its floor.

    .venv/bin/python -m bench.profiles_get [--backend postgresql|sqlite] [--duration 10]
        [--concurrency 32] [--core-processes 2] [--client raw|httpx] [--wait-quiet 30]

1. Creates a fresh migrated database (PostgreSQL by default; dropped at the end), bootstraps one
   organization with an API key and 5 profiles (2 of them tagged).
2. Starts the real core process(es) and facade (harness/stack.py, running_stack).
3. From a separate load process: warms up, then runs a closed loop of --concurrency in-flight
   `GET /v1/profiles` requests for --duration seconds, then the same at concurrency 1.
   Every response's status is checked (must be 200); one body in ten is parsed and checked.
4. Stops the stack and runs the floor from a separate process: the same two SQL statements the
   core runs (the API key lookup and the page of profiles joined to their tags, captured as the
   core's own code sends them to the driver, with their parameters), straight through psycopg 3 async,
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
import json
import os
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from bench.api_floor import (
    captured_statements,
    measure_api_then_floor,
    measured_psycopg_loop,
    measured_sqlite_loop,
    print_api_floor_table,
)
from bench.load import (
    httpx_workers,
    measured_closed_loop,
    raw_http_workers,
)
from bench.runs import (
    add_bench_options,
    bench_database,
    bench_result,
    run_bench,
)
from bench.seed import seed_organization

PROFILES = [("alpha", ["launch", "team"]), ("bravo", []), ("charlie", ["launch"]), ("delta", []), ("echo", [])]
TAGGED = sum(1 for _, tags in PROFILES if tags)


# ----------------------------------------------------------------------------- setup (this process)


async def request_path_statements(database_url: str, api_key: str, org_id: str) -> list[dict[str, Any]]:
    """The exact SQL of the request path, as the core's own code sends it to the driver
    (captured_statements): (1) the API key lookup of core.identity.authentication, (2) the first
    page of core.profiles.service.list_profiles."""
    from core.identity.authentication import authenticate
    from core.pagination import page_request
    from core.profiles.service import list_profiles
    from core.profiles.servicer import POLICIES

    async def work(conn: Any) -> None:
        await authenticate(conn, f"Bearer {api_key}", datetime.now(UTC), audience="")
        # The first page, of the default size, as ProfileServicer.ListProfiles asks for it.
        await list_profiles(conn, org_id, tag="", page=page_request(0, "", POLICIES["ListProfiles"].page))

    statements, _ = await captured_statements(database_url, work)
    if len(statements) != 2 or "api_keys" not in statements[0]["sql"] or "profiles" not in statements[1]["sql"]:
        raise RuntimeError(f"unexpected request path: {[s['sql'][:60] for s in statements]}")
    return statements


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
        return await measured_closed_loop(window, workers, duration, warmup)
    finally:
        closing = close()
        if asyncio.iscoroutine(closing):
            await closing


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

    return await measured_psycopg_loop(window, dsn, concurrency, worker_for, duration, warmup)


async def floor_load_sqlite(
    window: Any, *, path: str, api_key: str, statements: list[dict[str, Any]], duration: float, warmup: float, **_: Any
) -> dict[str, Any]:
    from core.identity.credentials import parse_api_key, secret_matches

    (q1, p1), (q2, p2) = ((s["sql"], s["params"]) for s in statements)

    def one_for(db: Any) -> Any:
        def one() -> str | None:
            parse_api_key(api_key)
            db.execute("BEGIN")
            row = db.execute(q1, p1).fetchone()
            ok = row is not None and secret_matches(api_key, row[1]) and row[4] is None
            rows = db.execute(q2, p2).fetchall() if ok else []
            db.execute("COMMIT")
            if not ok:
                return "API key rejected"
            return None if len({r[0] for r in rows}) == len(PROFILES) else f"unexpected profiles {rows!r}"[:300]

        return one

    return await measured_sqlite_loop(window, path, one_for, duration, warmup)


# ----------------------------------------------------------------------------- orchestration


def run(args: argparse.Namespace) -> dict[str, Any]:
    with bench_database(args.backend) as (url, workdir, sessions):
        out = bench_result("GET /v1/profiles", "bench.profiles_get", args, url)
        seeded = asyncio.run(
            seed_organization(url, profiles=[(slug, "x") for slug, _ in PROFILES], tags=dict(PROFILES), credits=1000)
        )
        statements = asyncio.run(request_path_statements(url, seeded["api_key"], seeded["org_id"]))
        out["floor_sql"] = [s["sql"] for s in statements]

        print(
            f"GET /v1/profiles  backend={args.backend}  core processes={args.core_processes}  "
            f"concurrency={args.concurrency}  duration={args.duration}s  client={args.client}  cpus={os.cpu_count()}",
            flush=True,
        )
        measure_api_then_floor(
            out,
            url,
            workdir,
            args,
            sessions,
            api_load=api_load,
            api_kwargs={"api_key": seeded["api_key"], "client": args.client},
            postgresql=floor_load_postgresql,
            sqlite=floor_load_sqlite,
            floor_kwargs={"api_key": seeded["api_key"], "statements": statements},
        )
    return out


def print_table(out: dict[str, Any]) -> None:
    print_api_floor_table(out)
    cores = {k: v for k, v in out["api"]["cpu_s"].items() if k.startswith("core")}
    if len(cores) > 1 and min(cores.values()) < 0.1 * max(cores.values()):
        print(
            "NOTE: the core processes were unevenly loaded (CPU s: "
            + ", ".join(f"{k} {v:.1f}" for k, v in cores.items())
            + "): the facade's one gRPC channel is one HTTP/2 connection, and SO_REUSEPORT spreads"
            " connections, not calls"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profiles_get", description=__doc__.split("\n")[0])
    add_bench_options(parser)
    parser.add_argument("--client", choices=("raw", "httpx"), default="raw", help="HTTP client of the load process")
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "profiles_get")
    if out is None:
        return 130
    failed = out["api"]["errors"] + out["api_c1"]["errors"] + out["floor"]["errors"] + out["floor_c1"]["errors"]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
