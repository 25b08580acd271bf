"""Bench: webhooks (issue 17) — what an endpoint costs POST /v1/posts, how soon a published post's
event arrives, and whether a slow endpoint slows another.

    .venv/bin/python -m bench.webhooks [--backend postgresql|sqlite] [--duration 10] [--rounds 2]
        [--rate 100] [--latency-duration 20] [--wait-quiet 30]

1. Throughput (no worker: the hot path alone). Two organizations with the same 3 profiles, one
   with no endpoint and one with an endpoint subscribed to every event; closed loops of
   --concurrency `POST /v1/posts` (bench/seed.py's posts_load) alternate between them for
   --rounds rounds. Every request writes its `post.created` events either way (the change and its
   event are one transaction); the ratio says what subscribing adds there.
2. The same with a worker running (all on this machine's CPUs): it publishes the queued posts
   and, for the subscribed organization, fans each event out and delivers it to a local receiver
   (a separate process); the ratio then includes the delivery work sharing the machine.
3. Latency: --workers workers, and a receiver that records when each request arrives, subscribed
   to --latency-events (post.published); `POST /v1/posts` at --rate posts/s (open loop, one
   profile each) for --latency-duration s. For each
   `post.published` event: arrival time minus the post's `published_at` (the payload's own);
   p50/p99/max. Then again with a second, equally fast endpoint subscribed too (the control:
   twice the messages and deliveries), and then with a second endpoint whose receiver takes 10 s
   per request (HERALD_WEBHOOK_TIMEOUT_SECONDS) instead: the fast endpoint's p99 must not rise
   over the control's.
Prints a table and writes bench/results/webhooks-<backend>-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import time
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from bench.load import percentile, raw_http_connections, request_head, with_body
from bench.readings import stack_pids
from bench.runs import add_bench_options, analyze, bench_database, bench_result, measure, run_bench
from bench.seed import SLUGS, posts_load, seed_organization

# ----------------------------------------------------------------------------- the receiver (own process)


def _receiver_main(port: int, hold: float, conn: Any) -> None:
    """A minimal HTTP/1.1 keep-alive server: records (arrival time, body) of each POST, answers
    200 after `hold` seconds. Sends the records back when the parent asks."""
    import uvloop

    records: list[tuple[float, bytes]] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                body = await reader.readexactly(length)
                records.append((time.time(), body))
                if hold:
                    await asyncio.sleep(hold)
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    def quiet(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        # A sender giving up on a slow answer (its 10 s deadline) resets the connection while
        # this side sleeps: expected here, not worth a traceback.
        if not isinstance(context.get("exception"), ConnectionError):
            loop.default_exception_handler(context)

    async def main(argv: list[str] | None = None) -> int:
        asyncio.get_running_loop().set_exception_handler(quiet)
        server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)
        conn.send("ready")
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)
        server.close()
        conn.send(records)

    uvloop.run(main())


class ReceiverProcess:
    def __init__(self, hold: float = 0.0) -> None:
        from harness.stack import free_port

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/hooks"
        ctx = multiprocessing.get_context("spawn")
        self._parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_receiver_main, args=(self.port, hold, child), daemon=True)
        self.proc.start()
        if not self._parent.poll(60):
            raise RuntimeError("the receiver did not start")
        self._parent.recv()

    def records(self) -> list[tuple[float, dict[str, Any]]]:
        self._parent.send("stop")
        got = self._parent.recv()
        self.proc.join(10)
        return [(at, json.loads(body)) for at, body in got]


# ----------------------------------------------------------------------------- setup


def subscribe(base_url: str, api_key: str, url: str, events: tuple[str, ...] = ("*",)) -> None:
    import httpx

    made = httpx.post(
        f"{base_url}/v1/webhooks",
        json={"url": url, "events": list(events)},
        headers={"Authorization": f"Bearer {api_key}"},
        timeout=30,
    )
    made.raise_for_status()


# ----------------------------------------------------------------------------- the open-loop load (own process)


async def open_loop(window: Any, *, base_url: str, api_key: str, rate: float, duration: float) -> dict[str, Any]:
    """`POST /v1/posts` to one profile at `rate` per second for `duration` s, on 16 connections."""
    parts = urlsplit(base_url)
    conns, close = await raw_http_connections(parts.hostname, parts.port, 16)
    head = request_head(
        "POST", parts.netloc, "/v1/posts", {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
    )
    free = asyncio.Queue()
    for c in conns:
        free.put_nowait(c)
    sent, errors, first = 0, 0, ""

    async def one(n: int) -> None:
        nonlocal errors, first
        conn = await free.get()
        try:
            body = json.dumps({"content": f"webhook bench {os.getpid()} {n}", "profiles": [SLUGS[0]]}).encode()
            status, answer = await conn.request(with_body(head, body))
            if status != 201:
                errors += 1
                first = first or f"HTTP {status}: {answer[:200]!r}"
        finally:
            free.put_nowait(conn)

    await window.open()
    start = time.perf_counter()
    tasks = []
    while (elapsed := time.perf_counter() - start) < duration:
        due = int(elapsed * rate) + 1
        while sent < due:
            tasks.append(asyncio.ensure_future(one(sent)))
            sent += 1
        await asyncio.sleep(0.005)
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - start
    await window.close()
    close()
    return {
        "requests": sent,
        "errors": errors,
        "first_error": first,
        "rps": round(sent / elapsed, 1),
        "p50_ms": 0.0,
        "p99_ms": 0.0,
    }


def latencies(records: list[tuple[float, dict[str, Any]]]) -> dict[str, Any]:
    """Arrival minus `published_at` of each post.published event, in ms."""
    gaps = sorted(
        (at - datetime.fromisoformat(event["data"]["published_at"].replace("Z", "+00:00")).timestamp()) * 1000
        for at, event in records
        if event["type"] == "post.published"
    )
    return {
        "events": len(records),
        "published_events": len(gaps),
        "p50_ms": round(percentile(gaps, 50), 1),
        "p99_ms": round(percentile(gaps, 99), 1),
        "max_ms": round(gaps[-1], 1) if gaps else None,
    }


# ----------------------------------------------------------------------------- phases


# (result key, label, the second endpoint's time per request: None for no second endpoint)
LATENCY_PHASES = (
    ("latency_fast_only", "one fast endpoint", None),
    ("latency_two_fast", "fast + a second fast endpoint", 0.0),
    ("latency_with_slow", "fast + a 10 s endpoint", 10.0),
)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    with bench_database(args.backend) as (url, workdir, sessions):
        out = bench_result("webhooks", "bench.webhooks", args, url)
        plain, hooked = (
            asyncio.run(seed_organization(url, org=org, credits=10_000_000))["api_key"] for org in ("plain", "hooked")
        )
        env = {"HERALD_ALLOW_PRIVATE_TARGETS": "true"}  # a local receiver; every other setting its default
        print(f"webhooks  backend={args.backend}  cpus={os.cpu_count()}", flush=True)
        sink = ReceiverProcess()
        with running_stack(url, workdir, core_processes=args.core_processes, **env) as stack:
            subscribe(stack.base_url, hooked, sink.url)
            pids = stack_pids(stack)

            def rounds(label: str) -> dict[str, Any]:
                runs: dict[str, list[dict[str, Any]]] = {"no endpoint": [], "one endpoint": []}
                for _ in range(args.rounds):
                    for name, key in (("no endpoint", plain), ("one endpoint", hooked)):
                        analyze(url)  # as autovacuum would (this machine runs without it)
                        kwargs = {"base_url": stack.base_url, "api_key": key, "concurrency": args.concurrency}
                        kwargs |= {"duration": args.duration, "warmup": args.warmup}
                        runs[name].append(
                            measure(
                                f"{label}: {name}", posts_load, kwargs, pids, args.duration, sessions, args.wait_quiet
                            )
                        )
                median = {name: statistics.median(r["rps"] for r in found) for name, found in runs.items()}
                return {
                    "runs": runs,
                    "median_rps": median,
                    "ratio": round(median["one endpoint"] / median["no endpoint"], 3),
                }

            if not args.latency_only:
                out["throughput_no_worker"] = rounds("no worker")
                workers = [stack.spawn("core", "worker", log_name=f"bench-worker{i}") for i in range(args.workers)]
                try:
                    out["throughput_with_worker"] = rounds(f"{args.workers} worker(s) delivering")
                finally:
                    for worker in workers:
                        worker.terminate()
                        worker.wait(timeout=30)
        sink.records()

    # Latency, each phase on a database of its own: no post queued by an earlier phase is ahead.
    # The control for the slow one: a second endpoint as fast as the first (the same events,
    # messages and jobs to write and claim): what a *slow* second endpoint adds is the difference.
    for n, (key_name, label, hold) in enumerate(LATENCY_PHASES):
        with bench_database(args.backend) as (url, workdir, sessions):
            env = {"HERALD_ALLOW_PRIVATE_TARGETS": "true"}
            org = f"latency{n}"
            key = asyncio.run(seed_organization(url, org=org, credits=10_000_000))["api_key"]
            fast = ReceiverProcess()
            sluggish = ReceiverProcess(hold=hold) if hold is not None else None
            with running_stack(url, workdir, core_processes=args.core_processes, **env) as stack:
                subscribe(stack.base_url, key, fast.url, args.latency_events)
                if sluggish is not None:
                    subscribe(stack.base_url, key, sluggish.url, args.latency_events)
                workers = [
                    stack.spawn("core", "worker", log_name=f"latency-worker-{n}-{i}") for i in range(args.workers)
                ]
                try:
                    time.sleep(3)  # the worker is up
                    load = measure(
                        f"{label}: {args.rate:g} posts/s",
                        open_loop,
                        {
                            "base_url": stack.base_url,
                            "api_key": key,
                            "rate": args.rate,
                            "duration": args.latency_duration,
                        },
                        stack_pids(stack),
                        args.latency_duration,
                        sessions,
                        args.wait_quiet,
                    )
                    time.sleep(5)  # what is in flight lands
                finally:
                    for worker in workers:
                        worker.terminate()
                        worker.wait(timeout=30)
            measured = latencies(fast.records())
            if sluggish is not None:
                measured["second_endpoint_requests"] = len(sluggish.records())
            out[key_name] = {"load": load, **measured}
            print(f"    {label}: {measured}", flush=True)
    return out


def print_table(out: dict[str, Any]) -> None:
    print()
    for key in ("throughput_no_worker", "throughput_with_worker"):
        if key not in out:
            continue
        t = out[key]
        medians = ", ".join(f"{k} {v:.0f} req/s" for k, v in t["median_rps"].items())
        print(f"{key}: {medians}; ratio {t['ratio']}")
    for key, _, _ in LATENCY_PHASES:
        t = out[key]
        print(
            f"{key}: {t['published_events']} post.published events, published_at -> arrival "
            f"p50 {t['p50_ms']} ms, p99 {t['p99_ms']} ms, max {t['max_ms']} ms (load {t['load']['rps']} posts/s, "
            f"errors {t['load']['errors']})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.webhooks", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_bench_options(parser)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of the throughput phases")
    parser.add_argument("--rate", type=float, default=100.0, help="posts per second in the latency phases")
    parser.add_argument("--latency-duration", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--latency-events",
        type=lambda text: tuple(text.split(",")),
        default=("post.published",),
        help="what the latency phases' endpoints subscribe to (comma-separated; * for every type)",
    )
    parser.add_argument("--latency-only", action="store_true", help="skip the throughput phases")
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "webhooks")
    if out is None:
        return 130
    phases = [
        r
        for key in ("throughput_no_worker", "throughput_with_worker")
        if key in out
        for found in out[key]["runs"].values()
        for r in found
    ]
    phases += [out[key]["load"] for key, _, _ in LATENCY_PHASES]
    return 1 if any(r["errors"] for r in phases) else 0


if __name__ == "__main__":
    raise SystemExit(main())
