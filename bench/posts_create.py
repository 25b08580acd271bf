"""Bench: POST /v1/posts to 3 profiles through facade -> gRPC -> database, beside its floor.

    .venv/bin/python -m bench.posts_create [--backend postgresql|sqlite] [--duration 10]
        [--concurrency 32] [--core-processes 2] [--wait-quiet 30]

1. Creates a fresh migrated database (PostgreSQL by default; dropped at the end), bootstraps one
   organization (1,000,000 credits) with an API key and 3 profiles: p-x (x), p-bsky (bluesky),
   p-li (linkedin).
2. Captures the SQL of one request, as the core sends it to the driver: it runs the core's own
   `authenticate` and `core.posts.create.create_posts` on a real connection with a SQLAlchemy
   `before_cursor_execute` hook and rolls back. That gives the five statements of the request
   (API key lookup, profiles by slug, INSERT of the 3 posts as one executemany, the posts read
   back by id, their post_media), byte for byte, with their parameters.
3. Starts the real core process(es) and facade (harness/stack.py, running_stack; no worker, so the
   posts stay queued) and, from a separate load process, runs a closed loop of --concurrency
   in-flight `POST /v1/posts` with `{"content": <unique per request>, "profiles": [3 slugs]}` for
   --duration seconds after a warm-up, then the same at concurrency 1. Every response must be a
   201; one body in ten is parsed and checked (3 posts, queued, the 3 profiles, the content sent).
4. Stops the stack and runs the floor from a separate process: the captured statements straight
   through psycopg 3 async, one transaction per request, on --concurrency connections each driven
   by one task; per request the values that vary (3 post ids from core.ids.new_id, 3 delivery keys,
   the timestamps, the content) are new, generated in Python. Then at concurrency 1. (SQLite: the
   stdlib sqlite3 module, one connection, BEGIN IMMEDIATE as the core does for writes.)
5. Prints a table and writes the full result as JSON under bench/results/: requests/s, p50/p99,
   p50 at concurrency 1, errors, CPU ms per request of each process (core(s), facade, load
   generator, PostgreSQL backends, anything else), peak RSS of core(s) and facade, API/floor.

Exit status 1 if any request failed. Ctrl-C / SIGTERM stop the processes and drop the database.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
from datetime import UTC, datetime
from typing import Any

from bench.api_floor import (
    captured_statements,
    measure_api_then_floor,
    measured_psycopg_loop,
    measured_sqlite_loop,
    print_api_floor_table,
)
from bench.load import (
    unique_tag,
)
from bench.runs import (
    add_bench_options,
    bench_database,
    bench_result,
    run_bench,
)
from bench.seed import (
    SLUGS,
    content_for,
    posts_in,
    posts_load,
    seed_organization,
    successful_requests,
)

# Content of the captured request: replaced per request in the floor (it never occurs elsewhere).
TEMPLATE_CONTENT = "bench template content 7f3a9c"


# ----------------------------------------------------------------------------- setup (this process)


async def capture_request_sql(database_url: str, api_key: str, org_id: str) -> dict[str, Any]:
    """The statements of one request's database work, as the core's own code sends them
    (captured_statements), named; and the values that vary per request, for the floor to replace."""
    from core.identity.authentication import authenticate
    from core.posts import create
    from core.posts.validation import CreateRequest

    now = datetime.now(UTC)

    async def work(conn: Any) -> Any:
        await authenticate(conn, f"Bearer {api_key}", now, audience="")
        return await create.create_posts(conn, org_id, CreateRequest(TEMPLATE_CONTENT, SLUGS), now)

    # The core reads the inserted rows back only in older versions (5 statements); now it builds
    # the response from what it inserted (3). The floor replays whatever was captured.
    statements, outcome = await captured_statements(database_url, work)
    named = dict(zip(_statement_names(statements), statements, strict=True))
    if list(named)[:2] != ["key_lookup", "profiles"] or not named.get("insert_posts", {}).get("executemany"):
        raise RuntimeError(f"unexpected request path: {[s['sql'][:60] for s in statements]}")
    insert = named["insert_posts"]
    rows = [_as_dict(insert["sql"], row) for row in insert["params"]]
    events = named.get("insert_events")
    event_rows = [_as_dict(events["sql"], row) for row in events["params"]] if events else []
    steps = named.get("insert_history")
    step_rows = [_as_dict(steps["sql"], row) for row in steps["params"]] if steps else []
    return {
        "statements": named,
        "varying": {
            "post_ids": [r.id for r in outcome.records],
            # post.created, one per post (core/webhooks/fanout.py): the same insert, new ids.
            "event_ids": [row["id"] for row in event_rows],
            # Each post's `created` step of its history (core/posts/history.py): new ids too.
            "history_ids": [row["id"] for row in step_rows],
            "delivery_keys": [row["delivery_key"] for row in rows],
            # The timestamp as the driver got it (aware datetime for psycopg, text for sqlite3).
            "now": rows[0]["created_at"],
            "content": TEMPLATE_CONTENT,
        },
    }


def _statement_names(statements: list[dict[str, Any]]) -> list[str]:
    """What each captured statement is, by its SQL: the API key lookup, the profiles, the brand
    voice's current phrases, the INSERTs of the posts, their webhook events and their history's
    first steps, and (older versions) the posts and their
    media read back."""
    names = []
    for statement in statements:
        sql = " ".join(statement["sql"].split()).lower()
        if "from api_keys" in sql:
            names.append("key_lookup")
        elif "from brand_voices" in sql:
            names.append("brand_voices")
        elif sql.startswith("insert into posts"):
            names.append("insert_posts")
        elif sql.startswith("insert into webhook_events"):
            names.append("insert_events")
        elif sql.startswith("insert into post_events"):
            names.append("insert_history")
        elif "from post_media" in sql:
            names.append("select_post_media")
        elif "from posts" in sql:
            names.append("select_posts")
        elif "from profiles" in sql:
            names.append("profiles")
        else:
            raise RuntimeError(f"unknown statement in the request path: {sql[:80]}")
    return names


def _as_dict(insert_sql: str, row: Any) -> dict[str, Any]:
    if isinstance(row, dict):
        return row
    columns = re.search(r"\(([^)]*)\)", insert_sql).group(1)  # type: ignore[union-attr]
    return dict(zip((c.strip() for c in columns.split(",")), row, strict=True))


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


# ----------------------------------------------------------------------------- load (child processes)


class _Fresh:
    """The per-request values of the captured request, new each time: replaced by value (every
    occurrence of an old post id, delivery key, timestamp or content in any parameter)."""

    def __init__(self, varying: dict[str, Any], sqlite: bool) -> None:
        self.old_ids = varying["post_ids"]
        self.old_events = varying.get("event_ids", [])
        self.old_steps = varying.get("history_ids", [])
        self.old_keys = varying["delivery_keys"]
        self.old_now = varying["now"]
        self.old_content = varying["content"]
        self.sqlite = sqlite
        self.tag = unique_tag()
        self.n = 0

    def next(self) -> tuple[dict[Any, Any], list[str], str]:
        from core.ids import new_id
        from core.posts.thread_parts import new_delivery_key

        self.n += 1
        ids = [new_id("pst") for _ in self.old_ids]
        now = datetime.now(UTC)
        content = content_for(f"{self.tag}-{self.n}")
        mapping: dict[Any, Any] = dict(zip(self.old_ids, ids, strict=True))
        mapping.update((old, new_id("evt")) for old in self.old_events)
        mapping.update((old, new_id("pev")) for old in self.old_steps)
        mapping.update(zip(self.old_keys, (new_delivery_key() for _ in self.old_keys), strict=True))
        # SQLite gets naive UTC text, as SQLAlchemy's SQLite DateTime renders it.
        mapping[self.old_now] = now.replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f") if self.sqlite else now
        mapping[self.old_content] = content
        return mapping, ids, content


def _sub(params: Any, mapping: dict[Any, Any]) -> Any:
    if isinstance(params, dict):
        return {k: mapping.get(v, v) for k, v in params.items()}
    return tuple(mapping.get(v, v) for v in params)


def _check_read_back(rows: list[Any], ids: list[str], content: str) -> str | None:
    if sorted(r[0] for r in rows) != sorted(ids) or any(r[3] != content or r[4] != "queued" for r in rows):
        return f"unexpected rows read back {rows!r}"[:300]
    return None


async def floor_load_postgresql(
    window: Any,
    *,
    dsn: str,
    api_key: str,
    captured: dict[str, Any],
    concurrency: int,
    duration: float,
    warmup: float,
) -> dict[str, Any]:
    import psycopg

    from core.identity.credentials import parse_api_key, secret_matches

    st = captured["statements"]
    q_key, p_key = st["key_lookup"]["sql"], st["key_lookup"]["params"]
    q_prof, p_prof = st["profiles"]["sql"], st["profiles"]["params"]
    voice = st.get("brand_voices")
    q_ins, rows_ins = st["insert_posts"]["sql"], st["insert_posts"]["params"]
    events = st.get("insert_events")
    steps = st.get("insert_history")
    read_back = "select_posts" in st
    if read_back:
        q_sel, p_sel = st["select_posts"]["sql"], st["select_posts"]["params"]
        q_med, p_med = st["select_post_media"]["sql"], st["select_post_media"]["params"]
    fresh = _Fresh(captured["varying"], sqlite=False)

    def worker_for(conn: psycopg.AsyncConnection) -> Any:
        async def one(validate: bool) -> str | None:
            # What the core does per request, minus gRPC, SQLAlchemy, validation and rendering.
            parse_api_key(api_key)
            mapping, ids, content = fresh.next()
            try:
                row = await (await conn.execute(q_key, p_key)).fetchone()
                if row is None or not secret_matches(api_key, row[1]) or row[4] is not None:
                    await conn.rollback()
                    return "API key rejected"
                targets = await (await conn.execute(q_prof, p_prof)).fetchall()
                if voice is not None:
                    await (await conn.execute(voice["sql"], voice["params"])).fetchall()
                async with conn.cursor() as cur:
                    await cur.executemany(q_ins, [_sub(r, mapping) for r in rows_ins])
                    if events is not None:
                        await cur.executemany(events["sql"], [_sub(r, mapping) for r in events["params"]])
                    if steps is not None:
                        await cur.executemany(steps["sql"], [_sub(r, mapping) for r in steps["params"]])
                back = None
                if read_back:
                    back = await (await conn.execute(q_sel, _sub(p_sel, mapping))).fetchall()
                    await (await conn.execute(q_med, _sub(p_med, mapping))).fetchall()
                await conn.commit()
            except BaseException:
                await conn.rollback()
                raise
            if validate:
                if len(targets) != len(SLUGS):
                    return f"unexpected profiles {targets!r}"
                return _check_read_back(back, ids, content) if back is not None else None
            return None

        return one

    return await measured_psycopg_loop(window, dsn, concurrency, worker_for, duration, warmup)


async def floor_load_sqlite(
    window: Any, *, path: str, api_key: str, captured: dict[str, Any], duration: float, warmup: float, **_: Any
) -> dict[str, Any]:
    from core.identity.credentials import parse_api_key, secret_matches

    st = captured["statements"]
    fresh = _Fresh(captured["varying"], sqlite=True)
    key, prof, ins = (st[n] for n in ("key_lookup", "profiles", "insert_posts"))
    voice = st.get("brand_voices")
    events = st.get("insert_events")
    steps = st.get("insert_history")
    sel, med = st.get("select_posts"), st.get("select_post_media")

    def one_for(db: Any) -> Any:
        def one() -> str | None:
            parse_api_key(api_key)
            mapping, ids, content = fresh.next()
            db.execute("BEGIN IMMEDIATE")
            row = db.execute(key["sql"], key["params"]).fetchone()
            if row is None or not secret_matches(api_key, row[1]) or row[4] is not None:
                db.execute("ROLLBACK")
                return "API key rejected"
            db.execute(prof["sql"], prof["params"]).fetchall()
            if voice is not None:
                db.execute(voice["sql"], voice["params"]).fetchall()
            db.executemany(ins["sql"], [_sub(r, mapping) for r in ins["params"]])
            if events is not None:
                db.executemany(events["sql"], [_sub(r, mapping) for r in events["params"]])
            if steps is not None:
                db.executemany(steps["sql"], [_sub(r, mapping) for r in steps["params"]])
            failure = None
            if sel is not None and med is not None:
                back = db.execute(sel["sql"], _sub(sel["params"], mapping)).fetchall()
                db.execute(med["sql"], _sub(med["params"], mapping)).fetchall()
                failure = _check_read_back(back, ids, content)
            db.execute("COMMIT")
            return failure

        return one

    return await measured_sqlite_loop(window, path, one_for, duration, warmup)


# ----------------------------------------------------------------------------- orchestration


def run(args: argparse.Namespace) -> dict[str, Any]:
    with bench_database(args.backend) as (url, workdir, sessions):
        out = bench_result("POST /v1/posts (3 profiles)", "bench.posts_create", args, url)
        seeded = asyncio.run(seed_organization(url))
        captured = asyncio.run(capture_request_sql(url, seeded["api_key"], seeded["org_id"]))
        out["floor_sql"] = {
            name: {"sql": s["sql"], "executemany": s["executemany"]} for name, s in captured["statements"].items()
        }

        print(
            f"POST /v1/posts (3 profiles)  backend={args.backend}  core processes={args.core_processes}  "
            f"concurrency={args.concurrency}  duration={args.duration}s  cpus={os.cpu_count()}",
            flush=True,
        )
        posts_after_api: list[int] = []
        measure_api_then_floor(
            out,
            url,
            workdir,
            args,
            sessions,
            api_load=posts_load,
            api_kwargs={"api_key": seeded["api_key"]},
            postgresql=floor_load_postgresql,
            sqlite=floor_load_sqlite,
            floor_kwargs={"api_key": seeded["api_key"], "captured": captured},
            after_api=lambda: posts_after_api.append(posts_in(url)),
        )
        posts_total = posts_in(url)
    # Every successful request created exactly 3 rows (warm-ups included).
    api_requests = successful_requests(out["api"], out["api_c1"])
    floor_requests = successful_requests(out["floor"], out["floor_c1"])
    out["rows_check"] = {
        "posts_after_api": posts_after_api[0],
        "expected_after_api": 3 * api_requests,
        "posts_total": posts_total,
        "expected_total": 3 * (api_requests + floor_requests),
    }
    out["captured_varying"] = _jsonable(captured["varying"])
    return out


def print_table(out: dict[str, Any]) -> None:
    print_api_floor_table(out, ratio_note=" (aim: >= 0.40; p50 @1 aim: <= 3x)")
    rc = out["rows_check"]
    ok = rc["posts_after_api"] == rc["expected_after_api"] and rc["posts_total"] == rc["expected_total"]
    print(
        f"rows: {rc['posts_after_api']} posts after the API runs (expected {rc['expected_after_api']}), "
        f"{rc['posts_total']} in all (expected {rc['expected_total']}){'' if ok else '  MISMATCH'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.posts_create", description=__doc__.split("\n")[0])
    add_bench_options(parser)
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "posts_create")
    if out is None:
        return 130
    failed = sum(out[k]["errors"] for k in ("api", "api_c1", "floor", "floor_c1"))
    rc = out["rows_check"]
    mismatch = rc["posts_after_api"] != rc["expected_after_api"] or rc["posts_total"] != rc["expected_total"]
    return 1 if failed or mismatch else 0


if __name__ == "__main__":
    raise SystemExit(main())
