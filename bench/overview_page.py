"""Bench: what the navigation's unread count costs a signed-in page (docs/dashboard.md,
"Notifications"): the overview and the API keys page, and the count's own call, one request in
flight.

    .venv/bin/python -m bench.overview_page [--backend postgresql|sqlite] [--duration 5] [--notifications 2000]

A fresh database (PostgreSQL by default) gets one organization with 4 profiles, --posts posts
(three months of history, a month ahead: published, some failed, scheduled, a few waiting for
approval) and --notifications notifications of its member, --unread of them unread, inserted
directly; then ANALYZE, the real
stack and a session signed in through /login as a browser does. For --duration seconds after a
warm-up it measures:
- `NoteService/ListNotifications` with page_size 1 over gRPC with the session's credential: the
  call every signed-in page makes for the count;
- `GET /dashboard` (the overview: its seven calls at once, then the switcher and the count) and
  `GET /dashboard/keys` (a light page: one call, then the switcher and the count), each with the
  session cookie, every answer a 200 and one in ten checked for the navigation.
Run it on a tree without the count for the "before" (docs/dashboard.md gives both).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.dashboard_pages import (
    WORDS,
    add_page_options,
    browser_session,
    cookie_get_load,
    exit_status,
    insert_posts,
    org_profiles,
)
from bench.load import measured_closed_loop
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import Db, analyze, bench_database, bench_result, phases, run_bench
from bench.seed import seed_organization

EMAIL = "overview-page@example.com"
PROFILES = [("ov-x", "x"), ("ov-bsky", "bluesky"), ("ov-li", "linkedin"), ("ov-mastodon", "mastodon")]
# The navigation, once a page (a signed-in page with or without the count: before and after).
NAV = rb'<nav aria-label="Dashboard">'
PAGES = {"overview": "/dashboard", "keys": "/dashboard/keys"}


def post_rows(org_id: str, profiles: list[tuple[str, str, str]], count: int, now: datetime) -> list[tuple]:
    """`count` posts (dashboard_pages.POST_COLUMNS) between 90 days ago and 30 days ahead: the
    past ones published (one in twenty failed), the coming ones scheduled (one in ten waiting)."""
    from core.ids import new_id

    rng = random.Random(1)
    rows = []
    for n in range(count):
        at = (now + timedelta(seconds=rng.uniform(-90 * 86400, 30 * 86400))).replace(microsecond=0)
        past = at < now
        status = ("failed" if rng.random() < 0.05 else "published") if past else "scheduled"
        status = "pending_approval" if not past and rng.random() < 0.1 else status
        profile_id, slug, platform = rng.choice(profiles)
        text = f"Post {n} of the bench: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))
        published = at + timedelta(seconds=2) if status == "published" else None
        rows.append(
            (new_id("pst"), org_id, profile_id, new_id("grp"), slug, platform, text, "feed", status, at, at,
             at - timedelta(hours=1), published or at, int(past), 0, new_id("dk"),
             "platform_rejected" if status == "failed" else "", "", "", "", "", published, "", 1, "")
        )  # fmt: skip
    return rows


def notification_rows(org_id: str, user_id: str, count: int, unread: int, now: datetime) -> list[tuple]:
    """`count` notifications of one member over the last 90 days, the newest `unread` unread."""
    from core.ids import new_id

    rng = random.Random(3)
    stamps = sorted((now - timedelta(seconds=rng.uniform(0, 90 * 86400)) for _ in range(count)), reverse=True)
    return [
        (
            new_id("ntf"),
            org_id,
            user_id,
            "approval_requested",
            f"Waiting for your approval: ov-x: “Notification {n} of the bench”",
            "",
            "/dashboard",
            f"bench:{n}",
            at,
            None if n < unread else at + timedelta(minutes=5),
        )
        for n, at in enumerate(stamps)
    ]


def insert_notifications(db: Db, rows: list[tuple]) -> None:
    columns = "id, org_id, user_id, kind, text, subject_id, link, dedupe_key, created_at, read_at"
    if db.sqlite:
        text = [tuple(v.strftime("%Y-%m-%d %H:%M:%S.%f") if isinstance(v, datetime) else v for v in r) for r in rows]
        db.conn.execute("BEGIN")
        db.conn.executemany(f"INSERT INTO notifications ({columns}) VALUES ({', '.join('?' * 10)})", text)
        db.conn.execute("COMMIT")
        return
    with db.conn.cursor().copy(f"COPY notifications ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


async def seed(url: str, posts: int, notifications: int, unread: int) -> dict[str, Any]:
    boot = await seed_organization(url, org="overview-page", profiles=PROFILES, credits=1000, email=EMAIL)
    now = datetime.now(UTC)
    with Db(url) as db:
        insert_posts(db, post_rows(boot["org_id"], org_profiles(db, boot["org_id"]), posts, now))
        user_id = db.one("SELECT id FROM users WHERE email = %s", (EMAIL,))
        insert_notifications(db, notification_rows(boot["org_id"], user_id, notifications, unread, now))
    analyze(url)
    return boot


async def count_load(
    window: Any, *, core_target: str, session_token: str, expected: int, duration: float, warmup: float
) -> dict[str, Any]:
    """`NoteService/ListNotifications` (page_size 1) over gRPC, one call in flight, with the
    session's credential; one answer in ten must count `expected` unread."""
    import grpc
    from herald.notes.v1 import notes_pb2

    channel = grpc.aio.insecure_channel(core_target)
    call = channel.unary_unary(
        "/herald.notes.v1.NoteService/ListNotifications",
        request_serializer=notes_pb2.ListNotificationsRequest.SerializeToString,
        response_deserializer=notes_pb2.ListNotificationsResponse.FromString,
    )
    metadata = (("authorization", f"Bearer {session_token}"),)
    message = notes_pb2.ListNotificationsRequest(page_size=1)

    async def one(validate: bool) -> str | None:
        answer = await call(message, metadata=metadata, timeout=15)
        if validate and answer.unread_count != expected:
            return f"{answer.unread_count} unread, expected {expected}"
        return None

    try:
        return await measured_closed_loop(window, [one], duration, warmup)
    finally:
        await channel.close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    out: dict[str, Any] = {}
    with bench_database(args.backend) as (url, workdir, sessions):
        out.update(
            bench_result("a signed-in page with the navigation's unread count", "bench.overview_page", args, url)
        )
        asyncio.run(seed(url, args.posts, args.notifications, args.unread))
        out["seeded"] = {"posts": args.posts, "notifications": args.notifications, "unread": args.unread}
        with running_stack(url, workdir, core_processes=args.core_processes) as stack:
            token = browser_session(stack.base_url, EMAIL)
            pids = stack_pids(stack)
            phase = phases(args, pids, sessions)
            case: dict[str, Any] = {
                "count": phase(
                    "ListNotifications size 1",
                    count_load,
                    core_target=stack.core_target,
                    session_token=token,
                    expected=args.unread,
                )
            }
            for name, path in PAGES.items():
                case[name] = phase(
                    f"GET {path}",
                    cookie_get_load,
                    base_url=stack.base_url,
                    path=path,
                    session_token=token,
                    pattern=NAV,
                    expected=1,
                    accept="text/html",
                )
            out["case pages"] = case
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
    return out


def print_table(out: dict[str, Any]) -> None:
    print()
    print(f"{'phase':<28} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>8}")
    for name, result in out["case pages"].items():
        print(f"{name:<28} {result['p50_ms']:8.2f} {result['p99_ms']:8.2f} {result['rps']:8.0f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.overview_page", description=__doc__.split("\n")[0])
    add_page_options(parser, posts=2000, posts_help="posts of the organization")
    parser.add_argument("--notifications", type=int, default=2000, help="notifications of the member")
    parser.add_argument("--unread", type=int, default=30, help="how many of them are unread")
    return exit_status(run_bench(parser.parse_args(argv), run, print_table, "overview_page"))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
