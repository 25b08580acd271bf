"""Bench: POST /v1/posts with next_slot beside schedule_at, and with a 10-item thread beside none.

Issue 18's two targets, each a ratio between two POST /v1/posts in the same run: `next_slot`
beside `schedule_at` (3 profiles), and a 10-item thread beside a single post (4 profiles).

    .venv/bin/python -m bench.posts_features [--backend sqlite|postgresql] [--duration 7]
        [--warmup 2] [--concurrency 32] [--core-processes 2] [--rounds 2] [--prefill 3000]
        [--parts 4] [--c1-duration 3] [--wait-quiet 2] [--spread 1]

About 2.5 minutes with the defaults.

1. Creates a fresh migrated database (SQLite by default; dropped at the end), an organization
   (bench/seed.py, 1,000,000 credits) with an API key, and its profiles, with the admin code
   (`core.admin.bootstrap`, `core.admin.add_profile`):
   - `sa-x`, `sa-mastodon`, `sa-bluesky`: the `schedule_at` phases;
   - `ns<N>-x`, `ns<N>-mastodon`, `ns<N>-bluesky`: a fresh set for the `next_slot` phases of
     each round N (and `nsc-*` for the concurrency-1 run), so every round starts with no slot
     taken and no run comes near the 366-day horizon (168 slots a week ≈ 8,800 per profile);
   - `nsp-x`, `nsp-mastodon`, `nsp-bluesky`: a next_slot set whose profiles already hold
     --prefill scheduled posts each, in their next --prefill slots (one post made through the API,
     then copied row by row in SQL with new ids and delivery keys, one per slot; the copies lie
     after the slot the API gave, so with core/posts/slot_assignment.py's watermark the first search
     reads and walks them all and the next ones start past them);
   - `th-x`, `th-bluesky`, `th-mastodon`, `th-threads` (the platforms that thread): the single
     post and the thread phases.
   The 3-profile sets get a time-slot table through the API (`PUT /v1/profiles/{slug}/slots`):
   Europe/Paris, every hour of every day (7 x 24 = 168 slots, the maximum).
2. Starts the real core process(es), facade and storage (harness/stack.py running_stack; no worker,
   and every post is scheduled in the future anyway: `schedule_at` is a fixed time 30 days ahead,
   at minute 17 so it is never a slot; `next_slot` takes future slots), then alternates, --rounds
   times, four closed-loop phases from a separate load process, each --warmup s then --duration
   s at --concurrency in flight, the order reversed every other round so drift hits both sides of
   each ratio:
   - `schedule_at`: `{"content", "profiles": [3 sa-*], "schedule_at": <fixed>}`
   - `next_slot`:   `{"content", "profiles": [3 ns<N>-*], "next_slot": true}`
   - `single`:      `{"content", "profiles": [4 th-*], "schedule_at": <fixed>}`
   - `thread`:      the same plus `"thread": [{"content": "Thread item i of 10 ..."} x 10]`
   With --spread K (K > 1) the schedule_at and next_slot phases under load use K sets of 3
   profiles instead of one (`sa-x-s0`..., `ns1-x-s0`...; worker k sends to set k % K): the
   realistic case of many queues filled at once, where next_slot requests do not wait for each
   other's row locks; at 1 in flight they keep one set.
   Before each phase the database is ANALYZEd (bench.runs.analyze: what autovacuum does on
   a default cluster; this machine's runs without it).
   Then each of the four at concurrency 1 for --c1-duration s, and next_slot at 1 on the
   prefilled set (the cost of a search behind --prefill taken slots; the set is filled only
   then, so the rounds' posts table holds no prefilled rows). Every answer must be a
   201; one body in ten is parsed (one scheduled post per profile with the content sent;
   next_slot posts on a whole hour in the future; thread posts with their 10 pending items).
3. Checks the database: posts per profile set = profiles x successful requests (warm-ups
   included; plus the prefilled posts), post_parts = 40 per successful thread request, and no
   two next_slot posts of a profile in the same slot.
4. Prints the commit measured (and any tracked file modified in the checkout), each phase's
   requests/s, p50/p99 and CPU ms per request of each process; requests/s and p50 of each of
   --parts equal parts of the measured requests in completion order (whether next_slot slows
   down as its profiles' slots fill; the other phases, whose tables also grow, are the control)
   and how many posts the table held when each next_slot phase started; the ratios against
   their targets (next_slot / schedule_at req/s >= 0.8; thread / single time <= 2.0, as p50 at 1
   in flight and as the inverse ratio of req/s under load), with the ratio of CPU ms per request
   (Herald's processes, the database and the load generator: steadier than req/s when something
   else runs); writes the full result as JSON under bench/results/.

There is no floor here: both targets are ratios between two API calls. Exit status 1 if any
request failed or a database check failed. Ctrl-C / SIGTERM stop the processes and drop the
database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from bench.load import body_workers, measured_closed_loop, percentile, raw_http_connections, request_head, unique_tag
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import Db, add_bench_options, analyze, bench_database, bench_result, measure, psycopg_dsn, run_bench
from bench.seed import check_created, content_for, post_arguments, seed_organization, successful_requests

ORG = "bench-features"
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
# Every hour of every day: 168 slots, the most a table may hold (core/posts/slot_table.py MAX_SLOTS).
SLOT_TABLE = {"timezone": "Europe/Paris", "slots": [{"day": d, "time": f"{h:02d}:00"} for d in DAYS for h in range(24)]}
SLOT_PLATFORMS = ("x", "mastodon", "bluesky")
SA_SLUGS = [f"sa-{p}" for p in SLOT_PLATFORMS]


def spread_sets(base: list[str], spread: int) -> list[list[str]]:
    """`spread` profile sets like `base` (itself when 1): with --spread, the in-flight requests
    of a schedule_at or next_slot phase go to different profiles (worker k to set k % spread)."""
    return [base] if spread <= 1 else [[f"{slug}-s{j}" for slug in base] for j in range(spread)]


TH_PROFILES = [("th-x", "x"), ("th-bluesky", "bluesky"), ("th-mastodon", "mastodon"), ("th-threads", "threads")]
TH_SLUGS = [slug for slug, _ in TH_PROFILES]
THREAD_ITEMS = 10
KINDS = ("schedule_at", "next_slot", "single", "thread")
LABELS = {
    "schedule_at": "schedule_at (3 profiles)",
    "next_slot": "next_slot (3 profiles)",
    "single": "single post (4 profiles)",
    "thread": "10-item thread (4 prof.)",
}


def ns_slugs(tag: str) -> list[str]:
    """The next_slot profile set of one round (`tag` "1", "2", ... or "c" for concurrency 1)."""
    return [f"ns{tag}-{p}" for p in SLOT_PLATFORMS]


# ----------------------------------------------------------------------------- setup (this process)


def code_version() -> dict[str, Any]:
    """The commit measured and the tracked files that differ from it (the product code may be
    mid-edit in a shared checkout)."""
    import subprocess

    from harness.stack import ROOT

    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()

    return {"commit": git("rev-parse", "--short", "HEAD"), "modified": git("diff", "--name-only", "HEAD").split()}


def seed(database_url: str, rounds: int, spread: int) -> dict[str, Any]:
    """The organization, its API key and every profile of the run (admin code, as the other benches)."""
    # The phases at 1 in flight keep one set: sa-* itself, also when the loaded ones are spread.
    slot_sets = spread_sets(SA_SLUGS, spread) + ([SA_SLUGS] if spread > 1 else []) + [ns_slugs("c"), ns_slugs("p")]
    slot_sets += [group for r in range(rounds) for group in spread_sets(ns_slugs(str(r + 1)), spread)]
    profiles = [(slug, slug.split("-")[1]) for group in slot_sets for slug in group] + TH_PROFILES
    boot = asyncio.run(seed_organization(database_url, org=ORG, profiles=profiles))
    return {"api_key": boot["api_key"], "slot_profiles": [s for group in slot_sets for s in group]}


def set_slots(base_url: str, api_key: str, slugs: list[str]) -> None:
    """Each profile's time-slot table, through the API as a user would set it."""
    import httpx

    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {api_key}"}, timeout=30) as http:
        for slug in slugs:
            answer = http.put(f"/v1/profiles/{slug}/slots", json=SLOT_TABLE)
            if answer.status_code != 200 or len(answer.json()["slots"]) != len(SLOT_TABLE["slots"]):
                raise RuntimeError(f"PUT /v1/profiles/{slug}/slots: HTTP {answer.status_code} {answer.text[:300]}")


