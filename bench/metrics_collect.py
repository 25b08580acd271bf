"""Bench: collecting published posts' metrics (issue 33; docs/analytics.md, "Collection").

    .venv/bin/python -m bench.metrics_collect [--posts 100000] [--small 10000] [--rounds 3] [--claims 100]

Published posts are written straight into `posts` (COPY), spread over four sandbox profiles (X,
Bluesky, Mastodon, LinkedIn: their metrics differ), each tracked by a `post_metric_series` row
whose first read is due. On PostgreSQL it measures:
- the claim alone (core/analytics/reads.claim of a batch, then put back) with `--small` posts
  tracked and with `--posts`, every one of them due: p50/p99 per claim;
- the whole collection path, core/analytics/collector.MetricsCollector.collect_due in a loop as a
  worker runs it (claim a batch, the sandbox connector's calls in each platform's batches, the
  snapshots and next reads written fenced), until every post is read: snapshots per second, for
  `--rounds` rounds (each round makes every post due again, as the next step of its schedule);
- bytes per snapshot: pg_total_relation_size(post_metric_snapshots), its table and its primary
  key, over its rows after the rounds (the key takes a round's snapshots in the middle of its
  pages from the second round on, as reads at growing ages do).
Writes bench/results/metrics_collect-postgresql-<time>.json.

With --live, the same path reads each post from a fake X over HTTP instead of the sandbox
(bench/metrics_collect_live.py).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.dashboard_pages import insert_posts, org_profiles
from bench.load import percentile
from bench.runs import RESULTS, Db, analyze, bench_database, bench_result, write_result
from bench.seed import seed_organization

PROFILES = [("m-x", "x"), ("m-bsky", "bluesky"), ("m-mastodon", "mastodon"), ("m-li", "linkedin")]
SCHEDULE = "1h,6h,24h,3d,7d,30d"


def post_rows(org_id: str, profiles: list[tuple[str, str, str]], first: int, count: int, now: datetime) -> list:
    """`count` published posts, round robin over the profiles, each published two hours ago."""
    from core.ids import new_id

    published = now - timedelta(hours=2)
    rows = []
    for n in range(first, first + count):
        profile_id, slug, platform = profiles[n % len(profiles)]
        post_id = new_id("pst")
        rows.append(
            (post_id, org_id, profile_id, new_id("grp"), slug, platform, f"Post {n}", "feed", "published")
            + (published, published, published, published, 1, 1, new_id("dk"), "", "", "")
            + (f"sb-{n}", "", published, "", 1, "")
        )
    return rows


def track(db: Db, org_id: str, due_at: datetime) -> None:
    """A series per post not tracked yet, its first read due at `due_at`."""
    db.execute(
        "INSERT INTO post_metric_series (post_id, org_id, published_at, due_at, step, refresh, failures, "
        "last_error, raw) SELECT p.id, p.org_id, p.published_at, %s, 0, false, 0, '', '' FROM posts AS p "
        "WHERE p.org_id = %s AND NOT EXISTS (SELECT 1 FROM post_metric_series AS s WHERE s.post_id = p.id)",
        (due_at, org_id),
    )


def grow(db: Db, org_id: str, profiles: list, tracked: int, wanted: int, now: datetime) -> int:
    for first in range(tracked, wanted, 20_000):
        insert_posts(db, post_rows(org_id, profiles, first, min(20_000, wanted - first), now))
    track(db, org_id, now - timedelta(hours=1))
    analyze(db.url)
    return wanted


async def claims(url: str, settings: Any, reps: int) -> dict[str, float]:
    """`reps` claims of a batch, each put back after (so every rep claims from the same rows)."""
    from sqlalchemy import update

    from core.analytics import reads
    from core.db.engine import create_engine
    from core.db.models import post_metric_series

    engine = create_engine(settings)
    timings = []
    try:
        for _ in range(reps):
            began = time.perf_counter()
            batch = await reads.claim(
                engine, "bench", datetime.now(UTC), limit=settings.metrics_read_batch_size, lease_seconds=60
            )
            timings.append((time.perf_counter() - began) * 1000)
            assert len(batch.reads) == settings.metrics_read_batch_size, len(batch.reads)
            async with engine.begin() as conn:
                await conn.execute(
                    update(post_metric_series)
                    .where(post_metric_series.c.lease_owner == batch.token)
                    .values(lease_owner=None, due_at=datetime.now(UTC) - timedelta(hours=1))
                )
    finally:
        await engine.dispose()
    timings.sort()
    return {"p50_ms": round(percentile(timings, 50), 2), "p99_ms": round(percentile(timings, 99), 2)}


async def collect_all(url: str, settings: Any) -> dict[str, float]:
    """Rounds of collect_due until no read is due: snapshots written, seconds, snapshots/s."""
    from sqlalchemy import func, select

    from core.analytics.collector import MetricsCollector
    from core.db.engine import create_engine
    from core.db.models import post_metric_snapshots

    engine = create_engine(settings)
    collector = MetricsCollector(settings, engine, "bench")
    try:
        async with engine.connect() as conn:
            before = await conn.scalar(select(func.count()).select_from(post_metric_snapshots))
        began = time.perf_counter()
        while await collector.collect_due():
            pass
        seconds = time.perf_counter() - began
        async with engine.connect() as conn:
            written = await conn.scalar(select(func.count()).select_from(post_metric_snapshots)) - before
    finally:
        await engine.dispose()
    return {"snapshots": written, "seconds": round(seconds, 2), "snapshots_per_s": round(written / seconds)}


def storage(db: Db) -> dict[str, Any]:
    rows = db.one("SELECT count(*) FROM post_metric_snapshots")
    total = db.one("SELECT pg_total_relation_size('post_metric_snapshots')")
    heap = db.one("SELECT pg_relation_size('post_metric_snapshots')")
    key = db.one("SELECT pg_relation_size('pk_post_metric_snapshots')")
    series = db.one("SELECT count(*) FROM post_metric_series")
    db.execute("VACUUM FULL post_metric_series")  # its rows are updated at every read: live rows only
    series_total = db.one("SELECT pg_total_relation_size('post_metric_series')")
    return {
        "snapshots": rows,
        "bytes_per_snapshot": round(total / rows, 1),
        "heap_bytes_per_snapshot": round(heap / rows, 1),
        "key_bytes_per_snapshot": round(key / rows, 1),
        "series_bytes_per_post": round(series_total / series, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--claims", type=int, default=100)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--live", action="store_true", help="read each post from a fake X over HTTP")
    parser.add_argument(
        "--accounts", type=int, default=5, help="--live: the X profiles the posts belong to (5: 100 of a batch each)"
    )
    args = parser.parse_args()
    if args.live:
        from bench.metrics_collect_live import run_live

        run_live(args)
        return

    from core.settings import CoreSettings

    with bench_database("postgresql") as (url, _workdir, _sessions):
        out = bench_result("metrics_collect", "bench.metrics_collect", args, url)
        settings = CoreSettings(database_url=url, metrics_schedule=SCHEDULE, metrics_read_batch_size=args.batch)
        boot = asyncio.run(seed_organization(url, org="metrics", profiles=PROFILES, credits=0))
        now = datetime.now(UTC)
        with Db(url) as db:
            profiles = org_profiles(db, boot["org_id"])
            tracked = grow(db, boot["org_id"], profiles, 0, args.small, now)
            out["claim"] = {str(tracked): asyncio.run(claims(url, settings, args.claims))}
            tracked = grow(db, boot["org_id"], profiles, tracked, args.posts, now)
            out["claim"][str(tracked)] = asyncio.run(claims(url, settings, args.claims))
            for size, row in out["claim"].items():
                print(f"claim of {args.batch} with {int(size):,} due: p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms")
            out["rounds"] = []
            for n in range(args.rounds):
                if n:  # the next step of every post's schedule comes due
                    db.execute("UPDATE post_metric_series SET due_at = %s", (datetime.now(UTC) - timedelta(minutes=1),))
                    analyze(url)
                row = asyncio.run(collect_all(url, settings))
                out["rounds"].append(row)
                print(
                    f"round {n + 1}: {row['snapshots']:,} snapshots in {row['seconds']} s: {row['snapshots_per_s']:,}/s"
                )
            out["storage"] = storage(db)
        print(
            f"{out['storage']['snapshots']:,} snapshots: {out['storage']['bytes_per_snapshot']} bytes each "
            f"(table {out['storage']['heap_bytes_per_snapshot']}, key {out['storage']['key_bytes_per_snapshot']}); "
            f"series {out['storage']['series_bytes_per_post']} bytes per post"
        )
    path = write_result("metrics_collect", "postgresql", out)
    print(f"wrote {path.relative_to(RESULTS.parent.parent)}")


if __name__ == "__main__":
    main()
