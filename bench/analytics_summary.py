"""Bench: analytics' summaries and lists (issue 33; docs/analytics.md, "Summaries and lists").

    .venv/bin/python -m bench.analytics_summary [--posts 100000] [--days 90] [--requests 200]

On PostgreSQL, one organization (time zone Europe/Paris) with `--posts` published posts spread
evenly over the last `--days` days and four sandbox profiles (X, Bluesky, Mastodon, LinkedIn: X and
LinkedIn count impressions, the others do not), each post with its series as a worker's reads leave
it (its latest reading on the series row, a raw answer of the sandbox's size) and six snapshots of
the post itself, written in SQL (generate_series). Then, with the core and the facade running
(harness/stack.py), one request in flight:
- `GET /v1/analytics/summary` over the whole range, for each group_by: p50/p99 through facade ->
  gRPC -> PostgreSQL, beside its floor: the same SQL (captured as the core's own code sends it,
  the organization's time zone and the grouped sums) run straight through psycopg, one
  transaction per request;
- `GET /v1/analytics/posts` over the range, newest first and by likes (a page of 50);
- `GET /v1/posts/{id}/metrics` against `GET /v1/posts/{id}` of the same post, alternated;
- bytes: pg_total_relation_size of post_metric_snapshots per snapshot, and of post_metric_series
  (after VACUUM FULL) per post and per snapshot.
Writes bench/results/analytics_summary-postgresql-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.api_floor import captured_statements
from bench.load import percentile
from bench.runs import RESULTS, Db, analyze, bench_database, bench_result, psycopg_dsn, write_result
from bench.seed import seed_organization

PROFILES = [("a-x", "x"), ("a-bsky", "bluesky"), ("a-mastodon", "mastodon"), ("a-li", "linkedin")]
WITH_IMPRESSIONS = ("x", "linkedin")
GROUPS = ("day", "week", "profile", "connector")


def seed(db: Db, org_id: str, count: int, days: int, now: datetime) -> None:
    """`count` published posts over `days` days before now, round robin over the profiles, each with
    its series (latest reading on it) and six snapshots of the post itself."""
    profiles = db.all("SELECT id, slug, connector FROM profiles WHERE org_id = %s ORDER BY slug", (org_id,))
    ids, slugs, connectors = ([p[i] for p in profiles] for i in range(3))
    db.execute(
        "INSERT INTO posts (id, org_id, profile_id, group_id, profile_slug, connector, content, post_type, status, "
        "schedule_at, due_at, created_at, updated_at, attempts, charged, delivery_key, failure_reason, "
        "failure_detail, platform_error, platform_post_id, platform_url, published_at, delivery_state, units, "
        "tiktok_options) "
        "SELECT 'pst_' || lpad(g::text, 26, '0'), %s, (%s::text[])[g %% 4 + 1], 'grp_' || lpad(g::text, 26, '0'), "
        "(%s::text[])[g %% 4 + 1], (%s::text[])[g %% 4 + 1], 'Post ' || g, 'feed', 'published', t, t, t, t, 1, 1, "
        "'dk' || g, '', '', '', 'sb-' || g, 'https://example.com/' || g, t, '', 1, '' "
        "FROM (SELECT g, %s::timestamptz - g * (%s::interval / %s) AS t FROM generate_series(1, %s) AS g) AS s",
        (org_id, ids, slugs, connectors, now, f"{days} days", count, count),
    )
    # Each post's final numbers from a hash of its id; impressions only where the platform gives them.
    db.execute(
        "CREATE TEMP TABLE numbers AS SELECT p.id, p.org_id, p.profile_id, p.connector, p.published_at, "
        "CASE WHEN p.connector = ANY(%s) THEN 500 + abs(hashtext(p.id)) %% 20000 END AS impressions, "
        "10 + abs(hashtext(p.id || 'l')) %% 800 AS likes, abs(hashtext(p.id || 'r')) %% 120 AS reposts, "
        "abs(hashtext(p.id || 'c')) %% 60 AS replies FROM posts AS p WHERE p.org_id = %s",
        (list(WITH_IMPRESSIONS), org_id),
    )
    db.execute(
        "INSERT INTO post_metric_series (post_id, org_id, profile_id, connector, published_at, due_at, step, "
        "refresh, failures, last_error, read_at, raw, latest_at, latest_sandbox, latest_impressions, latest_likes, "
        "latest_reposts, latest_replies) "
        "SELECT id, org_id, profile_id, connector, published_at, NULL, 6, false, 0, '', published_at + interval "
        '\'30 days\', format(\'[{"part":-1,"answer":{"sandbox":true,"id":"sb-%%s","age_seconds":2592000,'
        '"metrics":{"impressions":%%s,"likes":%%s,"reposts":%%s,"replies":%%s}}}]\', id, impressions, '
        "likes, reposts, replies), published_at + interval '30 days', true, impressions, likes, reposts, replies "
        "FROM numbers"
    )
    db.execute(
        "INSERT INTO post_metric_snapshots (series_id, part, collected_at, sandbox, impressions, likes, reposts, "
        "replies) SELECT s.id, -1, s.published_at + k * interval '5 days', true, n.impressions * k / 6, "
        "n.likes * k / 6, n.reposts * k / 6, n.replies * k / 6 FROM post_metric_series AS s "
        "JOIN numbers AS n ON n.id = s.post_id, generate_series(1, 6) AS k"
    )
    db.execute("DROP TABLE numbers")
    db.execute("VACUUM ANALYZE posts")
    db.execute("VACUUM ANALYZE post_metric_series")
    db.execute("VACUUM ANALYZE post_metric_snapshots")
    analyze(db.url)


def timed(one: Any, count: int) -> dict[str, float]:
    """p50/p99 of `count` calls of one() in a row, after a tenth as many unmeasured."""
    for _ in range(max(3, count // 10)):
        one()
    latencies = []
    for _ in range(count):
        began = time.perf_counter()
        one()
        latencies.append((time.perf_counter() - began) * 1000)
    latencies.sort()
    return {"p50_ms": round(percentile(latencies, 50), 2), "p99_ms": round(percentile(latencies, 99), 2)}


def http_get(client: Any, path: str, params: dict[str, str]) -> Any:
    def one() -> None:
        answer = client.get(path, params=params)
        if answer.status_code != 200:
            raise RuntimeError(f"{path}: HTTP {answer.status_code} {answer.text[:200]}")

    return one


async def summary_statements(url: str, org_id: str, params: dict[str, str]) -> list[dict[str, Any]]:
    """The SQL core.analytics.summaries.summary sends for `params`, as the driver gets it."""
    from core.analytics.filters import Filters
    from core.analytics.summaries import summary

    filters = Filters(start=params["from"], end=params["to"])

    async def work(conn: Any) -> None:
        await summary(conn, org_id, filters, params.get("group_by", ""), datetime.now(UTC))

    statements, _ = await captured_statements(url, work)
    return statements


def floor(url: str, statements: list[dict[str, Any]]) -> Any:
    """The statements straight through psycopg, one transaction per request; returns one() and the
    connection to close."""
    import psycopg

    conn = psycopg.connect(psycopg_dsn(url))

    def one() -> None:
        with conn.transaction():
            for s in statements:
                conn.execute(s["sql"], s["params"]).fetchall()

    return one, conn


def storage(db: Db) -> dict[str, Any]:
    snapshots = db.one("SELECT count(*) FROM post_metric_snapshots")
    series = db.one("SELECT count(*) FROM post_metric_series")
    snapshot_bytes = db.one("SELECT pg_total_relation_size('post_metric_snapshots')")
    db.execute("VACUUM FULL post_metric_series")
    series_bytes = db.one("SELECT pg_total_relation_size('post_metric_series')")
    return {
        "snapshots": snapshots,
        "bytes_per_snapshot": round(snapshot_bytes / snapshots, 1),
        "series_bytes_per_post": round(series_bytes / series, 1),
        "all_bytes_per_snapshot": round((snapshot_bytes + series_bytes) / snapshots, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()

    import httpx

    from harness.stack import running_stack

    with bench_database("postgresql") as (url, workdir, _sessions):
        out = bench_result("analytics_summary", "bench.analytics_summary", args, url)
        boot = asyncio.run(seed_organization(url, org="analytics", profiles=PROFILES, credits=0))
        now = datetime.now(UTC)
        with Db(url) as db:
            db.execute("UPDATE organizations SET time_zone = 'Europe/Paris' WHERE id = %s", (boot["org_id"],))
            began = time.perf_counter()
            seed(db, boot["org_id"], args.posts, args.days, now)
            print(f"seeded {args.posts:,} posts over {args.days} days in {time.perf_counter() - began:.0f} s")
            post_id = db.one("SELECT post_id FROM post_metric_series ORDER BY published_at DESC LIMIT 1")
        window = {
            "from": (now - timedelta(days=args.days)).isoformat().replace("+00:00", "Z"),
            "to": (now + timedelta(minutes=1)).isoformat().replace("+00:00", "Z"),
        }
        out["summary"], out["posts"] = {}, {}
        with (
            running_stack(url, workdir) as stack,
            httpx.Client(
                base_url=stack.base_url, headers={"Authorization": f"Bearer {boot['api_key']}"}, timeout=60
            ) as client,
        ):
            for group_by in GROUPS:
                params = {**window, "group_by": group_by}
                body = client.get("/v1/analytics/summary", params=params).json()
                if body["total"]["posts"] != args.posts:
                    raise RuntimeError(f"the summary counts {body['total']['posts']} posts, not {args.posts}")
                out["summary"][group_by] = {
                    "api": timed(http_get(client, "/v1/analytics/summary", params), args.requests)
                }
            for sort in ("published_at", "likes"):
                params = {**window, "sort": sort}
                out["posts"][sort] = timed(http_get(client, "/v1/analytics/posts", params), args.requests)
            metrics = http_get(client, f"/v1/posts/{post_id}/metrics", {})
            post = http_get(client, f"/v1/posts/{post_id}", {})
            pairs: dict[str, list[float]] = {"metrics": [], "post": []}
            for _ in range(args.requests):
                for name, one in (("metrics", metrics), ("post", post)):
                    began = time.perf_counter()
                    one()
                    pairs[name].append((time.perf_counter() - began) * 1000)
            p50 = {name: round(percentile(sorted(v), 50), 2) for name, v in pairs.items()}
            out["post_metrics"] = {**p50, "ratio": round(p50["metrics"] / p50["post"], 2)}
        for group_by in GROUPS:
            statements = asyncio.run(summary_statements(url, boot["org_id"], {**window, "group_by": group_by}))
            one, conn = floor(url, statements)
            try:
                out["summary"][group_by]["floor"] = timed(one, args.requests)
            finally:
                conn.close()
        with Db(url) as db:
            plan = db.all("EXPLAIN (ANALYZE, BUFFERS) " + statements[-1]["sql"], statements[-1]["params"])
            out["plan_connector"] = [row[0] for row in plan]
            out["storage"] = storage(db)
    for group_by, row in out["summary"].items():
        api, floor_ = row["api"], row["floor"]
        print(
            f"GET /v1/analytics/summary group_by={group_by}: p50 {api['p50_ms']} ms, p99 {api['p99_ms']} ms; "
            f"floor p50 {floor_['p50_ms']} ms, p99 {floor_['p99_ms']} ms"
        )
    for sort, row in out["posts"].items():
        print(f"GET /v1/analytics/posts sort={sort}: p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms")
    pm = out["post_metrics"]
    print(
        f"GET /v1/posts/{{id}}/metrics p50 {pm['metrics']} ms against GET /v1/posts/{{id}} {pm['post']} ms: {pm['ratio']}x"
    )
    st = out["storage"]
    print(
        f"{st['snapshots']:,} snapshots: {st['bytes_per_snapshot']} bytes each; series {st['series_bytes_per_post']} "
        f"bytes per post; both {st['all_bytes_per_snapshot']} bytes per snapshot"
    )
    path = write_result("analytics_summary", "postgresql", out)
    print(f"wrote {path.relative_to(RESULTS.parent.parent)}")


if __name__ == "__main__":
    main()