def prefill(database_url: str, base_url: str, api_key: str, slugs: list[str], count: int) -> dict[str, Any]:
    """One next_slot post to `slugs` through the API, then `count` copies of each profile's post in
    SQL, each in the profile's next free slot after it (core.posts.slot_table.candidates), with a new
    id and delivery key: the profiles then hold count + 1 scheduled posts in their first slots."""
    import httpx

    from core.ids import new_id
    from core.posts.slot_table import candidates, parse_table
    from core.posts.thread_parts import new_delivery_key

    body = {"content": content_for("prefill template"), "profiles": slugs, "next_slot": True}
    answer = httpx.post(f"{base_url}/v1/posts", json=body, headers={"Authorization": f"Bearer {api_key}"}, timeout=30)
    if answer.status_code != 201:
        raise RuntimeError(f"prefill template: HTTP {answer.status_code} {answer.text[:300]}")
    table = parse_table(SLOT_TABLE["timezone"], SLOT_TABLE["slots"])
    sqlite = database_url.startswith("sqlite")
    started = time.perf_counter()
    if sqlite:
        import sqlite3

        db = sqlite3.connect(database_url.split("///", 1)[1], isolation_level=None)
        db.execute("PRAGMA busy_timeout=30000")
        mark = "?"
    else:
        import psycopg

        db = psycopg.connect(psycopg_dsn(database_url))
        mark = "%s"
    try:
        if sqlite:
            db.execute("BEGIN IMMEDIATE")
        for post in answer.json()["posts"]:
            cursor = db.execute(f"SELECT * FROM posts WHERE id = {mark}", (post["id"],))
            names = [d[0] for d in cursor.description]
            template = dict(zip(names, cursor.fetchone(), strict=True))
            after = datetime.fromisoformat(post["schedule_at"].replace("Z", "+00:00"))
            slots = candidates(table, after)
            rows = []
            for _ in range(count):
                when = next(slots)
                value: Any = when.replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f") if sqlite else when
                rows.append(
                    {
                        **template,
                        "id": new_id("pst"),
                        "delivery_key": new_delivery_key(),
                        "schedule_at": value,
                        "due_at": value,
                    }
                )
            sql = f"INSERT INTO posts ({', '.join(names)}) VALUES ({', '.join([mark] * len(names))})"
            if sqlite:
                db.executemany(sql, [tuple(r[n] for n in names) for r in rows])
            else:
                with db.cursor() as cur:
                    cur.executemany(sql, [tuple(r[n] for n in names) for r in rows])
        if sqlite:
            db.execute("COMMIT")
        else:
            db.commit()
    finally:
        db.close()
    return {"per_profile": count + 1, "seconds": round(time.perf_counter() - started, 2)}


