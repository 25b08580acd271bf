"""The dashboard's pages beside their floor (bench.posts_page, bench.calendar_page,
bench.compose_preview): a human's session signed in through /login as a browser does; a
`PostService` call over gRPC with that session's credential, as the page's handler makes it; a
page or a script's endpoint fetched with the session cookie; the SQL of one call captured at the
driver as the core's own code sends it, the session's lookup first (bench.api_floor replays it);
and the posts such a page lists, inserted straight into the table (COPY on PostgreSQL).

Each bench keeps its own posts, requests, checks and table; what they all do to get there and to
load the stack lives here, once.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from bench.load import measured_closed_loop, raw_http_workers
from bench.runs import Db, add_run_options
from bench.seed import BENCH_PASSWORD

CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
# The columns of a post row, in the order the benches' rows give them.
POST_COLUMNS = (
    "id, org_id, profile_id, group_id, profile_slug, connector, content, post_type, status, schedule_at, due_at, "
    "created_at, updated_at, attempts, charged, delivery_key, failure_reason, failure_detail, platform_error, "
    "platform_post_id, platform_url, published_at, delivery_state, units, tiktok_options"
)
# What the benches' post texts are made of.
WORDS = ["spring", "launch", "recycled", "fabric", "colours", "new", "collection", "today", "thanks", "everyone"]


# ----------------------------------------------------------------------------- seeding


def org_profiles(db: Db, org_id: str) -> list[tuple[str, str, str]]:
    """The organization's profiles as (id, slug, platform), what a post row names."""
    return [(r[0], r[1], r[2]) for r in db.all("SELECT id, slug, connector FROM profiles WHERE org_id = %s", (org_id,))]


def insert_posts(db: Db, rows: list[tuple]) -> None:
    """Post rows (POST_COLUMNS) straight into the table: COPY on PostgreSQL, one executemany in
    one transaction on SQLite (datetimes written as the core's SQLite columns hold them)."""
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


# ----------------------------------------------------------------------------- the session and its calls


def sign_in(http: Any, email: str) -> str:
    """Signs `email` in through /login on an httpx.Client, as a browser does (the form's CSRF
    token, then the form); the session token, also left in the client's cookies."""
    token = CSRF_FIELD.search(http.get("/login").text).group(1)
    signed = http.post("/login", data={"csrf_token": token, "email": email, "password": BENCH_PASSWORD})
    if signed.status_code != 303 or not http.cookies.get("herald_session"):
        raise RuntimeError(f"sign-in failed: HTTP {signed.status_code}")
    return http.cookies["herald_session"]


def browser_session(base_url: str, email: str) -> str:
    """A session of `email` signed in through /login as a browser does; its token."""
    import httpx

    with httpx.Client(base_url=base_url, timeout=30) as http:
        return sign_in(http, email)


async def post_service_call(core_target: str, session_token: str, rpc: str, request: Any) -> Any:
    """One `PostService/<rpc>` call with the session's credential; its answer."""
    import grpc
    from herald.posts.v1 import posts_pb2_grpc

    async with grpc.aio.insecure_channel(core_target) as channel:
        method = getattr(posts_pb2_grpc.PostServiceStub(channel), rpc)
        return await method(request, metadata=(("authorization", f"Bearer {session_token}"),))


async def session_statements(
    url: str, session_token: str, work: Callable[[Any, datetime], Awaitable[Any]]
) -> list[dict[str, Any]]:
    """The SQL of one call as the core's own code sends it to the driver: the session's lookup
    (authenticate), then `work(connection, now)`, the call's own code (bench.api_floor's capture)."""
    from bench.api_floor import captured_statements
    from core.identity.authentication import authenticate

    async def call(conn: Any) -> None:
        now = datetime.now(UTC)
        await authenticate(conn, f"Bearer {session_token}", now, audience="")
        await work(conn, now)

    statements, _ = await captured_statements(url, call)
    return statements


# ----------------------------------------------------------------------------- load phases (child processes)


async def post_service_load(
    window: Any,
    *,
    core_target: str,
    session_token: str,
    rpc: str,
    message: bytes,
    field: str,
    expected: int,
    duration: float,
    warmup: float,
) -> dict[str, Any]:
    """`PostService/<rpc>` over gRPC, one call in flight, `message` sent as the bytes the page's
    handler would send, with the session's credential; one answer in ten must hold `expected`
    items in its repeated `field`."""
    import grpc
    from herald.posts.v1 import posts_pb2

    channel = grpc.aio.insecure_channel(core_target)
    call = channel.unary_unary(
        f"/herald.posts.v1.PostService/{rpc}",
        request_serializer=None,  # already serialized
        response_deserializer=getattr(posts_pb2, f"{rpc}Response").FromString,
    )
    metadata = (("authorization", f"Bearer {session_token}"),)

    async def one(validate: bool) -> str | None:
        answer = await call(message, metadata=metadata, timeout=15)
        found = len(getattr(answer, field))
        if validate and found != expected:
            return f"{found} {field}, expected {expected}"
        return None

    try:
        return await measured_closed_loop(window, [one], duration, warmup)
    finally:
        await channel.close()


async def cookie_get_load(
    window: Any,
    *,
    base_url: str,
    path: str,
    session_token: str,
    pattern: bytes,
    expected: int,
    accept: str = "*/*",
    duration: float,
    warmup: float,
) -> dict[str, Any]:
    """`GET path` with the session cookie, one request in flight on a keep-alive connection;
    every answer must be a 200 and one in ten must hold `pattern` (a regular expression) exactly
    `expected` times."""
    parts = urlsplit(base_url)
    raw = (
        f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nCookie: herald_session={session_token}\r\n"
        f"Accept: {accept}\r\n\r\n"
    ).encode()
    found_in = re.compile(pattern).findall

    def check(body: bytes) -> str | None:
        found = len(found_in(body))
        return None if found == expected else f"{pattern!r} {found} times, expected {expected}: {body[:200]!r}"

    workers, close = await raw_http_workers(parts.hostname, parts.port, raw, 1, check)
    try:
        return await measured_closed_loop(window, workers, duration, warmup)
    finally:
        close()


# ----------------------------------------------------------------------------- options and outcome


def add_page_options(parser: argparse.ArgumentParser, *, posts: int, posts_help: str) -> None:
    """The options of bench.posts_page and bench.calendar_page: add_run_options, --posts (`posts`
    by default), and short phases (5 s after 1 s of warm-up) against one core process."""
    add_run_options(parser)
    parser.add_argument("--posts", type=int, default=posts, help=posts_help)
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of each measured run")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up before each run")
    parser.add_argument("--core-processes", type=int, default=1, help="core processes sharing one port")


def exit_status(out: dict[str, Any] | None) -> int:
    """A page bench's exit status from its result (its phases under out["case <name>"]): 130 when
    interrupted (no result), 1 when a request of any phase failed, else 0."""
    if out is None:
        return 130
    phases = [p for key, case in out.items() if key.startswith("case ") for p in case.values() if isinstance(p, dict)]
    return 1 if any(p.get("errors") for p in phases) else 0
