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
import re
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

from bench.load import measured_closed_loop, raw_http_workers
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import Db, add_run_options, analyze, bench_database, bench_result, measure, psycopg_dsn, run_bench
from bench.seed import BENCH_PASSWORD, seed_organization

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
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
GROUP_ROW = re.compile(rb'<li class="group" data-group="grp_')
POST_COLUMNS = (
    "id, org_id, profile_id, group_id, profile_slug, connector, content, post_type, status, schedule_at, due_at, "
    "created_at, updated_at, attempts, charged, delivery_key, failure_reason, failure_detail, platform_error, "
    "platform_post_id, platform_url, published_at, delivery_state, units, tiktok_options"
)


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


WORDS = ["spring", "launch", "recycled", "fabric", "colours", "new", "collection", "today", "thanks", "everyone"]


async def seed(url: str, posts: int) -> dict[str, Any]:
    """The organization, its profiles, its posts and the other organization's; ANALYZE."""
    boot = await seed_organization(url, org="posts-page", profiles=PROFILES, tags=TAGS, credits=1000, email=EMAIL)
    other = await seed_organization(url, org="other", profiles=PROFILES[:3], credits=1000)
    now = datetime.now(UTC)
    with Db(url) as db:
        for org, count, rng_seed in ((boot, posts, 1), (other, posts // 10, 2)):
            profiles = [
                (r[0], r[1], r[2])
                for r in db.all("SELECT id, slug, connector FROM profiles WHERE org_id = %s", (org["org_id"],))
            ]
            rows = post_rows(org["org_id"], profiles, count, now, rng_seed)
            insert(db, rows)
    analyze(url)
    return {"org_id": boot["org_id"], "now": now}


def insert(db: Db, rows: list[tuple]) -> None:
    if db.sqlite:
        marks = ", ".join("?" * len(rows[0]))
        text = [tuple(v.strftime("%Y-%m-%d %H:%M:%S.%f") if isinstance(v, datetime) else v for v in r) for r in rows]
        db.conn.execute("BEGIN")
        db.conn.executemany(f"INSERT INTO posts ({POST_COLUMNS}) VALUES ({marks})", text)
        db.conn.execute("COMMIT")
        return
    with db.conn.cursor().copy(f"COPY posts ({POST_COLUMNS}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


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
    from herald.posts.v1 import posts_pb2

    from facades.web.posts_pages import GROUPS_PER_PAGE, QUERY_KEYS, day_bounds, read_filters

    filters = read_filters({name: query.get(name, "") for name in QUERY_KEYS})
    after, before = day_bounds(filters, "UTC")
    return posts_pb2.ListPostGroupsRequest(
        status=filters.status,
        profile=filters.profile,
        tag=filters.tag,
        scheduled_after=after,
        scheduled_before=before,
        page_size=GROUPS_PER_PAGE,
        page_token=filters.page,
    )


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
    from bench.api_floor import captured_statements
    from core.identity.authentication import authenticate
    from core.posts.group_listing import GroupFilter, list_groups

    async def work(conn: Any) -> None:
        await authenticate(conn, f"Bearer {session_token}", datetime.now(UTC), audience="")
        filters = GroupFilter(
            status=request.status,
            profile=request.profile,
            tag=request.tag,
            scheduled_after=request.scheduled_after,
            scheduled_before=request.scheduled_before,
        )
        await list_groups(conn, org_id, filters, size=request.page_size, token=request.page_token)

    statements, _ = await captured_statements(url, work)
    return statements


def session(base_url: str) -> str:
    """Signs in through /login as a browser does; the session token."""
    import httpx

    with httpx.Client(base_url=base_url, timeout=30) as http:
        token = CSRF_FIELD.search(http.get("/login").text).group(1)
        signed = http.post("/login", data={"csrf_token": token, "email": EMAIL, "password": BENCH_PASSWORD})
        if signed.status_code != 303 or not http.cookies.get("herald_session"):
            raise RuntimeError(f"sign-in failed: HTTP {signed.status_code}")
        return http.cookies["herald_session"]


# ----------------------------------------------------------------------------- load (child processes)


def _rows_check(expected: int) -> Any:
    def check(body: bytes) -> str | None:
        found = len(GROUP_ROW.findall(body))
        return None if found == expected else f"{found} rows, expected {expected}: {body[:200]!r}"

    return check


async def page_load(
    window: Any, *, base_url: str, path: str, session_token: str, rows: int, duration: float, warmup: float
) -> dict[str, Any]:
    parts = urlsplit(base_url)
    raw = (
        f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nCookie: herald_session={session_token}\r\n"
        "Accept: text/html\r\n\r\n"
    ).encode()
    workers, close = await raw_http_workers(parts.hostname, parts.port, raw, 1, _rows_check(rows))
    try:
        return await measured_closed_loop(window, workers, duration, warmup)
    finally:
        close()


async def grpc_load(
    window: Any, *, core_target: str, session_token: str, message: bytes, rows: int, duration: float, warmup: float
) -> dict[str, Any]:
    import grpc
    from herald.posts.v1 import posts_pb2

    channel = grpc.aio.insecure_channel(core_target)
    call = channel.unary_unary(
        "/herald.posts.v1.PostService/ListPostGroups",
        request_serializer=None,  # the request is sent as the bytes the page would send
        response_deserializer=posts_pb2.ListPostGroupsResponse.FromString,
    )
    metadata = (("authorization", f"Bearer {session_token}"),)

    async def one(validate: bool) -> str | None:
        answer = await call(message, metadata=metadata, timeout=15)
        if validate and len(answer.groups) != rows:
            return f"{len(answer.groups)} groups, expected {rows}"
        return None

    try:
        return await measured_closed_loop(window, [one], duration, warmup)
    finally:
        await channel.close()


async def floor_load(
    window: Any, *, url: str, statements: list[dict[str, Any]], duration: float, warmup: float
) -> dict[str, Any]:
    """The captured statements, one transaction per request, on one connection of the driver."""
    from bench.api_floor import measured_psycopg_loop, measured_sqlite_loop

    if url.startswith("sqlite"):

        def one_for(db: Any) -> Any:
            def one() -> str | None:
                db.execute("BEGIN")
                for s in statements:
                    db.execute(s["sql"], s["params"]).fetchall()
                db.execute("COMMIT")
                return None

            return one

        return await measured_sqlite_loop(window, url.split("///", 1)[1], one_for, duration, warmup)

    def worker_for(conn: Any) -> Any:
        async def one(validate: bool) -> str | None:
            try:
                for s in statements:
                    await (await conn.execute(s["sql"], s["params"])).fetchall()
                await conn.commit()
            except BaseException:
                await conn.rollback()
                raise
            return None

        return one

    return await measured_psycopg_loop(window, psycopg_dsn(url), 1, worker_for, duration, warmup)


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
            token = session(stack.base_url)
            pids = stack_pids(stack)
            timing = {"duration": args.duration, "warmup": args.warmup}
            for name, query in cases(seeded["now"]).items():
                if "page" in query:
                    query = {"page": asyncio.run(deep_token(url, seeded["org_id"], DEEP))}
                request = list_request(query)
                statements = asyncio.run(floor_statements(url, token, seeded["org_id"], request))
                rows = len(asyncio.run(_answer(stack.core_target, token, request)).groups)
                path = "/dashboard/posts" + (f"?{urlencode(query)}" if query else "")
                case: dict[str, Any] = {"query": query, "rows": rows, "floor_sql": [s["sql"] for s in statements]}
                print(f"{name}: {rows} groups, {len(statements)} statements", flush=True)
                case["floor"] = measure(
                    f"{name}: SQL floor",
                    floor_load,
                    {"url": url, "statements": statements, **timing},
                    pids,
                    args.duration,
                    sessions,
                    args.wait_quiet,
                )
                case["grpc"] = measure(
                    f"{name}: ListPostGroups",
                    grpc_load,
                    {
                        "core_target": stack.core_target,
                        "session_token": token,
                        "message": request.SerializeToString(),
                        "rows": rows,
                        **timing,
                    },
                    pids,
                    args.duration,
                    sessions,
                    args.wait_quiet,
                )
                case["page"] = measure(
                    f"{name}: GET page",
                    page_load,
                    {"base_url": stack.base_url, "path": path, "session_token": token, "rows": rows, **timing},
                    pids,
                    args.duration,
                    sessions,
                    args.wait_quiet,
                )
                out[f"case {name}"] = case
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
    return out


async def _answer(core_target: str, session_token: str, request: Any) -> Any:
    import grpc
    from herald.posts.v1 import posts_pb2_grpc

    async with grpc.aio.insecure_channel(core_target) as channel:
        stub = posts_pb2_grpc.PostServiceStub(channel)
        return await stub.ListPostGroups(request, metadata=(("authorization", f"Bearer {session_token}"),))


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
    add_run_options(parser)
    parser.add_argument("--posts", type=int, default=100_000, help="posts of the measured organization")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of each measured run")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up before each run")
    parser.add_argument("--core-processes", type=int, default=1, help="core processes sharing one port")
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "posts_page")
    if out is None:
        return 130
    phases = [c[k] for key, c in out.items() if key.startswith("case ") for k in ("floor", "grpc", "page")]
    return 1 if any(p.get("errors") for p in phases) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