# ----------------------------------------------------------------------------- load (child processes)


def body_for(kind: str, slugs: list[str], content: str, schedule_at: str) -> dict[str, Any]:
    body = post_arguments(content, slugs)
    if kind == "next_slot":
        body["next_slot"] = True
    else:
        body["schedule_at"] = schedule_at
    if kind == "thread":
        body["thread"] = [
            {"content": f"Thread item {i + 1} of {THREAD_ITEMS}: one more step of the bench's reply chain."}
            for i in range(THREAD_ITEMS)
        ]
    return body


def check_scheduled(kind: str, answer: bytes, slugs: list[str], content: str, schedule_at: str) -> str | None:
    """bench.seed.check_created for scheduled posts, then: next_slot posts on a future whole
    hour, schedule_at kept otherwise, and each post's thread items (pending) when a thread."""

    def scheduled(created: list[dict[str, Any]]) -> str | None:
        if kind == "next_slot":
            now = datetime.now(UTC)
            for p in created:
                when = datetime.fromisoformat(p["schedule_at"].replace("Z", "+00:00"))
                if when.minute or when.second or when <= now:
                    return f"next_slot post not on a future whole hour: {p['schedule_at']}"
        else:
            wanted = datetime.fromisoformat(schedule_at.replace("Z", "+00:00"))
            if any(datetime.fromisoformat(p["schedule_at"].replace("Z", "+00:00")) != wanted for p in created):
                return f"schedule_at not kept: {[p['schedule_at'] for p in created]}"
        items = THREAD_ITEMS if kind == "thread" else 0
        if any(len(p["thread"]) != items or any(t["status"] != "pending" for t in p["thread"]) for p in created):
            return f"unexpected thread {[len(p['thread']) for p in created]}"
        return None

    return check_created(answer, content, slugs, status="scheduled", more=scheduled)


