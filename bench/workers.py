"""The publishing worker processes of the delivery benches (bench.publisher_throughput,
bench.live_delivery, bench.live_video_rss): starting K `python -m core worker` and waiting until
each has its database connection and is idle (start-up is never measured), creating the posts
they deliver in one transaction, emptying the tables between runs, reading their logs.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.readings import CpuWindow, cpu_seconds

POLL_SECONDS = 0.1  # how often a run looks whether every post is final
# Posts in a final state (a transient failure goes back to queued and is not final).
DONE_SQL = "SELECT count(*) FROM posts WHERE status IN ('published', 'failed', 'canceled')"
# What a delivery run leaves behind; emptied before the next. PostgreSQL's TRUNCATE refuses a
# table another one references unless both are in it: every table referencing posts is here.
DELIVERY_TABLES = ("outbox", "post_media", "post_parts", "posts", "credit_ledger", "idempotency_keys")


def reset_deliveries(db: Any, org_id: str, credits: int) -> None:
    """Empties what a run delivered (bench.runs.Db `db`) and gives the organization `credits`."""
    if db.sqlite:
        for table in DELIVERY_TABLES:
            db.execute(f"DELETE FROM {table}")
    else:
        db.execute(f"TRUNCATE {', '.join(DELIVERY_TABLES)}")
    db.execute("UPDATE organizations SET credit_balance = %s WHERE id = %s", (credits, org_id))


def start_workers(stack: Any, k: int, env: dict[str, str]) -> list[subprocess.Popen]:
    """K `python -m core worker` processes of a harness.stack Stack (`env` on top of its
    settings), logging to worker<i>.log in its work directory (the last run's logs removed)."""
    for log in stack.workdir.glob("worker*.log"):
        log.unlink()
    return [stack.spawn("core", "worker", env=env, log_name=f"worker{i}") for i in range(k)]


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    with contextlib.suppress(FileNotFoundError, PermissionError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    return inodes


def _has_db_connection(pid: int, sqlite_path: str | None) -> bool:
    """PostgreSQL: the process has a TCP connection to port 5432. SQLite: it has the file open.
    (Counting the database's sessions would not do: a live stack's core holds some too.)"""
    if sqlite_path is not None:
        with contextlib.suppress(FileNotFoundError, PermissionError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) == sqlite_path:
                        return True
        return False
    inodes = _socket_inodes(pid)
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(FileNotFoundError):
            for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
                fields = line.split()
                if fields[2].endswith(":1538") and fields[9] in inodes:  # 0x1538 = 5432
                    return True
    return False


def wait_workers_ready(procs: list[subprocess.Popen], sqlite_path: str | None, timeout: float = 60) -> float:
    """Until every worker has its database connection and its CPU has settled (it polls an
    empty queue); returns the seconds it took. `sqlite_path`: the database file, None on
    PostgreSQL."""
    t0 = time.monotonic()
    while time.monotonic() < t0 + timeout:
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"worker exited with {p.returncode} during start-up")
        if all(_has_db_connection(p.pid, sqlite_path) for p in procs):
            before = [cpu_seconds(p.pid) for p in procs]
            time.sleep(0.5)
            if all(cpu_seconds(p.pid) - b < 0.1 for p, b in zip(procs, before, strict=True)):
                return time.monotonic() - t0
        else:
            time.sleep(0.1)
    raise TimeoutError("workers did not start polling in time")


async def create_posts(
    url: str,
    org_id: str,
    contents: list[str],
    slugs: list[list[str]],
    schedule: list[datetime | None],
    before_commit: Callable[[], None],
    *,
    live: bool = False,
) -> tuple[datetime, float]:
    """One core.posts.create.create_posts call per content (to its `slugs`, at its `schedule`
    or due now), all in ONE transaction, `before_commit()` right before its COMMIT; returns the
    time right after the COMMIT (when they all became visible to the workers) and how long the
    creation took."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from core.db.types import utcnow
    from core.posts import create
    from core.posts.validation import CreateRequest

    engine = create_async_engine(url)
    try:
        started = time.perf_counter()
        async with engine.connect() as conn:
            transaction = await conn.begin()
            for content, to, at in zip(contents, slugs, schedule, strict=True):
                when = at.isoformat().replace("+00:00", "Z") if at is not None else None
                await create.create_posts(
                    conn, org_id, CreateRequest(content, to, schedule_at=when), utcnow(), live=live
                )
            before_commit()
            await transaction.commit()
            committed = datetime.now(UTC)
        return committed, time.perf_counter() - started
    finally:
        await engine.dispose()


def worker_log_problems(workdir: Path) -> list[str]:
    """The lines of the workers' logs that say something went wrong (tracebacks, errors,
    warnings: they log at WARNING)."""
    return [
        line
        for log in sorted(workdir.glob("worker*.log"))
        for line in log.read_text(errors="replace").splitlines()
        if "Traceback" in line or " ERROR " in line or "WARNING" in line
    ]


def wait_until_final(
    db: Any, n: int, procs: list[subprocess.Popen], deadline: float, on_poll: Callable[[int], None]
) -> None:
    """Polls the database (bench.runs.Db) every POLL_SECONDS until `n` posts are final, failing
    when a worker exits or time.monotonic() passes `deadline`; `on_poll(polls so far)` runs at
    each poll (the benches sample the database backends' CPU there)."""
    polls = 0
    while (done := db.one(DONE_SQL)) < n:
        polls += 1
        if time.monotonic() > deadline:
            raise TimeoutError(f"only {done} of {n} posts final in time")
        if any(p.poll() is not None for p in procs):
            raise RuntimeError("a worker exited during the run")
        on_poll(polls)
        time.sleep(POLL_SECONDS)


def delivery_counts(db: Any) -> dict[str, Any]:
    """What a run left in the database (bench.runs.Db): posts by status, outbox rows and the
    distinct posts they record, `post_delivery` debits, the most attempts a post took."""
    return {
        "by_status": dict(db.all("SELECT status, count(*) FROM posts GROUP BY status")),
        "outbox_rows": db.one("SELECT count(*) FROM outbox"),
        "outbox_distinct_posts": db.one("SELECT count(DISTINCT post_id) FROM outbox"),
        "debits": db.one("SELECT count(*) FROM credit_ledger WHERE reason = %s", ("post_delivery",)),
        "max_attempts": db.one("SELECT max(attempts) FROM posts") or 0,
    }


def delivered_once(counts: dict[str, Any], n: int) -> bool:
    """Every one of the `n` posts published, with exactly one outbox row and one debit each."""
    return (
        counts["by_status"] == {"published": n}
        and counts["outbox_rows"] == counts["outbox_distinct_posts"] == n
        and counts["debits"] == n
    )


def workers_cpu(window: CpuWindow, n: int) -> tuple[dict[str, float], dict[str, float]]:
    """The window's CPU in ms per post (`n` posts) and as a share of one CPU, by process, with
    the worker processes also summed as `workers`."""
    cpu = window.result
    wall = cpu["wall_s"]
    workers = sum(v for name, v in cpu.items() if name.startswith("worker"))
    per_post = window.per_item(n)
    per_post["workers"] = round(workers * 1000 / n, 3)
    share = {name: round(v / wall, 3) for name, v in cpu.items() if name not in ("machine_busy_fraction", "wall_s")}
    share["workers"] = round(workers / wall, 3)
    return per_post, share
