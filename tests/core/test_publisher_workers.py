"""Several `herald worker` processes on one database: no overdraft, no double delivery, nothing
left behind — also when a worker is killed with SIGKILL in the middle of a batch, or of a thread."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from core.db.models import credit_ledger, organizations, outbox, post_parts, posts
from core.db.types import utcnow
from core.posts.create import create_posts
from core.posts.validation import CreateRequest
from core.posts.versions import Extras, ThreadItem
from harness.stack import ROOT, database, stack_env
from tests.facades.test_posts_threads import parent_reference

PLATFORMS = ("x", "bluesky", "mastodon", "linkedin")


async def seed(url: str, posts_wanted: int, credits: int) -> str:
    engine = create_async_engine(url)
    try:
        boot = await admin.bootstrap(
            engine, email="w@example.com", password="a long password", org="workers", credits_=credits, plan="active"
        )
        for platform in PLATFORMS:
            await admin.add_profile(engine, org="workers", slug=f"p-{platform}", platform=platform, tags=[])
        for i in range(posts_wanted // len(PLATFORMS)):
            async with engine.begin() as conn:
                await create_posts(
                    conn, boot["org_id"], CreateRequest(f"post {i}", [f"p-{p}" for p in PLATFORMS]), utcnow()
                )
        return boot["org_id"]
    finally:
        await engine.dispose()


async def snapshot(url: str, org_id: str) -> dict:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            by_status = dict((await conn.execute(select(posts.c.status, func.count()).group_by(posts.c.status))).all())
            reasons = dict(
                (
                    await conn.execute(
                        select(posts.c.failure_reason, func.count())
                        .where(posts.c.status == "failed")
                        .group_by(posts.c.failure_reason)
                    )
                ).all()
            )
            outbox_rows = await conn.scalar(select(func.count()).select_from(outbox))
            outbox_posts = await conn.scalar(select(func.count(func.distinct(outbox.c.post_id))))
            published_without_entry = await conn.scalar(
                select(func.count()).where(posts.c.status == "published", ~posts.c.id.in_(select(outbox.c.post_id)))
            )
            balance = await conn.scalar(select(organizations.c.credit_balance).where(organizations.c.id == org_id))
            debits = await conn.scalar(
                select(func.count()).where(credit_ledger.c.org_id == org_id, credit_ledger.c.reason == "post_delivery")
            )
        return {
            "by_status": by_status,
            "reasons": reasons,
            "outbox_rows": outbox_rows,
            "outbox_posts": outbox_posts,
            "published_without_entry": published_without_entry,
            "balance": balance,
            "debits": debits,
        }
    finally:
        await engine.dispose()


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "core", "worker"], env=env, cwd=ROOT, stdout=out, stderr=out)


def wait_until(predicate, timeout: float, what: str, every: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(every)


def kill_when(worker: subprocess.Popen, predicate, timeout: float, what: str) -> None:
    """SIGKILL `worker` in a state where `predicate` holds. The worker is frozen (SIGSTOP) while
    the state is read, so the kill lands in exactly the state seen: a batch cannot finish between
    the look and the kill. When the state is not there yet, the worker goes on (SIGCONT).

    On SQLite a worker frozen in the instant it resets the WAL holds a lock readers wait for: that
    look answers "database is locked", and counts as not there yet."""
    deadline = time.monotonic() + timeout
    while True:
        worker.send_signal(signal.SIGSTOP)
        try:
            seen = predicate()
        except OperationalError as error:
            if getattr(error.orig, "sqlite_errorcode", None) != sqlite3.SQLITE_BUSY:
                worker.send_signal(signal.SIGCONT)
                raise
            seen = False
        except BaseException:
            worker.send_signal(signal.SIGCONT)  # else it stays frozen and cannot be stopped
            raise
        if seen:
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=10)
            return
        worker.send_signal(signal.SIGCONT)
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.1)


def pending(url: str, org_id: str) -> int:
    s = asyncio.run(snapshot(url, org_id))["by_status"]
    return sum(s.get(k, 0) for k in ("scheduled", "queued", "publishing"))


def stop(workers: list[subprocess.Popen]) -> None:
    for w in workers:
        if w.poll() is None:
            w.terminate()
    for w in workers:
        w.wait(timeout=15)


def test_200_due_posts_balance_50_four_workers(backend, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        org_id = asyncio.run(seed(url, 200, credits=50))
        env = stack_env(url, tmp_path, HERALD_PUBLISH_POLL_SECONDS="0.05", HERALD_PUBLISH_BATCH_SIZE="7")
        workers = [start_worker(env, tmp_path / f"worker{i}.log") for i in range(4)]
        try:
            wait_until(lambda: pending(url, org_id) == 0, 120, "all 200 posts settled")
        finally:
            stop(workers)
        result = asyncio.run(snapshot(url, org_id))
    assert result["by_status"] == {"published": 50, "failed": 150}
    assert result["reasons"] == {"insufficient_credits": 150}
    assert result["balance"] == 0
    assert result["debits"] == 50
    assert result["outbox_rows"] == result["outbox_posts"] == 50
    assert result["published_without_entry"] == 0


def test_sigkill_mid_batch_second_worker_finishes(backend, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        org_id = asyncio.run(seed(url, 500, credits=1000))
        env = stack_env(
            url,
            tmp_path,
            HERALD_PUBLISH_POLL_SECONDS="0.05",
            HERALD_PUBLISH_BATCH_SIZE="20",
            HERALD_PUBLISH_LEASE_SECONDS="2",
            # Each delivery takes 300 ms, like a slow platform call: a batch spends most of its
            # time claimed but not yet recorded, the window the kill must hit.
            HERALD_SANDBOX_LATENCY_MS="300",
        )
        first = start_worker(env, tmp_path / "first.log")
        second = None
        try:

            def mid_batch() -> bool:
                counts = asyncio.run(snapshot(url, org_id))["by_status"]
                return counts.get("published", 0) >= 100 and counts.get("publishing", 0) > 0

            kill_when(first, mid_batch, 120, "100 published and a batch in flight")
            at_kill = asyncio.run(snapshot(url, org_id))
            # The kill left claimed posts behind: the crash window this test is about.
            assert at_kill["by_status"].get("publishing", 0) > 0, at_kill
            second = start_worker(env, tmp_path / "second.log")
            wait_until(lambda: pending(url, org_id) == 0, 120, "all 500 posts settled")
        finally:
            stop([w for w in (first, second) if w is not None])
        result = asyncio.run(snapshot(url, org_id))
    assert result["by_status"] == {"published": 500}
    assert result["outbox_rows"] == result["outbox_posts"] == 500  # nobody delivered twice
    assert result["published_without_entry"] == 0
    assert result["debits"] == 500 and result["balance"] == 500  # charged once per post


THREADING = ("x", "bluesky", "mastodon", "threads")


async def seed_threads(url: str, posts_wanted: int, credits: int) -> str:
    """`posts_wanted` posts spread over the threading platforms, each with a thread of 3 items
    and a first comment, every text unique."""
    engine = create_async_engine(url)
    try:
        boot = await admin.bootstrap(
            engine, email="w@example.com", password="a long password", org="workers", credits_=credits, plan="active"
        )
        for platform in THREADING:
            await admin.add_profile(engine, org="workers", slug=f"p-{platform}", platform=platform, tags=[])
        for i in range(posts_wanted):
            platform = THREADING[i % len(THREADING)]
            extras = Extras(
                thread=tuple(ThreadItem(f"post {i} item {n}") for n in (1, 2, 3)), first_comment=f"post {i} comment"
            )
            async with engine.begin() as conn:
                await create_posts(
                    conn, boot["org_id"], CreateRequest(f"post {i}", [f"p-{platform}"], extras=extras), utcnow()
                )
        return boot["org_id"]
    finally:
        await engine.dispose()


async def threads_in_flight(url: str, *, pending_at_least: int = 1) -> tuple[int, int]:
    """How many posts are published, and how many are being published with their thread under
    way: some parts out, `pending_at_least` not yet."""
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            published = await conn.scalar(select(func.count()).where(posts.c.status == "published"))
            rows = (
                await conn.execute(
                    select(post_parts.c.post_id, post_parts.c.status)
                    .join(posts, posts.c.id == post_parts.c.post_id)
                    .where(posts.c.status == "publishing")
                )
            ).all()
    finally:
        await engine.dispose()
    by_post: dict[str, list[str]] = {}
    for post_id, status in rows:
        by_post.setdefault(post_id, []).append(status)
    in_flight = sum(1 for s in by_post.values() if "published" in s and s.count("pending") >= pending_at_least)
    return published, in_flight


async def thread_rows(url: str, org_id: str) -> dict:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            main = (
                await conn.execute(
                    select(
                        posts.c.id, posts.c.connector, posts.c.delivery_key, posts.c.status, posts.c.platform_post_id
                    )
                )
            ).all()
            parts = (await conn.execute(select(post_parts).order_by(post_parts.c.post_id, post_parts.c.position))).all()
            entries = (await conn.execute(select(outbox))).all()
            ledger = (
                await conn.execute(
                    select(credit_ledger.c.reason, credit_ledger.c.reference, credit_ledger.c.delta).where(
                        credit_ledger.c.org_id == org_id
                    )
                )
            ).all()
            balance = await conn.scalar(select(organizations.c.credit_balance).where(organizations.c.id == org_id))
    finally:
        await engine.dispose()
    return {"posts": main, "parts": parts, "outbox": entries, "ledger": ledger, "balance": balance}


def test_sigkill_mid_thread_every_item_exactly_once(backend, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        org_id = asyncio.run(seed_threads(url, 100, credits=1000))
        env = stack_env(
            url,
            tmp_path,
            HERALD_PUBLISH_POLL_SECONDS="0.05",
            HERALD_PUBLISH_BATCH_SIZE="8",
            HERALD_PUBLISH_LEASE_SECONDS="2",
            # Each delivery (the post, each item, the comment) takes 150 ms: a post spends most of
            # its time with its thread part way out, the window the kill must hit.
            HERALD_SANDBOX_LATENCY_MS="150",
        )
        first = start_worker(env, tmp_path / "first.log")
        second = None
        try:

            def mid_thread() -> bool:
                # Two parts still pending (the worker is frozen while this is read).
                published, in_flight = asyncio.run(threads_in_flight(url, pending_at_least=2))
                return published >= 10 and in_flight > 0

            kill_when(first, mid_thread, 60, "10 published and a thread in flight")
            # The kill left a thread half out: the post `publishing`, some parts out, some not.
            assert asyncio.run(threads_in_flight(url))[1] > 0, asyncio.run(snapshot(url, org_id))
            at_kill = asyncio.run(thread_rows(url, org_id))
            second = start_worker(env, tmp_path / "second.log")
            # Polled slowly: the checks would take CPU from the worker.
            wait_until(lambda: pending(url, org_id) == 0, 90, "all 100 posts settled", every=0.5)
        finally:
            stop([w for w in (first, second) if w is not None])
        result = asyncio.run(snapshot(url, org_id))
        rows = asyncio.run(thread_rows(url, org_id))
    assert result["by_status"] == {"published": 100}, result
    assert result["published_without_entry"] == 0

    parts_of: dict[str, list] = {}
    for part in rows["parts"]:
        parts_of.setdefault(part.post_id, []).append(part)
    assert len(parts_of) == 100
    assert all([p.status for p in parts] == ["published"] * 4 for parts in parts_of.values())
    assert all([p.kind for p in parts] == ["thread"] * 3 + ["comment"] for parts in parts_of.values())

    # Every delivery recorded once: 100 posts x (post + 3 items + comment), each key once.
    entries = rows["outbox"]
    assert len(entries) == 100 * 5
    keys = [e.delivery_key for e in entries]
    assert len(set(keys)) == len(keys)
    expected_keys = {p.delivery_key for p in rows["posts"]} | {p.delivery_key for p in rows["parts"]}
    assert set(keys) == expected_keys
    # No part was sent twice under another id: the platform ids are distinct, and each part's
    # matches its own outbox entry (a sandbox id comes from the delivery key, except a Bluesky
    # record's uri, made from the time it is sent: a part sent again would show a new one).
    entry_of = {e.delivery_key: e for e in entries}
    part_ids = [p.platform_post_id for p in rows["parts"]]
    assert all(part_ids) and len(set(part_ids)) == len(part_ids)
    for part in rows["parts"]:
        entry = entry_of[part.delivery_key]
        assert (entry.post_id, entry.part) == (part.post_id, part.position)
        assert (entry.platform_post_id, entry.platform_url, entry.platform_cid) == (
            part.platform_post_id,
            part.platform_url,
            part.platform_cid,
        )
    main_ids = [p.platform_post_id for p in rows["posts"]]
    assert all(main_ids) and len(set(main_ids) | set(part_ids)) == 500

    # Each post's chain: every item and the comment reply to the entry before them.
    for post in rows["posts"]:
        main = entry_of[post.delivery_key]
        assert (main.post_id, main.part, main.platform_post_id) == (post.id, -1, post.platform_post_id)
        chain = [main, *(entry_of[p.delivery_key] for p in parts_of[post.id])]
        for before, entry in zip(chain, chain[1:], strict=False):
            requests = {"requests": json.loads(entry.requests_json)}
            assert parent_reference(post.connector, requests) == before.platform_post_id, (post.connector, entry)

    # What was out at the kill stayed as it was: the second worker sent none of it again.
    out_at_kill = {(e.delivery_key, e.platform_post_id, e.platform_cid) for e in at_kill["outbox"]}
    assert out_at_kill <= {(e.delivery_key, e.platform_post_id, e.platform_cid) for e in entries}
    in_flight = {p.id for p in at_kill["posts"] if p.status == "publishing"}
    resumed = [p for p in at_kill["parts"] if p.post_id in in_flight and p.status == "published"]
    assert resumed
    final = {(p.post_id, p.position): p for p in rows["parts"]}
    assert all(final[(p.post_id, p.position)].platform_post_id == p.platform_post_id for p in resumed)

    # Charged once per post, at claim: the post and its 3 thread items (the comment is free).
    debits = [r for r in rows["ledger"] if r.reason == "post_delivery"]
    assert len(debits) == 100
    assert sorted(r.reference for r in debits) == sorted(p.id for p in rows["posts"])
    assert all(r.delta == -4 for r in debits)
    assert not [r for r in rows["ledger"] if r.reason == "refund"]
    assert rows["balance"] == 1000 - 400