class _TimedWindow:
    """The parent's window, noting where the measured loop starts in the request timeline."""

    def __init__(self, window: Any, timeline: list[tuple[float, float, bool]]) -> None:
        self.window, self.timeline, self.measured_from = window, timeline, 0

    async def open(self) -> None:
        self.measured_from = len(self.timeline)
        await self.window.open()

    async def close(self) -> None:
        await self.window.close()


def buckets(
    timeline: list[tuple[float, float, bool]], measured_from: int, parts: int, drain: int
) -> list[dict[str, Any]]:
    """Requests/s and p50 of `parts` equal parts of the measured loop's requests, in completion order,
    leaving out the last `drain` (the in-flight ones finishing after the deadline, when fewer run);
    `before` is how many requests of the phase succeeded before the part (warm-up included): for
    next_slot, the slots already taken on each profile."""
    measured = timeline[measured_from:]
    if len(measured) > 2 * drain:
        measured = measured[: len(measured) - drain]
    if not measured:
        return []
    out = []
    before = sum(ok for _, _, ok in timeline[:measured_from])
    start = measured[0][0] - measured[0][1]
    size = max(1, len(measured) // parts)
    for i in range(0, size * parts if len(measured) >= parts else len(measured), size):
        chunk = measured[i:] if i + 2 * size > len(measured) else measured[i : i + size]
        end = chunk[-1][0]
        lat = sorted(latency for _, latency, _ in chunk)
        out.append(
            {
                "before": before,
                "requests": len(chunk),
                "rps": round(len(chunk) / (end - start), 1) if end > start else 0.0,
                "p50_ms": round(percentile(lat, 50) * 1000, 2),
                "p99_ms": round(percentile(lat, 99) * 1000, 2),
            }
        )
        before += sum(ok for _, _, ok in chunk)
        start = end
    return out


async def load(
    window: Any,
    *,
    base_url: str,
    api_key: str,
    kind: str,
    sets: list[list[str]],
    schedule_at: str,
    parts: int,
    concurrency: int,
    duration: float,
    warmup: float,
) -> dict[str, Any]:
    url = urlsplit(base_url)
    conns, close = await raw_http_connections(url.hostname, url.port, concurrency)
    headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json", "Accept": "application/json"}
    tag = unique_tag()
    timeline: list[tuple[float, float, bool]] = []  # (end, latency, ok) of every request, warm-up included
    perf = time.perf_counter

    def request_for(k: int, n: int) -> tuple[bytes, tuple[list[str], str]]:
        slugs = sets[k % len(sets)]
        content = content_for(f"{tag}-{k}-{n}")
        return json.dumps(body_for(kind, slugs, content, schedule_at)).encode(), (slugs, content)

    def check(answer: bytes, sent: tuple[list[str], str]) -> str | None:
        return check_scheduled(kind, answer, *sent, schedule_at)

    def timed(worker: Any) -> Any:
        async def one(validate: bool) -> str | None:
            t0 = perf()
            failure: str | None = "exception"
            try:
                failure = await worker(validate)
                return failure
            finally:
                t1 = perf()
                timeline.append((t1, t1 - t0, failure is None))

        return one

    workers = body_workers(conns, request_head("POST", url.netloc, "/v1/posts", headers), request_for, check)
    window_noting = _TimedWindow(window, timeline)
    try:
        result = await measured_closed_loop(window_noting, [timed(w) for w in workers], duration, warmup)
    finally:
        close()
    result["buckets"] = buckets(timeline, window_noting.measured_from, parts, concurrency)
    return result


# ----------------------------------------------------------------------------- database checks


def _query(database_url: str, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """`sql` (%s placeholders) on a connection of its own, closed at once: none stays open
    beside the stack while it is measured."""
    with Db(database_url) as db:
        return db.all(sql, params)


def check_database(database_url: str, out: dict[str, Any]) -> dict[str, Any]:
    """Posts per profile set against the successful requests, thread items, and no slot taken
    twice; also how far ahead each next_slot set's last post went."""

    def posts_of(slugs: list[str]) -> int:
        marks = ", ".join(["%s"] * len(slugs))
        rows = _query(database_url, f"SELECT count(*) FROM posts WHERE profile_slug IN ({marks})", tuple(slugs))
        return rows[0][0]

    rounds = out["rounds"]
    c1 = out["c1"]
    checks: dict[str, Any] = {"sets": {}}
    sa_slugs = sorted({slug for r in [*rounds, c1] for slug in r["schedule_at"]["slugs"]})
    sets = [("sa", sa_slugs, [r["schedule_at"] for r in rounds] + [c1["schedule_at"]])]
    sets += [(f"ns{i + 1}", r["next_slot"]["slugs"], [r["next_slot"]]) for i, r in enumerate(rounds)]
    sets += [("nsc", c1["next_slot"]["slugs"], [c1["next_slot"]])]
    sets += [("nsp", c1["next_slot_prefilled"]["slugs"], [c1["next_slot_prefilled"]])]
    th_results = [r[k] for r in rounds for k in ("single", "thread")] + [c1["single"], c1["thread"]]
    sets += [("th", TH_SLUGS, th_results)]
    ok = True
    for name, slugs, results in sets:
        found, expected = posts_of(slugs), results[0]["per_request"] * successful_requests(*results)
        if name == "nsp":
            expected += len(slugs) * out["prefill"]["per_profile"]
        checks["sets"][name] = {"posts": found, "expected": expected}
        ok = ok and found == expected
    thread_ok = successful_requests(*[r["thread"] for r in rounds], c1["thread"])
    parts = _query(database_url, "SELECT count(*) FROM post_parts", ())[0][0]
    checks["post_parts"] = {"rows": parts, "expected": thread_ok * THREAD_ITEMS * len(TH_SLUGS)}
    ok = ok and parts == checks["post_parts"]["expected"]
    ns = [s for r in rounds for s in r["next_slot"]["slugs"]]
    ns += c1["next_slot"]["slugs"] + c1["next_slot_prefilled"]["slugs"]
    marks = ", ".join(["%s"] * len(ns))
    twice = _query(
        database_url,
        f"SELECT profile_slug, schedule_at, count(*) FROM posts WHERE profile_slug IN ({marks}) "
        "GROUP BY profile_slug, schedule_at HAVING count(*) > 1",
        tuple(ns),
    )
    checks["slots_taken_twice"] = len(twice)
    ok = ok and not twice
    last = _query(
        database_url,
        f"SELECT profile_slug, max(schedule_at) FROM posts WHERE profile_slug IN ({marks}) GROUP BY profile_slug",
        tuple(ns),
    )
    checks["last_slot"] = {slug: str(when) for slug, when in sorted(last)}
    checks["ok"] = ok
    return checks


# ----------------------------------------------------------------------------- orchestration


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    with bench_database(args.backend) as (url, workdir, sessions):
        out = bench_result(
            "POST /v1/posts: next_slot vs schedule_at, thread vs single", "bench.posts_features", args, url
        )
        out["code"] = code_version()
        seeded = seed(url, args.rounds, args.spread)
        fixed = (datetime.now(UTC) + timedelta(days=30)).replace(minute=17, second=0, microsecond=0)
        schedule_at = fixed.strftime("%Y-%m-%dT%H:%M:%SZ")
        out["schedule_at"] = schedule_at
        out["slot_table"] = {"timezone": SLOT_TABLE["timezone"], "slots": len(SLOT_TABLE["slots"])}
        print(
            f"POST /v1/posts features (issue 18)  backend={args.backend}  core processes={args.core_processes}  "
            f"concurrency={args.concurrency}  duration={args.duration}s  rounds={args.rounds}  cpus={os.cpu_count()}  "
            f"code={out['code']['commit']}{' + ' + ', '.join(out['code']['modified']) if out['code']['modified'] else ''}",
            flush=True,
        )
        with running_stack(url, workdir, core_processes=args.core_processes) as stack:
            set_slots(stack.base_url, seeded["api_key"], seeded["slot_profiles"])
            pids = stack_pids(stack)

            def phase(
                kind: str, label: str, sets: list[list[str]], concurrency: int, seconds: float, warm: float
            ) -> dict:
                kwargs = {
                    "base_url": stack.base_url,
                    "api_key": seeded["api_key"],
                    "kind": kind,
                    "sets": sets,
                    "schedule_at": schedule_at,
                    "parts": args.parts,
                    "concurrency": concurrency,
                    "duration": seconds,
                    "warmup": warm,
                }
                table_rows = _query(url, "SELECT count(*) FROM posts", ())[0][0]
                analyze(url)
                result = measure(label, load, kwargs, pids, seconds, sessions, args.wait_quiet)
                result["slugs"] = [slug for group in sets for slug in group]
                result["per_request"] = len(sets[0])
                result["posts_in_table_before"] = table_rows
                return result

            def sets_for(kind: str, tag: str, spread: int) -> list[list[str]]:
                if kind == "schedule_at":
                    return spread_sets(SA_SLUGS, spread)
                return spread_sets(ns_slugs(tag), spread) if kind == "next_slot" else [TH_SLUGS]

            out["rounds"] = []
            for r in range(args.rounds):
                order = KINDS if r % 2 == 0 else ("next_slot", "schedule_at", "thread", "single")
                phases: dict[str, Any] = {}
                for kind in order:
                    phases[kind] = phase(
                        kind,
                        f"{LABELS[kind]} #{r + 1}",
                        sets_for(kind, str(r + 1), args.spread),
                        args.concurrency,
                        args.duration,
                        args.warmup,
                    )
                out["rounds"].append({k: phases[k] for k in KINDS})
            out["c1"] = {
                kind: phase(kind, f"{LABELS[kind]} @1", sets_for(kind, "c", 1), 1, args.c1_duration, 0.5)
                for kind in KINDS
            }
            # Only now, so the rounds' taken-slot queries do not also scan the prefilled rows.
            out["prefill"] = prefill(url, stack.base_url, seeded["api_key"], ns_slugs("p"), args.prefill)
            out["c1"]["next_slot_prefilled"] = phase(
                "next_slot",
                f"next_slot, {args.prefill + 1} taken @1",
                [ns_slugs("p")],
                1,
                args.c1_duration,
                0.5,
            )
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
        out["db_check"] = check_database(url, out)
    return out


def _cpu(r: dict[str, Any]) -> str:
    per = r["cpu_ms_per_request"]
    core = sum(v for k, v in per.items() if k.startswith("core"))
    parts = [f"core {core:.2f}"] + [f"{k} {v:.2f}" for k, v in per.items() if not k.startswith("core")]
    return ", ".join(parts)


def print_table(out: dict[str, Any]) -> None:
    rounds, c1 = out["rounds"], out["c1"]
    print()
    print(f"{'round':<6}{'phase':<26}{'req/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'errors':>7}  CPU ms/request")
    for i, phases in enumerate(rounds, 1):
        for kind in KINDS:
            r = phases[kind]
            print(
                f"{i:<6}{LABELS[kind]:<26}{r['rps']:>8.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}{r['errors']:>7}  "
                f"{_cpu(r)}"
            )
    for kind in KINDS:
        r = c1[kind]
        print(
            f"{'@1':<6}{LABELS[kind]:<26}{r['rps']:>8.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}{r['errors']:>7}  "
            f"{_cpu(r)}"
        )

    r = c1["next_slot_prefilled"]
    label = f"next_slot, {out['prefill']['per_profile']} taken"
    print(f"{'@1':<6}{label:<26}{r['rps']:>8.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}{r['errors']:>7}  {_cpu(r)}")

    def total(kind: str) -> float:
        return sum(p[kind]["rps"] for p in rounds)

    slot_rounds = [p["next_slot"]["rps"] / p["schedule_at"]["rps"] for p in rounds]
    slot_ratio = total("next_slot") / total("schedule_at")
    load_rounds = [p["single"]["rps"] / p["thread"]["rps"] for p in rounds]
    load_ratio = total("single") / total("thread")
    c1_ratio = c1["thread"]["p50_ms"] / c1["single"]["p50_ms"]
    p50_ratio = statistics.median(p["thread"]["p50_ms"] / p["single"]["p50_ms"] for p in rounds)

    def own_cpu(kinds: tuple[str, str]) -> list[float]:
        """Per round, the CPU ms per request of Herald's processes, the database and the load
        generator (everything but `other`) of kinds[0] over kinds[1]: less sensitive than req/s
        to what else runs on the machine."""
        mine = [
            {k: sum(v for n, v in p[k]["cpu_ms_per_request"].items() if n != "other") for k in kinds} for p in rounds
        ]
        return [m[kinds[0]] / m[kinds[1]] for m in mine]

    slot_cpu, thread_cpu = own_cpu(("next_slot", "schedule_at")), own_cpu(("thread", "single"))

    def verdict(ok: bool) -> str:
        return "met" if ok else "MISSED"

    print()
    print(
        f"1. next_slot / schedule_at req/s: per round {', '.join(f'{x:.2f}' for x in slot_rounds)}; "
        f"overall {slot_ratio:.2f} (target >= 0.8: {verdict(slot_ratio >= 0.8)}); "
        f"p50 @1 {c1['next_slot']['p50_ms']:.2f} vs {c1['schedule_at']['p50_ms']:.2f} ms; "
        f"with {out['prefill']['per_profile']} slots taken {r['p50_ms']:.2f} ms; "
        f"CPU per request next_slot / schedule_at per round {', '.join(f'{x:.2f}' for x in slot_cpu)}"
    )
    print(
        f"2. thread / single time: p50 @1 {c1['thread']['p50_ms']:.2f} / {c1['single']['p50_ms']:.2f} ms = "
        f"{c1_ratio:.2f} (target <= 2.0: {verdict(c1_ratio <= 2.0)}); under load (single req/s / thread req/s) "
        f"per round {', '.join(f'{x:.2f}' for x in load_rounds)}, overall {load_ratio:.2f} "
        f"({verdict(load_ratio <= 2.0)}); p50 under load {p50_ratio:.2f}x; "
        f"CPU per request thread / single per round {', '.join(f'{x:.2f}' for x in thread_cpu)}"
    )
    print(
        f"first and last of {out['args']['parts']} parts of each phase's measured requests in completion order "
        "(req/s, p50 ms; after = the phase's successful requests before them, warm-up included; all in the JSON):"
    )
    for i, phases in enumerate(rounds, 1):
        for kind in KINDS:
            found = phases[kind]["buckets"]
            cells = "   ".join(
                f"after {b['before']}: {b['rps']:.0f} req/s, p50 {b['p50_ms']:.0f}"
                for b in (found[:1] + found[-1:] if len(found) > 1 else found)
            )
            print(f"  #{i} {kind:<12}{cells}")
    starts = [f"#{i} {p['next_slot']['posts_in_table_before']}" for i, p in enumerate(rounds, 1)]
    starts += [f"@1 {c1['next_slot']['posts_in_table_before']}", f"prefilled {r['posts_in_table_before']}"]
    print("posts in the table when each next_slot phase started: " + ", ".join(starts))
    check = out["db_check"]
    print(
        "database: "
        + ", ".join(f"{name} {s['posts']}/{s['expected']} posts" for name, s in check["sets"].items())
        + f", post_parts {check['post_parts']['rows']}/{check['post_parts']['expected']}, "
        f"slots taken twice {check['slots_taken_twice']}{'' if check['ok'] else '  MISMATCH'}"
    )
    print("last next_slot post: " + ", ".join(f"{k} {v}" for k, v in check["last_slot"].items()))
    print("peak RSS MiB: " + ", ".join(f"{k} {v:.0f}" for k, v in out["peak_rss_mib"].items()))
    out["ratios"] = {
        "next_slot_over_schedule_at_rps": round(slot_ratio, 3),
        "next_slot_over_schedule_at_rps_per_round": [round(x, 3) for x in slot_rounds],
        "thread_over_single_p50_c1": round(c1_ratio, 3),
        "single_over_thread_rps": round(load_ratio, 3),
        "single_over_thread_rps_per_round": [round(x, 3) for x in load_rounds],
        "thread_over_single_p50_under_load": round(p50_ratio, 3),
        "next_slot_over_schedule_at_cpu_per_round": [round(x, 3) for x in slot_cpu],
        "thread_over_single_cpu_per_round": [round(x, 3) for x in thread_cpu],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.posts_features", description=__doc__.split("\n")[0])
    add_bench_options(parser)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the four phases (order reversed every other)")
    parser.add_argument(
        "--prefill", type=int, default=3000, help="slots already taken on each profile of the prefilled next_slot set"
    )
    parser.add_argument(
        "--spread",
        type=int,
        default=1,
        help="profile sets of the schedule_at and next_slot phases under load (worker k: set k %% spread); "
        "1: every request to the same 3 profiles",
    )
    parser.add_argument("--parts", type=int, default=4, help="equal parts of each phase's requests for req/s over time")
    parser.set_defaults(backend="sqlite", duration=7.0, warmup=2.0, wait_quiet=2.0)
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "posts_features")
    if out is None:
        return 130
    results = [p[k] for p in out["rounds"] for k in KINDS] + list(out["c1"].values())  # prefilled probe too
    failed = sum(r["errors"] + ((r.get("warmup") or {}).get("errors") or 0) for r in results)
    return 1 if failed or not out["db_check"]["ok"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
