"""Bench: the dashboard's posts page (post groups, keyset pages) at 100,000 posts, beside its floor.

    .venv/bin/python -m bench.posts_page [--backend postgresql|sqlite] [--duration 5] [--posts 100000]

A fresh database (PostgreSQL by default) gets one organization with 8 profiles (two tags) and
--posts posts in about --posts / 2.5 groups (1 to 4 destinations each), inserted directly (COPY
on PostgreSQL): two years of history (published, some failed, partially published and canceled,
a few groups mixed) and two months ahead (scheduled, a few drafts); a second organization holds a
tenth as many, so every query has to keep to its own. Then ANALYZE, the real stack, and a
session signed in through /login as a browser does.

For each page (the first; a deep one, 20,000 groups in, through a keyset token; filtered by
profile and a date range; by tag; by a rare status) it measures, one request in flight, for
--duration seconds after a warm-up:
- the floor: the SQL `PostService/ListPostGroups` runs for that page (the session lookup and the
  listing's statements, captured at the driver as the core's own code sends them), replayed
  straight through psycopg 3 (sqlite3 on SQLite) in one transaction per request;
- `PostService/ListPostGroups` over gRPC with the session credential;
- `GET /dashboard/posts?…` (the session cookie): the page as a browser gets it (the session's
  principal, the organization switcher, the profiles for the filters, the groups, rendering).
Every answer's status is checked and one in ten parsed (25 groups, or as many as the filter
leaves). Prints p50/p99 of each and the page's p50 against the aim (<= 50 ms on PostgreSQL).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from bench.api_floor import replayed_load
from bench.dashboard_pages import (
    WORDS,
    add_page_options,
    browser_session,
    cookie_get_load,
    exit_status,
    insert_posts,
    org_profiles,
    post_service_call,
    post_service_load,
    session_statements,
)
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import Db, analyze, bench_database, bench_result, phases, run_bench
from bench.seed import seed_organization

EMAIL = "posts-page@example.com"
PROFILES = [
    ("pp-x", "x"),
    ("pp-bsky", "bluesky"),
    ("pp-li", "linkedin"),
    ("pp-mastodon", "mastodon"),
    ("pp-threads", "threads"),
    ("pp-ig", "instagram"),
    ("pp-tiktok", "tiktok"),
    ("pp-yt", "youtube"),
]
TAGS = {"pp-x": ["launch"], "pp-bsky": ["launch"], "pp-li": ["launch", "support"], "pp-mastodon": ["support"]}
PAGE_SIZE = 25
DEEP = 20_000  # groups before the deep page
GROUP_ROW = rb'<li class="group" data-group="grp_'  # one a group the page lists


# ----------------------------------------------------------------------------- seeding


def _status(rng: random.Random, at: datetime, now: datetime) -> str:
    if at > now:
        return "draft" if rng.random() < 0.1 else "scheduled"
    roll = rng.random()
    return (
        "published"
        if roll < 0.93
        else "failed"
        if roll < 0.96
        else "partially_published"
        if roll < 0.98
        else "canceled"
    )


def post_rows(org_id: str, profiles: list[tuple[str, str, str]], count: int, now: datetime, seed: int) -> list[tuple]:
    """`count` posts of one organization in groups of 1 to 4 destinations (distinct profiles),
    each group at one time between 700 days ago and 60 days ahead; a group's posts share their
    status but for one in twenty past groups, whose last post has a status of its own."""
    from core.ids import new_id

    rng = random.Random(seed)
    rows: list[tuple] = []
    start, span = now - timedelta(days=700), timedelta(days=760).total_seconds()
    while len(rows) < count:
        group = new_id("grp")
        at = start + timedelta(seconds=rng.uniform(0, span))
        at = at.replace(microsecond=0)
        status = _status(rng, at, now)
        destinations = rng.sample(profiles, min(len(profiles), rng.choice((1, 2, 2, 3, 3, 4))))
        content = f"Post {len(rows)} of the bench: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
        for k, (profile_id, slug, platform) in enumerate(destinations):
            mixed = k == len(destinations) - 1 and at < now and rng.random() < 0.05
            own = _status(rng, at, now) if mixed else status
            post_id = new_id("pst")
            published = at + timedelta(seconds=2) if own in ("published", "partially_published") else None
            rows.append(
                (
                    post_id,
                    org_id,
                    profile_id,
                    group,
                    slug,
                    platform,
                    content,
                    "feed",
                    own,
                    at,
                    at,
                    at - timedelta(hours=1),
                    published or at,
                    1 if own != "draft" and at < now else 0,
                    0,
                    new_id("dk"),
                    "platform_rejected" if own == "failed" else "",
                    "",
                    "",
                    f"sb-{post_id[-12:]}" if published else "",
                    "",
                    published,
                    "",
                    1,
                    "",
                )
            )
    return rows[:count]


async def seed(url: str, posts: int) -> dict[str, Any]:
    """The organization, its profiles, its posts and the other organization's; ANALYZE."""
    boot = await seed_organization(url, org="posts-page", profiles=PROFILES, tags=TAGS, credits=1000, email=EMAIL)
    other = await seed_organization(url, org="other", profiles=PROFILES[:3], credits=1000)
    now = datetime.now(UTC)
    with Db(url) as db:
        for org, count, rng_seed in ((boot, posts, 1), (other, posts // 10, 2)):
            insert_posts(db, post_rows(org["org_id"], org_profiles(db, org["org_id"]), count, now, rng_seed))
    analyze(url)
    return {"org_id": boot["org_id"], "now": now}


# ----------------------------------------------------------------------------- the pages measured


def cases(now: datetime) -> dict[str, dict[str, str]]:
    """Each page's query, as the page reads it (the deep page's token is found at run time)."""
    window_end = now - timedelta(days=200)
    return {
        "first page": {},
        "deep page": {"page": ""},
        "profile + dates": {
            "profile": "pp-x",
            "from": f"{window_end - timedelta(days=180):%Y-%m-%d}",
            "to": f"{window_end:%Y-%m-%d}",
        },
        "tag": {"tag": "support"},
        "status failed": {"status": "failed"},
    }


def list_request(query: dict[str, str]) -> Any:
    """The ListPostGroupsRequest the page sends for this query, built by the page's own code."""
    from facades.web.posts_pages import QUERY_KEYS, groups_request, read_filters

    return groups_request(read_filters({name: query.get(name, "") for name in QUERY_KEYS}), "UTC")


async def deep_token(url: str, org_id: str, groups: int) -> str:
    """The token of the page `groups` groups in, walked with the core's own listing."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from core.posts.group_listing import GroupFilter, list_groups

    engine = create_async_engine(url)
    token = ""
    try:
        async with engine.connect() as conn:
            for _ in range(groups // 100):
                token = (await list_groups(conn, org_id, GroupFilter(), size=100, token=token)).next_token
    finally:
        await engine.dispose()
    return token


async def floor_statements(url: str, session_token: str, org_id: str, request: Any) -> list[dict[str, Any]]:
    """The SQL of one ListPostGroups call as the core's own code sends it to the driver: the
    session's lookup, then the listing (the tag's profiles, each section's walk, the groups' posts,
    their media and parts)."""
    from core.posts.group_listing import GroupFilter, list_groups

    async def listing(conn: Any, now: datetime) -> None:
        filters = GroupFilter(
            status=request.status,
            profile=request.profile,
            tag=request.tag,
            scheduled_after=request.scheduled_after,
            scheduled_before=request.scheduled_before,
        )
        await list_groups(conn, org_id, filters, size=request.page_size, token=request.page_token)

    return await session_statements(url, session_token, listing)


# ----------------------------------------------------------------------------- orchestration


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    out: dict[str, Any] = {}
    with bench_database(args.backend) as (url, workdir, sessions):
        out.update(bench_result("the posts page at 100,000 posts beside its floor", "bench.posts_page", args, url))
        seeded = asyncio.run(seed(url, args.posts))
        with Db(url) as db:
            out["seeded"] = {
                "posts": db.one("SELECT count(*) FROM posts WHERE org_id = %s", (seeded["org_id"],)),
                "groups": db.one("SELECT count(DISTINCT group_id) FROM posts WHERE org_id = %s", (seeded["org_id"],)),
                "all_posts": db.one("SELECT count(*) FROM posts"),
            }
        print(f"seeded: {out['seeded']}", flush=True)
        with running_stack(url, workdir, core_processes=args.core_processes) as stack:
            token = browser_session(stack.base_url, EMAIL)
            pids = stack_pids(stack)
            phase = phases(args, pids, sessions)
            for name, query in cases(seeded["now"]).items():
                if "page" in query:
                    query = {"page": asyncio.run(deep_token(url, seeded["org_id"], DEEP))}
                request = list_request(query)
                statements = asyncio.run(floor_statements(url, token, seeded["org_id"], request))
                answer = asyncio.run(post_service_call(stack.core_target, token, "ListPostGroups", request))
                rows = len(answer.groups)
                path = "/dashboard/posts" + (f"?{urlencode(query)}" if query else "")
                case: dict[str, Any] = {"query": query, "rows": rows, "floor_sql": [s["sql"] for s in statements]}
                print(f"{name}: {rows} groups, {len(statements)} statements", flush=True)
                case["floor"] = phase(f"{name}: SQL floor", replayed_load, url=url, statements=statements)
                case["grpc"] = phase(
                    f"{name}: ListPostGroups",
                    post_service_load,
                    core_target=stack.core_target,
                    session_token=token,
                    rpc="ListPostGroups",
                    message=request.SerializeToString(),
                    field="groups",
                    expected=rows,
                )
                case["page"] = phase(
                    f"{name}: GET page",
                    cookie_get_load,
                    base_url=stack.base_url,
                    path=path,
                    session_token=token,
                    pattern=GROUP_ROW,
                    expected=rows,
                    accept="text/html",
                )
                out[f"case {name}"] = case
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
    return out


def print_table(out: dict[str, Any]) -> None:
    print()
    print(
        f"{'page':<18} {'rows':>4}  {'SQL floor p50/p99':>20}  {'ListPostGroups p50/p99':>24}  {'GET page p50/p99':>20}"
    )
    for key, case in out.items():
        if not key.startswith("case "):
            continue
        cells = [f"{case[k]['p50_ms']:6.2f} / {case[k]['p99_ms']:6.2f} ms" for k in ("floor", "grpc", "page")]
        print(f"{key.removeprefix('case '):<18} {case['rows']:>4}  {cells[0]:>20}  {cells[1]:>24}  {cells[2]:>20}")
    worst = max(c["page"]["p50_ms"] for k, c in out.items() if k.startswith("case "))
    print(f"the slowest page's p50: {worst:.2f} ms (aim on PostgreSQL: <= 50 ms)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.posts_page", description=__doc__.split("\n")[0])
    add_page_options(parser, posts=100_000, posts_help="posts of the measured organization")
    return exit_status(run_bench(parser.parse_args(argv), run, print_table, "posts_page"))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
