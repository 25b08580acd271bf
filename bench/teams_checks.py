"""Bench: what the team checks (roles, approvals, profile limits, email verification) cost each
POST /v1/posts, split into their parts and set against the whole request's core CPU.

    .venv/bin/python -m bench.teams_checks [--lookups 20000] [--checks 200000] [--no-reference]

The checks add no statement of their own: the member's role and profile limits and the
organization's approval and verification settings ride on the API key lookup every request runs
anyway. So their cost is (1) the wider lookup: the same Prepared statement with and without those
seven columns, run through the core's own driver path (core/db/prepared.py) on one connection,
alternated in blocks of 500 so a slower moment of the machine falls on both; (2) the Python that
reads and applies them: turning the row's fields into the principal's (`_member`), the method's
permission check (`require_permission` with CreatePosts' permission), deciding whether the author's posts wait
(`author_of`, `Author.waiting` with no tags: no query) and the verification flag; (3) for
comparison, not part of the checks: the audit log's row on the same path (its INSERT, as creation
sends it in its pipelined round trip; here each one a statement of its own in an open transaction,
so its round trip is counted and no commit is).

The reference is the CPU per `POST /v1/posts` measured in the same run by bench.posts_create, run
as a process of its own (PostgreSQL, 2 core processes, 32 in flight, 10 s); `--no-reference`
skips it (and the ratios). The lookups' CPU is counted on both sides: this process's
(time.process_time: the driver's client side and the Python, as the core spends them) and the
PostgreSQL backend's (/proc).

Prints a table; writes bench/results/teams-checks-<time>.json unless --no-json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from datetime import UTC, datetime
from statistics import median
from typing import Any

from sqlalchemy import bindparam, select, text
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from bench.readings import cpu_seconds
from bench.runs import RESULTS, add_run_options, bench_database, bench_result, run_bench
from bench.seed import seed_organization
from core.audit import record as audit
from core.db.models import api_keys
from core.db.prepared import Prepared
from core.identity import authentication
from core.identity.credentials import parse_api_key
from core.identity.principal import CredentialKind, Principal
from core.identity.scopes import ALL_SCOPES
from core.posts import approvals
from core.posts.servicer import POLICIES as POST_POLICIES
from core.rpc.policy import require_permission

BLOCK = 1000
# The API key lookup as it was before the team checks: the same key, organization and membership,
# without the team's columns.
_BEFORE = Prepared(
    select(*authentication.API_KEY_COLUMNS)
    .select_from(authentication.API_KEY_FROM)
    .where(api_keys.c.key_id == bindparam("key_id"))
)
_NOW = authentication._API_KEY_LOOKUP


async def _lookups(conn: AsyncConnection, key_id: str, count: int) -> dict[str, dict[str, float]]:
    """Each lookup's µs, before and now, alternated block by block: wall time (medians of the
    blocks), this process's CPU (median) and the PostgreSQL backend's CPU (its /proc ticks summed
    over all the blocks of a form, as ticks are 10 ms coarse): CPU moves little with the machine's
    load, wall time with everything else running."""
    backend = await conn.scalar(text("SELECT pg_backend_pid()"))
    samples: dict[str, dict[str, list[float]]] = {"before": {"wall": [], "cpu": []}, "now": {"wall": [], "cpu": []}}
    server = {"before": 0.0, "now": 0.0}
    params = {"key_id": key_id}
    for statement in (_BEFORE, _NOW):  # warm both: compiled, prepared on the server
        for _ in range(50):
            assert await statement.first(conn, params) is not None
    blocks = count // BLOCK
    for block in range(blocks):
        order = (("before", _BEFORE), ("now", _NOW)) if block % 2 == 0 else (("now", _NOW), ("before", _BEFORE))
        for name, statement in order:
            wall, cpu, served = time.perf_counter(), time.process_time(), cpu_seconds(backend)
            for _ in range(BLOCK):
                await statement.first(conn, params)
            samples[name]["wall"].append((time.perf_counter() - wall) / BLOCK * 1e6)
            samples[name]["cpu"].append((time.process_time() - cpu) / BLOCK * 1e6)
            server[name] += cpu_seconds(backend) - served
    out = {name: {kind: round(median(values), 2) for kind, values in s.items()} for name, s in samples.items()}
    for name, seconds in server.items():
        out[name]["server_cpu"] = round(seconds / (blocks * BLOCK) * 1e6, 2)
    return out


def _principal(row: Any, *, team: bool = True) -> Principal:
    """The key's principal as authentication makes it; `team=False`: without the team's fields."""
    return Principal(
        user_id=row.user_id,
        org_id=row.org_id,
        org_slug=row.slug,
        credential_kind=CredentialKind.API_KEY,
        credential_id=row.id,
        scopes=ALL_SCOPES,
        plan=row.plan,
        credit_balance=row.credit_balance,
        **(authentication._member(row) if team else {}),
    )


async def _checks(row: Any, count: int) -> float:
    """CPU µs of the Python that reads and applies the team settings, per request."""
    policy = POST_POLICIES["CreatePosts"]
    profile_ids = ["p1", "p2", "p3"]
    waiting = 0
    started = time.process_time()
    for _ in range(count):
        principal = _principal(row)
        require_permission(principal, policy.permission)
        author = approvals.author_of(principal)
        waiting += len(await author.waiting(None, profile_ids))  # type: ignore[arg-type]  # no tags: no query
        waiting += principal.awaiting_verification
    per = (time.process_time() - started) / count * 1e6
    # The same principal made without the team fields: what is left is the checks' own cost.
    started = time.process_time()
    for _ in range(count):
        _principal(row, team=False)
    assert waiting == 0, "an owner's key with no approval settings: nothing waits"
    return round(per - (time.process_time() - started) / count * 1e6, 3)


async def _audit_rows(conn: AsyncConnection, principal: Principal, count: int) -> dict[str, float]:
    """The audit row's cost: building the pending event and its INSERT, µs per request, inside a
    transaction that is open already (as creation's is: the row adds a statement, not a commit)."""
    async with conn.begin():
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(count):
            event = audit.pending(principal, "posts.CreatePosts", None, datetime.now(UTC), "bench")
            assert event is not None
            event.names("post_group", "pgr_bench")
            await event.write(conn)
        measured = {
            "wall": round((time.perf_counter() - wall) / count * 1e6, 2),
            "cpu": round((time.process_time() - cpu) / count * 1e6, 2),
        }
    return measured


async def _measure(url: str, api_key: str, lookups: int, checks: int) -> dict[str, Any]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            key_id = parse_api_key(api_key)
            assert key_id is not None
            lookup = await _lookups(conn, key_id, lookups)
            await conn.rollback()
            row = await _NOW.first(conn, {"key_id": key_id})
            await conn.rollback()
            in_process = await _checks(row, checks)
            audit_row = await _audit_rows(conn, _principal(row), max(lookups // 10, 100))
    finally:
        await engine.dispose()
    return {"lookup_us": lookup, "checks_cpu_us": in_process, "audit_row_us": audit_row}


def _reference() -> dict[str, Any]:
    """bench.posts_create run as its own process (a bench never imports another): the core's,
    the facade's and PostgreSQL's CPU per request, from the result it writes."""
    started = time.time()
    subprocess.run([sys.executable, "-m", "bench.posts_create", "--wait-quiet", "30"], check=True)
    written = [p for p in RESULTS.glob("posts_create-postgresql-*.json") if p.stat().st_mtime >= started]
    out = json.loads(max(written, key=lambda p: p.stat().st_mtime).read_text())
    cpu = out["api"]["cpu_ms_per_request"]
    cores = [v for k, v in cpu.items() if k.startswith("core")]
    # Each core process's CPU is divided by all the requests (per_item): the core's is their sum.
    total = sum(cores) + cpu.get("facade", 0) + cpu.get("postgres", 0)
    return {
        "rps": round(out["api"]["rps"]),
        "core_cpu_ms": round(sum(cores), 3),
        "total_cpu_ms": round(total, 3),
        "cpu_ms": cpu,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    with bench_database("postgresql") as (url, _workdir, _sessions):
        out = bench_result("team checks on POST /v1/posts", "bench.teams_checks", args, url)
        seeded = asyncio.run(seed_organization(url))
        out.update(asyncio.run(_measure(url, seeded["api_key"], args.lookups, args.checks)))
    if not args.no_reference:
        out["reference"] = _reference()
    lookup = out["lookup_us"]
    # The lookup's added time counts whole (client CPU and the server's share of the wider row).
    # The wider row's cost: both sides' CPU (this process's, as the core's driver spends it, and the
    # PostgreSQL backend's); wall time is printed too but moves with whatever else runs.
    out["lookup_delta_us"] = round(
        lookup["now"]["cpu"] + lookup["now"]["server_cpu"] - lookup["before"]["cpu"] - lookup["before"]["server_cpu"], 2
    )
    out["checks_us"] = round(max(out["lookup_delta_us"], 0) + out["checks_cpu_us"], 2)
    if "reference" in out:
        out["checks_share"] = round(out["checks_us"] / (out["reference"]["core_cpu_ms"] * 1000), 4)
        out["checks_share_total"] = round(out["checks_us"] / (out["reference"]["total_cpu_ms"] * 1000), 4)
        out["audit_share"] = round(out["audit_row_us"]["cpu"] / (out["reference"]["core_cpu_ms"] * 1000), 4)
    return out


def print_table(out: dict[str, Any]) -> None:
    lookup = out["lookup_us"]
    print(f"\n{out['bench']}  (alternated blocks of {BLOCK})")
    for name, label in (("before", "API key lookup before the team columns"), ("now", "API key lookup now")):
        one = lookup[name]
        print(
            f"  {label:<39} {one['wall']:>7.1f} µs wall  {one['cpu']:>6.1f} µs CPU here"
            f"  {one['server_cpu']:>6.1f} µs CPU in PostgreSQL"
        )
    print(
        f"  the lookup's CPU difference (now − before)   {out['lookup_delta_us']:>6.1f} µs (a negative one counts as 0)"
    )
    print(f"  the checks in Python, per request            {out['checks_cpu_us']:>6.1f} µs CPU")
    print(f"  team checks in all                           {out['checks_us']:>6.1f} µs CPU")
    audit_row = out["audit_row_us"]
    print(
        f"  for comparison, the audit row                {audit_row['cpu']:>6.1f} µs CPU here ({audit_row['wall']:.1f} µs wall)"
    )
    if "reference" in out:
        ref = out["reference"]
        print(
            f"  POST /v1/posts: {ref['rps']} req/s; CPU per request: core {ref['core_cpu_ms']:.3f} ms,"
            f" core + facade + PostgreSQL {ref['total_cpu_ms']:.3f} ms"
        )
        print(
            f"  team checks: {out['checks_share']:.2%} of the core's CPU, {out['checks_share_total']:.2%} of the whole"
            f" request's (aim ≤ 5%); the audit row: {out['audit_share']:.2%} of the core's"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.teams_checks", description=__doc__.split("\n")[0])
    add_run_options(parser)
    parser.add_argument("--lookups", type=int, default=40_000, help="API key lookups of each form")
    parser.add_argument("--checks", type=int, default=200_000, help="rounds of the in-process checks")
    parser.add_argument("--no-reference", action="store_true", help="skip bench.posts_create's run")
    args = parser.parse_args(argv)
    return 0 if run_bench(args, run, print_table, "teams-checks") is not None else 1


if __name__ == "__main__":
    raise SystemExit(main())
