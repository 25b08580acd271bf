"""Bench: live delivery to a fake X answering in 50 ms: lateness of scheduled posts, and posts/s by
1, 2, 4 worker processes.

    .venv/bin/python -m bench.live_delivery [--backend postgresql|sqlite] [--posts 2000] [--rate 100]
        [--workers 1 2] [--burst-posts 2000] [--burst-workers 1 2 4] [--latency-ms 50]
        [--profiles 4] [--poll-seconds S] [--batch-size N] [--fake-as-written] [--wait-quiet 30] [--no-json]

Issue 12's target: "with the fake platforms answering in 50 ms, due posts are delivered within
1 s p99 of their schedule_at at 100 posts/s, and throughput grows with worker processes until
the machine's cores are used".

Set-up, once: a fake X (harness/fakes/platforms/x.py, run by bench/fake_platforms.py) in its own
process (so its CPU is its own), answering every request after --latency-ms (the fake's `slow`
fault, no limit), its server socket set up as a production server's (backlog 128, TCP_NODELAY:
see bench/fake_platforms.py, tune_server_socket; the stdlib's defaults, kept by
--fake-as-written, reset connections and add ~40 ms to answers); a fresh migrated
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
import os
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.fake_platforms import FakeProcess, connect_accounts, live_env
from bench.load import percentile
from bench.readings import (
    BackendTracker,
    CpuWindow,
    listen_overflows,
    peak_rss_mib,
    stack_pids,
    wait_until_quiet,
    warn_if_disturbed,
)
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

# A post waiting for its retry keeps the error it waits with (cleared once published).
RETRYING_SQL = "SELECT id, attempts, platform_error FROM posts WHERE status = 'queued' AND platform_error <> ''"


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
    db, stack, fake, slugs = ctx["db"], ctx["stack"], ctx["fake"], ctx["slugs"]
    reset_deliveries(db, ctx["org_id"], credits=2 * n)
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
        backends = BackendTracker(db.backend_pids)

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
                create_posts(db.url, ctx["org_id"], contents, to, schedule, lambda: None, live=True)
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
                create_posts(db.url, ctx["org_id"], contents, to, [None] * calls, open_window, live=True)
            )
            start = committed
        deadline = time.monotonic() + args.timeout + (n / args.rate if mode == "scheduled" else 0)

        def on_poll(polls: int) -> None:
            if polls % 5 == 0:
                for post_id, attempts, error in db.all(RETRYING_SQL):
                    retried.setdefault(post_id, (attempts, error[:300]))
            backends.sample()

        wait_until_final(db, n, procs, deadline, on_poll)
        backends.sample()
        window.end()
        if not db.sqlite:
            backends.move_into(window)
        rss = {name: round(peak_rss_mib(pid), 1) for name, pid in named.items() if name.startswith("worker")}
        rss["fake_x"] = round(peak_rss_mib(fake.pid), 1)
    finally:
        stop_processes(procs)
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
    procs: list[Any],
) -> dict[str, Any]:
    db, fake = ctx["db"], ctx["fake"]
    rows = db.all("SELECT id, content, status, schedule_at, published_at, platform_post_id FROM posts")
    claims = {
        r[0]: db.timestamp(r[1])
        for r in db.all("SELECT reference, created_at FROM credit_ledger WHERE reason = %s", ("post_delivery",))
    }
    counts = delivery_counts(db)
    tweets = fake.call("tweets")
    mine = [t for t in tweets if t[2].startswith(f"Live bench {tag}-")]
    tweet_at = {t[2] + "\0" + t[1]: t[3] for t in mine}
    accounts = ctx["accounts"]  # slug -> fake user id
    texts = [t[2] + "\0" + t[1] for t in mine]
    post_ids = {r[5] for r in rows if r[2] == "published"}
    fake_ok = len(mine) == n and len(set(texts)) == n and {t[0] for t in mine} == post_ids and len(tweets) == n
    ok = delivered_once(counts, n) and fake_ok

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
    per_post, share = workers_cpu(window, n)
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
        **counts,
        "fake_tweets": len(tweets),
        "fake_tweets_of_run": len(mine),
        "fake_distinct_texts": len(set(texts)),
        "fake_ids_match_posts": {t[0] for t in mine} == post_ids,
        "fake_requests": fake.call("requests")["by_route"],
        "verified": ok,
        "worker_log_problems": len(worker_log_problems(ctx["stack"].workdir)),
        "cpu_s": {name: round(v, 3) for name, v in window.result.items()},
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
    warn_if_disturbed(r["cpu_s"], r["machine_busy_before"])
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
    from harness.stack import running_stack

    profiles = args.profiles
    burst_n = (args.burst_posts + profiles - 1) // profiles * profiles
    with (
        FakeProcess("x", args.latency_ms, args.fake_as_written) as fake,
        bench_database(args.backend) as (url, workdir, _),
        running_stack(url, workdir, **live_env(fake)) as stack,
        Db(url) as db,
    ):
        out = bench_result("live delivery (fake X)", "bench.live_delivery", args, url)
        out["runs"] = []
        print(
            f"live delivery  backend={args.backend}  fake X latency={args.latency_ms} ms  profiles={profiles}  "
            f"scheduled: {args.posts} posts at {args.rate:g}/s, workers {args.workers}  burst: {burst_n} posts, "
            f"workers {args.burst_workers}  poll={args.poll_seconds or 'default'}  batch={args.batch_size or 'default'}"
            f"  cpus={os.cpu_count()}  loadavg {' '.join(out['loadavg_at_start'])}",
            flush=True,
        )
        boot = asyncio.run(seed_organization(url, profiles=(), credits=1))
        names = [f"bench_x{i}" for i in range(profiles)]
        accounts = asyncio.run(connect_accounts(stack.base_url, boot["api_key"], fake, names, platform="x"))
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
        runs = [("scheduled", args.posts, k) for k in args.workers] + [
            ("burst", burst_n, k) for k in args.burst_workers
        ]
        for run_no, (mode, n, k) in enumerate(runs, 1):
            result = one_run(ctx, mode=mode, n=n, k=k, run_no=run_no, args=args)
            report(result)
            out["runs"].append(result)
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
    add_run_options(parser)
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
        help="keep the fake's stdlib server socket as it is (backlog 5, no TCP_NODELAY): see "
        "bench/fake_platforms.py, tune_server_socket",
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
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "live_delivery")
    if out is None:
        return 130
    return 0 if out["runs"] and all(r["verified"] for r in out["runs"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
