"""Bench: publisher throughput, posts delivered per second to the sandbox by 1, 2, 4 workers.

    .venv/bin/python -m bench.publisher_throughput [--backend postgresql|sqlite] [--posts 2000]
        [--workers 1 2 4] [--latency-ms 0 [50 ...]] [--batch-size N] [--wait-quiet 30]

For each simulated platform latency (HERALD_SANDBOX_LATENCY_MS, default 0: pure overhead) and
each worker count K, on one fresh migrated database (dropped at the end), emptied between runs:

1. Seeds one organization with enough credits (2 x posts) and 4 profiles (x, bluesky, mastodon,
   linkedin); resets the posts, outbox, post_media and ledger tables.
2. Starts K real `python -m core worker` processes (env from harness.stack.stack_env with
   HERALD_PUBLISH_POLL_SECONDS=0.05, the default batch size unless --batch-size) and waits until
   each is up and polling the empty queue (PostgreSQL: K sessions on the database; SQLite: each
   worker has the database file open), and their CPU has settled. Process start-up is therefore
   not in the measurement.
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
import contextlib
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.load import CpuWindow, cpu_seconds, json_dump, peak_rss_mib, wait_until_quiet

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PLATFORMS = ("x", "bluesky", "mastodon", "linkedin")
POLL_SECONDS = 0.1


# ----------------------------------------------------------------------------- database access


class Db:
    """Plain driver access (psycopg or sqlite3) for resetting, polling and verifying."""

    def __init__(self, url: str) -> None:
        self.sqlite = url.startswith("sqlite")
        if self.sqlite:
            import sqlite3

            self.path = url.split("///", 1)[1]
            self.conn: Any = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.conn.execute("PRAGMA busy_timeout=30000")
            self.pid = None
        else:
            import psycopg

            self.conn = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1), autocommit=True)
            self.pid = self.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
            self.name = url.rsplit("/", 1)[1]

    def all(self, sql: str, params: tuple = ()) -> list[tuple]:
        return list(self.conn.execute(sql if not self.sqlite else sql.replace("%s", "?"), params).fetchall())

    def execute(self, sql: str, params: tuple = ()) -> None:
        self.conn.execute(sql if not self.sqlite else sql.replace("%s", "?"), params)

    def one(self, sql: str, params: tuple = ()) -> Any:
        return self.all(sql, params)[0][0]

    def reset(self, org_id: str, credits: int) -> None:
        tables = ("outbox", "post_media", "posts", "credit_ledger", "idempotency_keys")
        if self.sqlite:
            for t in tables:
                self.conn.execute(f"DELETE FROM {t}")
        else:
            self.conn.execute(f"TRUNCATE {', '.join(tables)}")
        self.execute("UPDATE organizations SET credit_balance = %s WHERE id = %s", (credits, org_id))

    def backend_pids(self) -> list[int]:
        """PostgreSQL backends serving the bench database (its workers' sessions and this one)."""
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


# ----------------------------------------------------------------------------- setup


async def seed_org(url: str) -> dict[str, str]:
    from sqlalchemy.ext.asyncio import create_async_engine

    from core import admin

    engine = create_async_engine(url)
    try:
        boot = await admin.bootstrap(
            engine, email="bench@example.com", password="bench-password-1", org="bench", credits_=1, plan="active"
        )
        for p in PLATFORMS:
            await admin.add_profile(engine, org="bench", slug=f"p-{p}", platform=p, tags=[])
    finally:
        await engine.dispose()
    return {"org_id": boot["org_id"]}


async def create_due_posts(url: str, org_id: str, n: int, before_commit: Any) -> datetime:
    """Creates n posts (n / 4 create_posts calls of 4 profiles) in one transaction; returns the
    time right after its COMMIT, when they all became visible to the workers."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from core.db.types import utcnow
    from core.posts import create
    from core.posts.validation import CreateRequest

    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            transaction = await conn.begin()
            now = utcnow()
            slugs = [f"p-{p}" for p in PLATFORMS]
            for i in range(n // len(PLATFORMS)):
                await create.create_posts(
                    conn, org_id, CreateRequest(f"Bench post {i}: publisher throughput.", slugs), now
                )
            before_commit()
            await transaction.commit()
            committed = datetime.now(UTC)
    finally:
        await engine.dispose()
    return committed


def start_workers(url: str, workdir: Path, k: int, latency_ms: int, batch_size: int | None) -> list[subprocess.Popen]:
    from harness.stack import stack_env

    extra = {"HERALD_PUBLISH_POLL_SECONDS": "0.05", "HERALD_SANDBOX_LATENCY_MS": str(latency_ms)}
    if batch_size:
        extra["HERALD_PUBLISH_BATCH_SIZE"] = str(batch_size)
    env = stack_env(url, workdir, **extra)
    procs = []
    for i in range(k):
        with open(workdir / f"worker{i}.log", "ab") as log:
            procs.append(
                subprocess.Popen([sys.executable, "-m", "core", "worker"], env=env, cwd=ROOT, stdout=log, stderr=log)
            )
    return procs


def wait_workers_ready(db: Db, procs: list[subprocess.Popen], timeout: float = 60) -> float:
    """Until every worker is connected and idle-polling; returns the seconds it took."""
    t0 = time.monotonic()
    deadline = t0 + timeout

    def connected() -> bool:
        if db.sqlite:
            return all(_has_open(p.pid, db.path) for p in procs)
        return len([pid for pid in db.backend_pids() if pid != db.pid]) >= len(procs)

    while time.monotonic() < deadline:
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"worker exited with {p.returncode} during start-up")
        if connected():
            before = [cpu_seconds(p.pid) for p in procs]
            time.sleep(0.5)
            if all(cpu_seconds(p.pid) - b < 0.1 for p, b in zip(procs, before, strict=True)):
                return time.monotonic() - t0
        else:
            time.sleep(0.1)
    raise TimeoutError("workers did not start polling in time")


def _has_open(pid: int, path: str) -> bool:
    fd_dir = Path(f"/proc/{pid}/fd")
    with contextlib.suppress(FileNotFoundError, PermissionError):
        for fd in fd_dir.iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd) == path:
                    return True
    return False


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


# ----------------------------------------------------------------------------- one run


class BackendTracker:
    """CPU of the PostgreSQL backends serving the bench database, sampled at every poll, so a
    backend that starts and ends during the run (pool overflow) is counted up to its last sample
    (CpuWindow alone would miss it and count it as `other`)."""

    def __init__(self, db: Db) -> None:
        self.db = db
        self.before: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def start(self) -> None:
        self.before = {pid: cpu_seconds(pid) for pid in self.db.backend_pids()}
        self.last = dict(self.before)

    def sample(self) -> None:
        for pid in self.db.backend_pids():
            value = cpu_seconds(pid)
            if value:
                self.last[pid] = value

    def total(self) -> float:
        return sum(v - self.before.get(pid, 0.0) for pid, v in self.last.items())


# Posts in a final state (a transient failure would go back to queued and is not final).
DONE_SQL = "SELECT count(*) FROM posts WHERE status IN ('published', 'failed', 'canceled')"


def one_run(
    db: Db, url: str, workdir: Path, org_id: str, *, n: int, k: int, latency_ms: int, args: argparse.Namespace
) -> dict[str, Any]:
    db.reset(org_id, credits=2 * n)
    for log in workdir.glob("worker*.log"):
        log.unlink()
    procs = start_workers(url, workdir, k, latency_ms, args.batch_size)
    try:
        startup_s = wait_workers_ready(db, procs)
        busy_before = wait_until_quiet(args.wait_quiet) if args.wait_quiet > 0 else float("nan")
        named = {f"worker{i}": p.pid for i, p in enumerate(procs)}
        named["bench"] = os.getpid()  # this process: seeding is outside the window, polling inside
        window = CpuWindow(named)
        backends = BackendTracker(db)
        sessions_before = db.sessions_opened()

        def open_window() -> None:
            window.start()
            backends.start()

        # The window opens right before the COMMIT that makes the posts due (the seeding's own
        # statements are outside it; the COMMIT's flush is inside, in `postgres`).
        committed = asyncio.run(create_due_posts(url, org_id, n, open_window))
        deadline = time.monotonic() + args.timeout
        while True:
            done = db.one(DONE_SQL)
            if done >= n:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {done} of {n} posts final after {args.timeout} s")
            if any(p.poll() is not None for p in procs):
                raise RuntimeError("a worker exited during the run")
            backends.sample()
            time.sleep(POLL_SECONDS)
        backends.sample()
        window.end()
        if not db.sqlite:
            # The backends' CPU is part of what the window saw the machine do: take it out of `other`.
            pg = backends.total()
            window.result["postgres"] = pg
            window.result["other"] = max(0.0, window.result["other"] - pg)
        rss = {name: round(peak_rss_mib(pid), 1) for name, pid in named.items() if name != "bench"}
        sessions_opened = db.sessions_opened() - sessions_before
    finally:
        stop_workers(procs)
    by_status = dict(db.all("SELECT status, count(*) FROM posts GROUP BY status"))
    last_published = db.timestamp(db.one("SELECT max(published_at) FROM posts"))
    first_claim = db.timestamp(
        db.one("SELECT min(created_at) FROM credit_ledger WHERE reason = %s", ("post_delivery",))
    )
    outbox_rows = db.one("SELECT count(*) FROM outbox")
    outbox_posts = db.one("SELECT count(DISTINCT post_id) FROM outbox")
    debits = db.one("SELECT count(*) FROM credit_ledger WHERE reason = %s", ("post_delivery",))
    max_attempts = db.one("SELECT max(attempts) FROM posts")
    elapsed = (last_published - committed).total_seconds() if last_published else float("nan")
    log_errors = sum(
        1
        for log in workdir.glob("worker*.log")
        for line in log.read_text(errors="replace").splitlines()
        if "Traceback" in line or " ERROR " in line or "WARNING" in line
    )
    ok = by_status == {"published": n} and outbox_rows == n and outbox_posts == n and debits == n
    cpu = window.result
    per_post = {
        name: round(v * 1000 / n, 3) for name, v in cpu.items() if name not in ("machine_busy_fraction", "wall_s")
    }
    per_post["workers"] = round(sum(v for name, v in cpu.items() if name.startswith("worker")) * 1000 / n, 3)
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
        "by_status": by_status,
        "outbox_rows": outbox_rows,
        "outbox_distinct_posts": outbox_posts,
        "debits": debits,
        "max_attempts": max_attempts,
        # Connections the workers opened during the run (their pools fill up lazily: up to the
        # batch size each, plus any overflow); their backends' CPU is in `postgres`.
        "db_sessions_opened": sessions_opened,
        "verified": ok,
        "worker_log_problems": log_errors,
        "cpu_s": {name: round(v, 3) for name, v in cpu.items()},
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
    other = r["cpu_s"]["other"] / max(1e-9, r["cpu_s"]["wall_s"] * (os.cpu_count() or 1))
    if other > 0.1 or r["machine_busy_before"] >= 0.15:
        print(
            f"    WARNING: something else used the machine ({r['machine_busy_before']:.0%} busy before the run, "
            f"{other:.0%} of all CPU time during it): these figures are disturbed",
            flush=True,
        )
    if r["worker_log_problems"]:
        print(f"    NOTE: {r['worker_log_problems']} warning/error lines in the worker logs", flush=True)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import database

    n = (args.posts + len(PLATFORMS) - 1) // len(PLATFORMS) * len(PLATFORMS)
    out: dict[str, Any] = {
        "bench": "publisher throughput (sandbox)",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([".venv/bin/python -m bench.publisher_throughput", *sys.argv[1:]]),
        "args": vars(args),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "runs": [],
    }
    print(
        f"publisher throughput  backend={args.backend}  posts={n}  workers={args.workers}  "
        f"latency_ms={args.latency_ms}  batch={args.batch_size or 'default (20)'}  cpus={os.cpu_count()}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="herald-bench-") as tmp, database(args.backend, Path(tmp)) as url:
        workdir = Path(tmp)
        org_id = asyncio.run(seed_org(url))["org_id"]
        db = Db(url)
        try:
            if not db.sqlite:
                out["machine"]["postgresql"] = db.one("SHOW server_version")
            for latency in args.latency_ms:
                for k in args.workers:
                    result = one_run(db, url, workdir, org_id, n=n, k=k, latency_ms=latency, args=args)
                    report(result)
                    out["runs"].append(result)
        finally:
            db.close()
    return out


def print_table(out: dict[str, Any]) -> None:
    print()
    print(
        f"{'latency':>8}{'workers':>8}{'posts/s':>9}{'seconds':>9}{'1st claim s':>12}"
        f"{'workers ms/post':>16}{'pg ms/post':>11}{'verified':>10}"
    )
    for r in out["runs"]:
        cpu = r["cpu_ms_per_post"]
        print(
            f"{r['latency_ms']:>6}ms{r['workers']:>8}{r['posts_per_s']:>9.0f}{r['elapsed_s']:>9.2f}"
            f"{r['first_claim_after_s'] if r['first_claim_after_s'] is not None else 'n/a':>12}{cpu['workers']:>16.2f}{cpu.get('postgres', 0):>11.2f}"
            f"{'yes' if r['verified'] else 'NO':>10}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.publisher_throughput", description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=("postgresql", "sqlite"), default="postgresql")
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

    signal.signal(signal.SIGTERM, _terminate)
    started = time.monotonic()
    try:
        out = run(args)
    except KeyboardInterrupt:
        print("interrupted: processes stopped, database dropped", file=sys.stderr)
        return 130
    print_table(out)
    out["total_s"] = round(time.monotonic() - started, 1)
    if not args.no_json:
        path = RESULTS / f"publisher_throughput-{args.backend}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
        json_dump(path, out)
        print(f"wrote {path.relative_to(ROOT)} ({out['total_s']} s in all)")
    return 0 if all(r["verified"] for r in out["runs"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
