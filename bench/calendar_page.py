"""Bench: the dashboard's calendar, a month of 2,000 posts, beside its floor; and what the page
makes a browser download.

    .venv/bin/python -m bench.calendar_page [--backend postgresql|sqlite] [--duration 5] [--posts 2000]

A fresh database (PostgreSQL by default) gets one organization working in Europe/Paris with 8
profiles (one with a weekly table of 14 time slots) and --posts posts scheduled over next month's
grid (the six weeks the month view shows), all scheduled but one in ten a draft, each text 60 to
300 characters; 20,000 more posts over the two years before (published) and a second
organization with as many posts in the same month, so the range read has to keep to its own.
Inserted directly (COPY on PostgreSQL), then ANALYZE, the real stack, and a session signed in
through /login as a browser does.

For the month (every profile) and for the month of the profile with time slots (its posts and
its free slots), one request in flight, for --duration seconds after a warm-up:
- the floor: the SQL one `PostService/ListCalendarPosts` call runs (the session's lookup, the
  range read, with a profile its slot table and the minutes its posts hold), captured at the
  driver as the core's own code sends it, replayed straight through psycopg 3 (sqlite3 on
  SQLite) in one transaction per request;
- `PostService/ListCalendarPosts` over gRPC with the session credential;
- `GET /dashboard/calendar/events?start=…&end=…&zone=Europe/Paris` with the session cookie: what
  the page's script asks for (the posts as wall-clock times, JSON);
- `GET /dashboard/calendar?date=…` (the month): the page itself (the session's principal, the
  organization switcher, the profiles and the catalog for the filters, the range's posts for the
  grid without the script, rendering).
Every answer's status is checked and one in ten read (the number of posts). Prints p50/p99 of
each, the events endpoint's p50 against the aim (<= 100 ms on PostgreSQL), and the JavaScript
and CSS the page loads: each file's size as served (the library's files gzip-compressed by the
facade; the rest as they are) and gzip -9'd (what a compressing proxy would send), against the
aim (<= 350 KB compressed).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import random
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit
from zoneinfo import ZoneInfo

from bench.load import measured_closed_loop, raw_http_workers
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import Db, add_run_options, analyze, bench_database, bench_result, measure, psycopg_dsn, run_bench
from bench.seed import BENCH_PASSWORD, seed_organization

EMAIL = "calendar@example.com"
ZONE = "Europe/Paris"
PROFILES = [
    ("cal-x", "x"),
    ("cal-bsky", "bluesky"),
    ("cal-li", "linkedin"),
    ("cal-mastodon", "mastodon"),
    ("cal-threads", "threads"),
    ("cal-ig", "instagram"),
    ("cal-tiktok", "tiktok"),
    ("cal-yt", "youtube"),
]
TAGS = {"cal-x": ["launch"], "cal-bsky": ["launch"], "cal-li": ["launch"]}
SLOTTED = "cal-x"  # the profile with a table of time slots
SLOTS = (
    '{"timezone":"Europe/Paris","slots":['
    + ",".join(
        f'{{"day":"{d}","time":"{t}"}}'
        for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
        for t in ("09:00", "17:30")
    )
    + "]}"
)
HISTORY = 20_000
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
POST_ID = re.compile(rb'"id":"pst_')
ASSETS = re.compile(r'<(?:script src|link rel="stylesheet" href)="(/[^"]+)"')
AIM_MS = 100.0
AIM_KB = 350.0
WORDS = ["spring", "launch", "recycled", "fabric", "colours", "new", "collection", "today", "thanks", "everyone"]
POST_COLUMNS = (
    "id, org_id, profile_id, group_id, profile_slug, connector, content, post_type, status, schedule_at, due_at, "
    "created_at, updated_at, attempts, charged, delivery_key, failure_reason, failure_detail, platform_error, "
    "platform_post_id, platform_url, published_at, delivery_state, units, tiktok_options"
)


# ----------------------------------------------------------------------------- seeding


def month_grid(now: datetime) -> tuple[date, date, date]:
    """Next month in Paris: its first day, and the six weeks the month view shows [start, end)."""
    today = now.astimezone(ZoneInfo(ZONE)).date()
    first = (today.replace(day=1) + timedelta(days=32)).replace(day=1)
    start = first - timedelta(days=first.weekday())
    return first, start, start + timedelta(days=42)


def post_rows(
    org_id: str,
    profiles: list[tuple[str, str, str]],
    count: int,
    span: tuple[datetime, datetime],
    status: str,
    seed: int,
) -> list[tuple]:
    from core.ids import new_id

    rng = random.Random(seed)
    start, seconds = span[0], (span[1] - span[0]).total_seconds()
    rows = []
    for n in range(count):
        profile_id, slug, platform = rng.choice(profiles)
        at = (start + timedelta(seconds=rng.uniform(0, seconds))).replace(second=0, microsecond=0).astimezone(UTC)
        own = "draft" if status == "scheduled" and rng.random() < 0.1 else status
        content = f"Post {n}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 45)))
        post_id = new_id("pst")
        published = at if own == "published" else None
        rows.append(
            (
                post_id, org_id, profile_id, new_id("grp"), slug, platform, content, "feed", own, at, at,
                at - timedelta(days=1), at - timedelta(days=1), 1 if published else 0, 0, new_id("dk"), "", "", "",
                f"sb-{post_id[-12:]}" if published else "", "", published, "", 1, "",
            )
        )  # fmt: skip
    return rows


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


async def seed(url: str, posts: int) -> dict[str, Any]:
    boot = await seed_organization(url, org="calendar", profiles=PROFILES, tags=TAGS, credits=1000, email=EMAIL)
    other = await seed_organization(url, org="other", profiles=PROFILES[:3], credits=1000)
    now = datetime.now(UTC)
    first, start, end = month_grid(now)
    zone = ZoneInfo(ZONE)
    grid = (datetime.combine(start, datetime.min.time(), zone), datetime.combine(end, datetime.min.time(), zone))
    history = (now - timedelta(days=730), now - timedelta(days=1))
    with Db(url) as db:
        db.execute("UPDATE organizations SET time_zone = %s WHERE id = %s", (ZONE, boot["org_id"]))
        db.execute(
            "UPDATE profiles SET slot_table = %s WHERE org_id = %s AND slug = %s", (SLOTS, boot["org_id"], SLOTTED)
        )
        for org, count, span, status, rng_seed in (
            (boot, posts, grid, "scheduled", 1),
            (boot, HISTORY, history, "published", 2),
            (other, posts, grid, "scheduled", 3),
        ):
            profiles = [
                (r[0], r[1], r[2])
                for r in db.all("SELECT id, slug, connector FROM profiles WHERE org_id = %s", (org["org_id"],))
            ]
            insert(db, post_rows(org["org_id"], profiles, count, span, status, rng_seed))
    analyze(url)
    return {"org_id": boot["org_id"], "first": first, "start": start, "end": end, "grid": grid}


# ----------------------------------------------------------------------------- what is measured


def session(base_url: str) -> str:
    """Signs in through /login as a browser does; the session token."""
    import httpx

    with httpx.Client(base_url=base_url, timeout=30) as http:
        token = CSRF_FIELD.search(http.get("/login").text).group(1)
        signed = http.post("/login", data={"csrf_token": token, "email": EMAIL, "password": BENCH_PASSWORD})
        if signed.status_code != 303 or not http.cookies.get("herald_session"):
            raise RuntimeError(f"sign-in failed: HTTP {signed.status_code}")
        return http.cookies["herald_session"]


def calendar_request(seeded: dict[str, Any], profile: str) -> Any:
    from herald.posts.v1 import posts_pb2

    request = posts_pb2.ListCalendarPostsRequest(profile=profile)
    request.start_time.FromDatetime(seeded["grid"][0].astimezone(UTC))
    request.end_time.FromDatetime(seeded["grid"][1].astimezone(UTC))
    return request


async def floor_statements(url: str, session_token: str, org_id: str, request: Any) -> list[dict[str, Any]]:
    """The SQL of one ListCalendarPosts call as the core's own code sends it to the driver."""
    from bench.api_floor import captured_statements
    from core.identity.authentication import authenticate
    from core.posts.calendar import CalendarFilter, list_calendar

    async def work(conn: Any) -> None:
        now = datetime.now(UTC)
        await authenticate(conn, f"Bearer {session_token}", now, audience="")
        start, end = request.start_time.ToDatetime(tzinfo=UTC), request.end_time.ToDatetime(tzinfo=UTC)
        await list_calendar(conn, org_id, start, end, CalendarFilter(profile=request.profile), now)

    statements, _ = await captured_statements(url, work)
    return statements


