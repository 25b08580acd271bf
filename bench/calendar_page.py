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
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

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
POST_ID = rb'"id":"pst_'  # one a post the events endpoint answers
PAGE_CONFIG = rb'id="calendar-config"'  # once in the calendar page
ASSETS = re.compile(r'<(?:script src|link rel="stylesheet" href)="(/[^"]+)"')
AIM_MS = 100.0
AIM_KB = 350.0


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
            insert_posts(db, post_rows(org["org_id"], org_profiles(db, org["org_id"]), count, span, status, rng_seed))
    analyze(url)
    return {"org_id": boot["org_id"], "first": first, "start": start, "end": end, "grid": grid}


# ----------------------------------------------------------------------------- what is measured


def calendar_request(seeded: dict[str, Any], profile: str) -> Any:
    from herald.posts.v1 import posts_pb2

    request = posts_pb2.ListCalendarPostsRequest(profile=profile)
    request.start_time.FromDatetime(seeded["grid"][0].astimezone(UTC))
    request.end_time.FromDatetime(seeded["grid"][1].astimezone(UTC))
    return request


async def floor_statements(url: str, session_token: str, org_id: str, request: Any) -> list[dict[str, Any]]:
    """The SQL of one ListCalendarPosts call as the core's own code sends it to the driver."""
    from core.posts.calendar import CalendarFilter, list_calendar

    async def listing(conn: Any, now: datetime) -> None:
        start, end = request.start_time.ToDatetime(tzinfo=UTC), request.end_time.ToDatetime(tzinfo=UTC)
        await list_calendar(conn, org_id, start, end, CalendarFilter(profile=request.profile), now)

    return await session_statements(url, session_token, listing)


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
            token = browser_session(stack.base_url, EMAIL)
            pids = stack_pids(stack)
            phase = phases(args, pids, sessions)
            month = f"/dashboard/calendar?{urlencode({'view': 'month', 'date': seeded['first'].isoformat()})}"
            out["assets"] = asset_sizes(stack.base_url, token, month)
            for name, profile in (("month", ""), ("month, one profile", SLOTTED)):
                request = calendar_request(seeded, profile)
                statements = asyncio.run(floor_statements(url, token, seeded["org_id"], request))
                answer = asyncio.run(post_service_call(stack.core_target, token, "ListCalendarPosts", request))
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
                case["floor"] = phase(f"{name}: SQL floor", replayed_load, url=url, statements=statements)
                case["grpc"] = phase(
                    f"{name}: ListCalendarPosts",
                    post_service_load,
                    core_target=stack.core_target,
                    session_token=token,
                    rpc="ListCalendarPosts",
                    message=request.SerializeToString(),
                    field="posts",
                    expected=posts,
                )
                http = {"base_url": stack.base_url, "session_token": token}
                case["events"] = phase(
                    f"{name}: GET events", cookie_get_load, **http, path=events, pattern=POST_ID, expected=posts
                )
                if not profile:
                    case["page"] = phase(
                        f"{name}: GET page", cookie_get_load, **http, path=month, pattern=PAGE_CONFIG, expected=1
                    )
                out[f"case {name}"] = case
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
    return out


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
    add_page_options(parser, posts=2000, posts_help="posts in the month measured")
    return exit_status(run_bench(parser.parse_args(argv), run, print_table, "calendar_page"))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
