"""Bench: publisher throughput, posts delivered per second to the sandbox by 1, 2, 4 workers.

    .venv/bin/python -m bench.publisher_throughput [--backend postgresql|sqlite] [--posts 2000]
        [--workers 1 2 4] [--latency-ms 0 [50 ...]] [--batch-size N] [--wait-quiet 30]

For each simulated platform latency (HERALD_SANDBOX_LATENCY_MS, default 0: pure overhead) and
each worker count K, on one fresh migrated database (dropped at the end), emptied between runs:

1. Seeds one organization with enough credits (2 x posts) and 4 profiles (x, bluesky, mastodon,
   linkedin); resets the posts, outbox, post_media and ledger tables.
2. Starts K real `python -m core worker` processes (env from harness.stack.stack_env with
   HERALD_PUBLISH_POLL_SECONDS=0.05, the default batch size unless --batch-size) and waits until
   each is up and polling the empty queue (PostgreSQL: each has a connection to the server;
   SQLite: each has the database file open), and their CPU has settled (bench/workers.py).
   Process start-up is therefore not in the measurement.
3. Creates the N posts with core.posts.create.create_posts (4 profiles per call) in ONE
   transaction: all N become due at its COMMIT. The clock starts at that commit.
4. Polls the database every 100 ms until every post is in a final state. The end is the largest
   `published_at` the workers wrote (so the 100 ms polling does not blur it); also reported: the
   time from the commit to the first claim (first `post_delivery` ledger row).
5. Verifies: every post `published`, outbox rows == N, distinct outbox post ids == N, N debits.
   Reports posts/s, CPU ms per post of the workers (together), PostgreSQL's backends, this
   process's polling and anything else on the machine, and the workers' peak RSS.

Prints a table and writes the full result as JSON under bench/results/. Exit status 1 if a run
did not deliver every post exactly once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from typing import Any

from bench.readings import BackendTracker, CpuWindow, peak_rss_mib, wait_until_quiet, warn_if_disturbed
from bench.runs import Db, add_run_options, bench_database, bench_result, run_bench
from bench.seed import seed_organization
from bench.workers import (
    create_posts,
    delivered_once,
    delivery_counts,
    reset_deliveries,
    start_workers,
    wait_until_final,
    wait_workers_ready,
    worker_log_problems,
    workers_cpu,
)
from harness.stack import stop_processes

PLATFORMS = ("x", "bluesky", "mastodon", "linkedin")
SLUGS = [f"p-{p}" for p in PLATFORMS]


def one_run(
    db: Db, stack: Any, org_id: str, *, n: int, k: int, latency_ms: int, args: argparse.Namespace
) -> dict[str, Any]:
    reset_deliveries(db, org_id, credits=2 * n)
    env = {"HERALD_PUBLISH_POLL_SECONDS": "0.05", "HERALD_SANDBOX_LATENCY_MS": str(latency_ms)}
    if args.batch_size:
        env["HERALD_PUBLISH_BATCH_SIZE"] = str(args.batch_size)
    procs = start_workers(stack, k, env)
    try:
        startup_s = wait_workers_ready(procs, db.path if db.sqlite else None)
        busy_before = wait_until_quiet(args.wait_quiet) if args.wait_quiet > 0 else float("nan")
        named = {f"worker{i}": p.pid for i, p in enumerate(procs)}
        named["bench"] = os.getpid()  # this process: seeding is outside the window, polling inside
        window = CpuWindow(named)
        backends = BackendTracker(db.backend_pids)
        sessions_before = db.sessions_opened()

        def open_window() -> None:
            window.start()
            backends.start()

        # The window opens right before the COMMIT that makes the posts due (the seeding's own
        # statements are outside it; the COMMIT's flush is inside, in `postgres`).
        calls = n // len(SLUGS)
        contents = [f"Bench post {i}: publisher throughput." for i in range(calls)]
        committed, _ = asyncio.run(create_posts(db.url, org_id, contents, [SLUGS] * calls, [None] * calls, open_window))
        wait_until_final(db, n, procs, time.monotonic() + args.timeout, lambda polls: backends.sample())
        backends.sample()
        window.end()
        if not db.sqlite:
            backends.move_into(window)
        rss = {name: round(peak_rss_mib(pid), 1) for name, pid in named.items() if name != "bench"}
        sessions_opened = db.sessions_opened() - sessions_before
    finally:
        stop_processes(procs)
    counts = delivery_counts(db)
    last_published = db.timestamp(db.one("SELECT max(published_at) FROM posts"))
    first_claim = db.timestamp(
        db.one("SELECT min(created_at) FROM credit_ledger WHERE reason = %s", ("post_delivery",))
    )
    elapsed = (last_published - committed).total_seconds() if last_published else float("nan")
    per_post, _ = workers_cpu(window, n)
    return {
        "workers": k,
        "latency_ms": latency_ms,
        "posts": n,
        "elapsed_s": round(elapsed, 3),
        "posts_per_s": round(n / elapsed, 1) if elapsed > 0 else float("nan"),
        # SQLite: a worker takes the claim's time before it waits for the write lock the seeding
        # transaction holds, so this says nothing there.
        "first_claim_after_s": round(max(0.0, (first_claim - committed).total_seconds()), 3)
        if first_claim and not db.sqlite
        else None,
        "worker_startup_s": round(startup_s, 2),
        **counts,
        # Connections the workers opened during the run (their pools fill up lazily: up to the
        # batch size each, plus any overflow); their backends' CPU is in `postgres`.
        "db_sessions_opened": sessions_opened,
        "verified": delivered_once(counts, n),
        "worker_log_problems": len(worker_log_problems(stack.workdir)),
        "cpu_s": {name: round(v, 3) for name, v in window.result.items()},
        "cpu_ms_per_post": per_post,
        "machine_busy_before": round(busy_before, 3),
        "peak_rss_mib": rss,
    }


def report(r: dict[str, Any]) -> None:
    cpu = r["cpu_ms_per_post"]
    pg = f"postgres {cpu['postgres']:.2f}, " if "postgres" in cpu else ""
    first = "n/a" if r["first_claim_after_s"] is None else f"{r['first_claim_after_s']} s"
    print(
        f"  {r['workers']} worker(s), latency {r['latency_ms']:>3} ms: {r['posts_per_s']:>7.0f} posts/s "
        f"({r['posts']} in {r['elapsed_s']:.2f} s, first claim after {first})  "
        f"CPU ms/post: workers {cpu['workers']:.2f}, {pg}bench {cpu['bench']:.2f}, other {cpu['other']:.2f}  "
        f"(machine busy {r['cpu_s']['machine_busy_fraction']:.0%})"
        f"  {'verified' if r['verified'] else 'NOT VERIFIED: ' + str(r['by_status'])}",
        flush=True,
    )
    warn_if_disturbed(r["cpu_s"], r["machine_busy_before"])
    if r["worker_log_problems"]:
        print(f"    NOTE: {r['worker_log_problems']} warning/error lines in the worker logs", flush=True)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import Stack, stack_env

    n = (args.posts + len(SLUGS) - 1) // len(SLUGS) * len(SLUGS)
    print(
        f"publisher throughput  backend={args.backend}  posts={n}  workers={args.workers}  "
        f"latency_ms={args.latency_ms}  batch={args.batch_size or 'default (20)'}  cpus={os.cpu_count()}",
        flush=True,
    )
    with bench_database(args.backend) as (url, workdir, _), Db(url) as db:
        out = bench_result("publisher throughput (sandbox)", "bench.publisher_throughput", args, url)
        out["runs"] = []
        # The workers alone: no core, facade or storage (a Stack only to start them with its settings).
        stack = Stack(url, workdir, "", "", stack_env(url, workdir))
        profiles = [(slug, platform) for slug, platform in zip(SLUGS, PLATFORMS, strict=True)]
        org_id = asyncio.run(seed_organization(url, profiles=profiles, credits=1))["org_id"]
        for latency in args.latency_ms:
            for k in args.workers:
                result = one_run(db, stack, org_id, n=n, k=k, latency_ms=latency, args=args)
                report(result)
                out["runs"].append(result)
    return out


def print_table(out: dict[str, Any]) -> None:
    print()
    print(
        f"{'latency':>8}{'workers':>8}{'posts/s':>9}{'seconds':>9}{'1st claim s':>12}"
        f"{'workers ms/post':>16}{'pg ms/post':>11}{'verified':>10}"
    )
    for r in out["runs"]:
        cpu = r["cpu_ms_per_post"]
        first = r["first_claim_after_s"] if r["first_claim_after_s"] is not None else "n/a"
        print(
            f"{r['latency_ms']:>6}ms{r['workers']:>8}{r['posts_per_s']:>9.0f}{r['elapsed_s']:>9.2f}"
            f"{first:>12}{cpu['workers']:>16.2f}{cpu.get('postgres', 0):>11.2f}"
            f"{'yes' if r['verified'] else 'NO':>10}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.publisher_throughput", description=__doc__.split("\n")[0])
    add_run_options(parser)
    parser.add_argument("--posts", type=int, default=2000, help="due posts per run (rounded up to a multiple of 4)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4], help="worker counts to run")
    parser.add_argument(
        "--latency-ms",
        type=int,
        nargs="+",
        default=[0],
        help="simulated platform latency(ies), HERALD_SANDBOX_LATENCY_MS",
    )
    parser.add_argument("--batch-size", type=int, default=None, help="HERALD_PUBLISH_BATCH_SIZE (default: the core's)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a run is abandoned")
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "publisher_throughput")
    if out is None:
        return 130
    return 0 if all(r["verified"] for r in out["runs"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