def _posts_check(expected: int) -> Any:
    def check(body: bytes) -> str | None:
        found = len(POST_ID.findall(body))
        return None if found == expected else f"{found} posts, expected {expected}: {body[:200]!r}"

    return check


def _page_check(body: bytes) -> str | None:
    return None if b'id="calendar-config"' in body else f"not the calendar page: {body[:200]!r}"


async def http_load(
    window: Any, *, base_url: str, path: str, session_token: str, posts: int, duration: float, warmup: float
) -> dict[str, Any]:
    parts = urlsplit(base_url)
    raw = (
        f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nCookie: herald_session={session_token}\r\nAccept: */*\r\n\r\n"
    ).encode()
    check = _posts_check(posts) if posts >= 0 else _page_check
    workers, close = await raw_http_workers(parts.hostname, parts.port, raw, 1, check)
    try:
        return await measured_closed_loop(window, workers, duration, warmup)
    finally:
        close()


async def grpc_load(
    window: Any, *, core_target: str, session_token: str, message: bytes, posts: int, duration: float, warmup: float
) -> dict[str, Any]:
    import grpc
    from herald.posts.v1 import posts_pb2

    channel = grpc.aio.insecure_channel(core_target)
    call = channel.unary_unary(
        "/herald.posts.v1.PostService/ListCalendarPosts",
        request_serializer=None,  # the bytes the page's endpoint sends
        response_deserializer=posts_pb2.ListCalendarPostsResponse.FromString,
    )
    metadata = (("authorization", f"Bearer {session_token}"),)

    async def one(validate: bool) -> str | None:
        answer = await call(message, metadata=metadata, timeout=15)
        if validate and len(answer.posts) != posts:
            return f"{len(answer.posts)} posts, expected {posts}"
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


def asset_sizes(base_url: str, session_token: str, page: str) -> dict[str, Any]:
    """Every script and stylesheet the page loads: bytes as served to a browser that accepts
    gzip (what crosses the wire), raw, and gzip -9'd here."""
    import httpx

    files = {}
    with httpx.Client(base_url=base_url, timeout=30, cookies={"herald_session": session_token}) as http:
        html = http.get(page).text
        for path in dict.fromkeys(ASSETS.findall(html)):
            with http.stream("GET", path, headers={"Accept-Encoding": "gzip"}) as response:
                wire = b"".join(response.iter_raw())
                encoding = response.headers.get("content-encoding", "")
            raw = gzip.decompress(wire) if encoding == "gzip" else wire
            files[path] = {
                "served": len(wire),
                "encoding": encoding or "identity",
                "raw": len(raw),
                "gzip": len(gzip.compress(raw, 9)),
            }
    total = {k: sum(f[k] for f in files.values()) for k in ("served", "raw", "gzip")}
    return {"files": files, "total": total}


# ----------------------------------------------------------------------------- orchestration


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    out: dict[str, Any] = {}
    with bench_database(args.backend) as (url, workdir, sessions):
        out.update(
            bench_result("the calendar: a month of 2,000 posts beside its floor", "bench.calendar_page", args, url)
        )
        seeded = asyncio.run(seed(url, args.posts))
        with Db(url) as db:
            out["seeded"] = {
                "posts": db.one("SELECT count(*) FROM posts WHERE org_id = %s", (seeded["org_id"],)),
                "all_posts": db.one("SELECT count(*) FROM posts"),
                "month": seeded["first"].isoformat(),
            }
        print(f"seeded: {out['seeded']}", flush=True)
        with running_stack(url, workdir, core_processes=args.core_processes) as stack:
            token = session(stack.base_url)
            pids = stack_pids(stack)
            timing = {"duration": args.duration, "warmup": args.warmup}
            month = f"/dashboard/calendar?{urlencode({'view': 'month', 'date': seeded['first'].isoformat()})}"
            out["assets"] = asset_sizes(stack.base_url, token, month)
            for name, profile in (("month", ""), ("month, one profile", SLOTTED)):
                request = calendar_request(seeded, profile)
                statements = asyncio.run(floor_statements(url, token, seeded["org_id"], request))
                answer = asyncio.run(_answer(stack.core_target, token, request))
                posts = len(answer.posts)
                query = {"start": seeded["start"].isoformat(), "end": seeded["end"].isoformat(), "zone": ZONE}
                events = "/dashboard/calendar/events?" + urlencode(query | ({"profile": profile} if profile else {}))
                case: dict[str, Any] = {
                    "posts": posts,
                    "free_slots": len(answer.free_slots),
                    "truncated": answer.truncated,
                    "floor_sql": [s["sql"] for s in statements],
                }
                print(f"{name}: {posts} posts, {len(answer.free_slots)} free slots, {len(statements)} statements")
                common = (pids, args.duration, sessions, args.wait_quiet)
                case["floor"] = measure(
                    f"{name}: SQL floor", floor_load, {"url": url, "statements": statements, **timing}, *common
                )
                grpc_args = {"core_target": stack.core_target, "session_token": token, "posts": posts, **timing}
                case["grpc"] = measure(
                    f"{name}: ListCalendarPosts",
                    grpc_load,
                    {**grpc_args, "message": request.SerializeToString()},
                    *common,
                )
                http_args = {"base_url": stack.base_url, "session_token": token, **timing}
                case["events"] = measure(
                    f"{name}: GET events", http_load, {**http_args, "path": events, "posts": posts}, *common
                )
                if not profile:
                    case["page"] = measure(
                        f"{name}: GET page", http_load, {**http_args, "path": month, "posts": -1}, *common
                    )
                out[f"case {name}"] = case
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
    return out


async def _answer(core_target: str, session_token: str, request: Any) -> Any:
    import grpc
    from herald.posts.v1 import posts_pb2_grpc

    async with grpc.aio.insecure_channel(core_target) as channel:
        stub = posts_pb2_grpc.PostServiceStub(channel)
        return await stub.ListCalendarPosts(request, metadata=(("authorization", f"Bearer {session_token}"),))


def print_table(out: dict[str, Any]) -> None:
    print()
    print(f"{'case':<20} {'posts':>5}  {'phase':<18} {'p50 ms':>8} {'p99 ms':>8}")
    for key, case in out.items():
        if not key.startswith("case "):
            continue
        for phase in ("floor", "grpc", "events", "page"):
            if phase in case:
                result = case[phase]
                print(
                    f"{key.removeprefix('case '):<20} {case['posts']:>5}  {phase:<18}"
                    f" {result['p50_ms']:>8.2f} {result['p99_ms']:>8.2f}"
                )
    events = out["case month"]["events"]["p50_ms"]
    print(f"the month's events p50: {events:.2f} ms (aim on PostgreSQL: <= {AIM_MS:.0f} ms)")
    print()
    print(f"{'file':<60} {'served':>9} {'raw':>9} {'gzip -9':>9}")
    for path, sizes in out["assets"]["files"].items():
        served = f"{sizes['served']} {'gz' if sizes['encoding'] == 'gzip' else ''}".strip()
        print(f"{path:<60} {served:>9} {sizes['raw']:>9} {sizes['gzip']:>9}")
    total = out["assets"]["total"]
    print(f"{'total (bytes)':<60} {total['served']:>9} {total['raw']:>9} {total['gzip']:>9}")
    print(
        f"JavaScript and CSS: {total['served'] / 1000:.1f} KB as served, {total['gzip'] / 1000:.1f} KB gzip-compressed"
        f" (aim: <= {AIM_KB:.0f} KB compressed)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calendar_page", description=__doc__.split("\n")[0])
    add_run_options(parser)
    parser.add_argument("--posts", type=int, default=2000, help="posts in the month measured")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of each measured run")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up before each run")
    parser.add_argument("--core-processes", type=int, default=1, help="core processes sharing one port")
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "calendar_page")
    if out is None:
        return 130
    phases = [
        c[k] for key, c in out.items() if key.startswith("case ") for k in ("floor", "grpc", "events", "page") if k in c
    ]
    return 1 if any(p.get("errors") for p in phases) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
