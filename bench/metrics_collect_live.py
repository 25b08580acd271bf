"""Bench: collecting metrics through the live path (issue 33; docs/analytics.md, "Reading live").

    .venv/bin/python -m bench.metrics_collect --live [--posts 100000] [--small 10000] [--rounds 3]
        [--claims 100] [--batch 500] [--accounts 5]

The --live mode of bench.metrics_collect (one bench; this module is its live half, kept apart
for its size, and is not run on its own). What bench.metrics_collect measures with the sandbox's
numbers, with each post's numbers asked of a platform over real HTTP instead: the fake X
(harness/fakes/platforms/x.py) in its own process on loopback (bench/fake_platforms.FakeProcess,
so its CPU is not the collector's), no latency added, its per-user metrics limit raised so it
does not bind (a limit that binds is the e2e test's subject: tests/e2e/test_live_metrics.py).

Set-up: a fresh migrated PostgreSQL database; one organization with --accounts X profiles, each
connected as a live profile is: the fake's user as `platform_account_id`, an access token the fake
issued, sealed under the bench's own key (core/platform_accounts/vault.py, bound to the profile's
row as the connection seals it), `connection_status` connected, its expiry a day ahead (no
refresh). --posts published posts (COPY into `posts`), round robin over the profiles, each one a
post the fake holds for that user (published two hours ago: X's non-public metrics are asked too,
one call per profile of a batch), each with its series row and its first read due. Five accounts:
a claim of 500 (the oldest due first, in the order the posts were written) holds 100 posts of each,
one call of 100 ids per profile, X's most.

Measured, in the bench's process as a worker runs it (core/worker/main.py: MetricsCollector with
PlatformReads, the token keeper, the endpoints overridden to the fake, the registry's connectors):
- the claim alone (core/analytics/reads.claim of a batch, put back after each rep) with --small
  and then --posts tracked, every one due: p50/p99 (bench.metrics_collect.claims);
- the whole path, collect_due in a loop until no read is due, --rounds rounds (each round makes
  every post due again): snapshots per second, and each batch's time (claim, the calls of 100 ids
  per profile, 8 profiles at once, the record) p50/p99; every post read once per round, none
  failed, no call refused by the fake;
- the floor: the same snapshot INSERTs (what `record` inserts for a batch, the live reading's
  columns) straight through SQLAlchemy, a transaction per batch, no claim and no call.
The CPU seconds of the collector's process and of the fake's are printed per round, and the load
average before and after (other work on the machine moves every figure).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.dashboard_pages import insert_posts, org_profiles
from bench.fake_platforms import X_CLIENT_ID, X_CLIENT_SECRET, FakeProcess
from bench.load import percentile
from bench.metrics_collect import SCHEDULE, claims, post_rows, track
from bench.readings import cpu_seconds
from bench.runs import RESULTS, Db, analyze, bench_database, bench_result, write_result
from bench.seed import seed_organization

SCOPES = ["tweet.read", "users.read", "offline.access"]
# A limit per user that 100,000 posts a round cannot reach (the fake's default is X's 900 a 15 minutes).
UNBOUND = (1_000_000_000, 900)


def load() -> list[str]:
    return open("/proc/loadavg").read().split()[:3]


def settings_for(url: str, fake: FakeProcess, batch: int) -> Any:
    from core.settings import CoreSettings

    key = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
    return CoreSettings(
        database_url=url,
        metrics_schedule=SCHEDULE,
        metrics_read_batch_size=batch,
        publish_mode="live",
        platform_host_overrides={"api.x.com": fake.base_url, "x.com": fake.base_url},
        base_url="http://127.0.0.1:8080",  # loopback only: the fake's private address is allowed
        x_client_id=X_CLIENT_ID,
        x_client_secret=X_CLIENT_SECRET,
        platform_token_keys=f"bench:{key}",
    )


def connect_profiles(db: Db, settings: Any, fake: FakeProcess, profiles: list[tuple[str, str, str]]) -> dict[str, str]:
    """Each profile made a connected live X account of the fake; {profile id: the fake's user id}."""
    from core.platform_accounts.vault import TokenVault

    vault = TokenVault.from_settings(settings)
    now = datetime.now(UTC)
    users = {}
    for profile_id, slug, _platform in profiles:
        user = fake.call("add_user", f"bench_{slug.replace('-', '_')}")
        token = fake.call("grant", user, SCOPES)
        db.execute(
            "UPDATE profiles SET platform_account_id = %s, handle = %s, connection_status = 'connected', "
            "connected_at = %s, access_token = %s, token_expires_at = %s, token_version = 1, granted_scopes = %s "
            "WHERE id = %s",
            (
                user,
                slug,
                now,
                vault.seal(token, bound_to=f"{profile_id}:access"),
                now + timedelta(days=1),
                " ".join(SCOPES),
                profile_id,
            ),
        )
        users[profile_id] = user
    return users


def grow(db: Db, fake: FakeProcess, org_id: str, profiles: list, users: dict[str, str], have: int, wanted: int) -> int:
    """Posts `have`..`wanted`, each a post the fake holds for its profile's user, tracked and due."""
    now = datetime.now(UTC)
    for first in range(have, wanted, 20_000):
        count = min(20_000, wanted - first)
        rows = post_rows(org_id, profiles, first, count, now)
        need = Counter(row[2] for row in rows)  # posts per profile id
        ids = {pid: iter(fake.call("seed_tweets", users[pid], k)) for pid, k in need.items()}
        insert_posts(db, [row[:19] + (next(ids[row[2]]),) + row[20:] for row in rows])
    track(db, org_id, now - timedelta(hours=1))
    analyze(db.url)
    return wanted


async def collect_all(settings: Any) -> dict[str, Any]:
    """collect_due in a loop, as a live worker runs it, until nothing is due."""
    from sqlalchemy import func, select

    from core.analytics.collector import MetricsCollector
    from core.analytics.platform_reads import PlatformReads
    from core.connectors.registry import CONNECTORS
    from core.connectors.transport import PlatformEndpoints
    from core.db.engine import create_engine
    from core.db.models import post_metric_series, post_metric_snapshots
    from core.platform_accounts.token_refresh import TokenKeeper
    from core.platform_accounts.vault import TokenVault

    engine = create_engine(settings, pool_size=20)
    endpoints = PlatformEndpoints(settings.platform_host_overrides, allow_private=settings.allows_private_targets)
    keeper = TokenKeeper(settings, engine, endpoints, TokenVault.from_settings(settings))
    platform = PlatformReads(settings, engine, keeper, endpoints, CONNECTORS)
    collector = MetricsCollector(settings, engine, "bench-live", platform=platform)
    batches = []
    try:
        async with engine.connect() as conn:
            before = await conn.scalar(select(func.count()).select_from(post_metric_snapshots))
        began = time.perf_counter()
        while True:
            start = time.perf_counter()
            claimed = await collector.collect_due()
            if not claimed:
                break
            batches.append((time.perf_counter() - start) * 1000)
        seconds = time.perf_counter() - began
        async with engine.connect() as conn:
            written = await conn.scalar(select(func.count()).select_from(post_metric_snapshots)) - before
            failed = await conn.scalar(
                select(func.count()).where(
                    (post_metric_series.c.failures > 0) | (post_metric_series.c.last_error != "")
                )
            )
    finally:
        await platform.close()
        await engine.dispose()
    batches.sort()
    return {
        "snapshots": written,
        "seconds": round(seconds, 2),
        "snapshots_per_s": round(written / seconds),
        "batches": len(batches),
        "batch_p50_ms": round(percentile(batches, 50), 1),
        "batch_p99_ms": round(percentile(batches, 99), 1),
        "series_failed": failed,
    }


async def floor(settings: Any, batch: int) -> dict[str, Any]:
    """The same INSERTs as `record` makes for the series' readings, a transaction per batch."""
    from sqlalchemy import insert, select

    from core.db.engine import create_engine, transaction
    from core.db.models import post_metric_series, post_metric_snapshots

    engine = create_engine(settings)
    try:
        async with engine.connect() as conn:
            ids = list(await conn.scalars(select(post_metric_series.c.id).order_by(post_metric_series.c.id)))
        metrics = {"impressions": 0, "likes": 0, "reposts": 0, "replies": 0, "quotes": 0, "bookmarks": 0}
        began = time.perf_counter()
        for start in range(0, len(ids), batch):
            now = datetime.now(UTC)
            rows = [
                {"series_id": i, "part": -1, "collected_at": now, "sandbox": False, "link_clicks": 0, **metrics}
                for i in ids[start : start + batch]
            ]
            async with transaction(engine, writes=True) as conn:
                await conn.execute(insert(post_metric_snapshots), rows)
        seconds = time.perf_counter() - began
    finally:
        await engine.dispose()
    return {"snapshots": len(ids), "seconds": round(seconds, 2), "snapshots_per_s": round(len(ids) / seconds)}


def run_live(args: argparse.Namespace) -> None:
    with FakeProcess("x", 0) as fake, bench_database("postgresql") as (url, _workdir, _sessions):
        out = bench_result("metrics_collect_live", "bench.metrics_collect", args, url)
        fake.call("metrics_limit", *UNBOUND)
        settings = settings_for(url, fake, args.batch)
        slugs = [(f"lx-{n}", "x") for n in range(args.accounts)]
        boot = asyncio.run(seed_organization(url, org="metrics-live", profiles=slugs, credits=0))
        print(f"load average at start: {' '.join(load())}")
        with Db(url) as db:
            profiles = org_profiles(db, boot["org_id"])
            users = connect_profiles(db, settings, fake, profiles)
            tracked = grow(db, fake, boot["org_id"], profiles, users, 0, args.small)
            out["claim"] = {str(tracked): asyncio.run(claims(url, settings, args.claims))}
            tracked = grow(db, fake, boot["org_id"], profiles, users, tracked, args.posts)
            out["claim"][str(tracked)] = asyncio.run(claims(url, settings, args.claims))
            for size, row in out["claim"].items():
                print(f"claim of {args.batch} with {int(size):,} due: p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms")
            out["rounds"] = []
            for n in range(args.rounds):
                if n:
                    db.execute("UPDATE post_metric_series SET due_at = %s", (datetime.now(UTC) - timedelta(minutes=1),))
                    analyze(url)
                cpu = (cpu_seconds(os.getpid()), cpu_seconds(fake.pid))
                row = asyncio.run(collect_all(settings))
                row["cpu_s"] = {
                    "collector": round(cpu_seconds(os.getpid()) - cpu[0], 1),
                    "fake_x": round(cpu_seconds(fake.pid) - cpu[1], 1),
                }
                row["loadavg"] = load()
                out["rounds"].append(row)
                print(
                    f"round {n + 1}: {row['snapshots']:,} snapshots in {row['seconds']} s: "
                    f"{row['snapshots_per_s']:,}/s; {row['batches']} batches of {args.batch}: "
                    f"p50 {row['batch_p50_ms']} ms, p99 {row['batch_p99_ms']} ms; "
                    f"{row['series_failed']} failed; CPU s: collector {row['cpu_s']['collector']}, "
                    f"fake X {row['cpu_s']['fake_x']}; load {' '.join(row['loadavg'])}"
                )
            out["fake"] = fake.call("metrics_counts") | {"calls": fake.call("requests")["by_route"]}
            calls = out["fake"]["calls"].get("GET /2/tweets 200", 0)
            out["fake"]["ids_per_call"] = round(sum(r["snapshots"] for r in out["rounds"]) / max(calls, 1), 1)
            print(f"fake X: {out['fake']}")
            out["floor"] = asyncio.run(floor(settings, args.batch))
            print(
                f"floor, the same INSERTs directly: {out['floor']['snapshots']:,} in {out['floor']['seconds']} s: "
                f"{out['floor']['snapshots_per_s']:,}/s"
            )
        out["loadavg_at_end"] = load()
        print(f"load average at end: {' '.join(out['loadavg_at_end'])}")
    path = write_result("metrics_collect_live", "postgresql", out)
    print(f"wrote {path.relative_to(RESULTS.parent.parent)}")
