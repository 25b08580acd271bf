"""Bench: MCP `tools/call create_post` beside `POST /v1/posts`, the same 3 profiles, the same run.

    .venv/bin/python -m bench.mcp_create_post [--backend postgresql|sqlite] [--duration 10]
        [--concurrency 32] [--core-processes 2] [--rounds 2] [--wait-quiet 30]

1. Fresh migrated database; one organization (1,000,000 credits) with the 3 profiles of
   bench.posts_create (x, bluesky, linkedin), an API key, and an OAuth access token obtained
   through the real flow (registration, the consent page over HTTP, code exchange).
2. Starts the real core process(es) and facade (no worker: posts stay queued).
3. From a separate load process, alternates --rounds times: a closed loop of --concurrency
   in-flight `POST /v1/posts` (API key), then the same of `POST /mcp` `tools/call create_post`
   (access token) with the same arguments; each request's content is new. Every response is
   checked for its status (201 / 200 without isError); one body in ten is parsed and checked
   (3 posts, queued, the content sent). Alternating rounds spreads any drift of the machine over
   both paths.
4. Prints requests/s, p50/p99 and the CPU ms per request of each process per phase, the
   MCP/REST ratio of each round and of the totals (aim: at least 0.8), and the facade's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
from typing import Any
from urllib.parse import urlsplit

from bench.load import (
    add_bench_options,
    bench_database,
    bench_result,
    measure,
    measured_closed_loop,
    peak_rss_mib,
    raw_http_connections,
    run_bench,
    stack_pids,
)
from bench.posts_create import BENCH_PASSWORD, SLUGS, check_created, content_for


async def seed(stack: Any) -> dict[str, str]:
    """bench.posts_create's organization and profiles, plus an access token from the real flow."""
    import grpc
    import httpx

    from bench.posts_create import seed as seed_organization
    from harness.oauth_flow import register, sign_in, tokens_for

    seeded = await seed_organization(stack.database_url)
    async with (
        httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http,
        grpc.aio.insecure_channel(stack.core_target) as channel,
    ):
        session = await sign_in(channel, "bench@example.com", password=BENCH_PASSWORD)
        client = await register(http)
        tokens = await tokens_for(http, session, client["client_id"])
    return {"api_key": seeded["api_key"], "access_token": tokens["access_token"]}


async def load(
    window: Any, *, base_url: str, path: str, credential: str, concurrency: int, duration: float, warmup: float
) -> dict[str, Any]:
    """`path` is `rest` (POST /v1/posts) or `mcp` (tools/call create_post)."""
    parts = urlsplit(base_url)
    conns, close = await raw_http_connections(parts.hostname, parts.port, concurrency)
    target = "/v1/posts" if path == "rest" else "/mcp"
    head = (
        f"POST {target} HTTP/1.1\r\nHost: {parts.netloc}\r\nAuthorization: Bearer {credential}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "
    ).encode()
    tag = f"{os.getpid()}-{secrets.token_hex(2)}"

    def body_for(content: str, n: int) -> bytes:
        arguments = {"content": content, "profiles": SLUGS}
        if path == "rest":
            return json.dumps(arguments).encode()
        call = {"name": "create_post", "arguments": arguments}
        return json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": call}).encode()

    def check(answer: bytes, content: str) -> str | None:
        if path == "rest":
            return check_created(answer, content)
        result = json.loads(answer)["result"]
        if result.get("isError"):
            return f"tool error: {result['content'][0]['text'][:300]}"
        return check_created(json.dumps(result["structuredContent"]).encode(), content)

    def worker_for(k: int, conn: Any) -> Any:
        counter = iter(range(1 << 62))

        async def one(validate: bool) -> str | None:
            n = next(counter)
            content = content_for(f"{tag}-{k}-{n}")
            body = body_for(content, n)
            status, answer = await conn.request(b"%s%d\r\n\r\n%s" % (head, len(body), body))
            expected = 201 if path == "rest" else 200
            if status != expected or (path == "mcp" and b'"isError":true' in answer):
                return f"HTTP {status}: {answer[:300]!r}"
            return check(answer, content) if validate else None

        return one

    workers = [worker_for(k, c) for k, c in enumerate(conns)]
    try:
        return await measured_closed_loop(window, workers, duration, warmup)
    finally:
        close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    with bench_database(args.backend) as (url, workdir, sessions):
        out = bench_result("tools/call create_post beside POST /v1/posts", "bench.mcp_create_post", args, url)
        print(
            f"create_post via MCP beside POST /v1/posts (3 profiles)  backend={args.backend}  "
            f"core processes={args.core_processes}  concurrency={args.concurrency}  duration={args.duration}s",
            flush=True,
        )
        with running_stack(url, workdir, core_processes=args.core_processes) as stack:
            seeded = asyncio.run(seed(stack))
            pids = stack_pids(stack)
            out["rounds"] = []
            for round_no in range(args.rounds):
                phases = {}
                for path, credential in (("rest", seeded["api_key"]), ("mcp", seeded["access_token"])):
                    kwargs = {
                        "base_url": stack.base_url,
                        "path": path,
                        "credential": credential,
                        "concurrency": args.concurrency,
                        "duration": args.duration,
                        "warmup": args.warmup,
                    }
                    name = f"{'POST /v1/posts' if path == 'rest' else 'MCP create_post'} #{round_no + 1}"
                    phases[path] = measure(name, load, kwargs, pids, args.duration, sessions, args.wait_quiet)
                out["rounds"].append(phases)
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
    return out


def print_table(out: dict[str, Any]) -> None:
    print()
    print(f"{'round':<7}{'path':<18}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}  CPU ms/request")
    totals = {"rest": 0.0, "mcp": 0.0}
    ratios = []
    for i, phases in enumerate(out["rounds"], 1):
        for path, r in phases.items():
            totals[path] += r["rps"]
            cpu = ", ".join(f"{k} {v:.2f}" for k, v in r["cpu_ms_per_request"].items() if k != "other")
            print(f"{i:<7}{path:<18}{r['rps']:>9.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}{r['errors']:>8}  {cpu}")
        ratios.append(phases["mcp"]["rps"] / phases["rest"]["rps"])
    overall = totals["mcp"] / totals["rest"] if totals["rest"] else float("nan")
    print(f"MCP/REST req/s per round: {', '.join(f'{r:.2f}' for r in ratios)}; overall {overall:.2f} (aim: >= 0.8)")
    print("peak RSS MiB: " + ", ".join(f"{k} {v:.0f}" for k, v in out["peak_rss_mib"].items()))
    out["ratio_mcp_rest_rps"] = round(overall, 3)
    out["ratio_per_round"] = [round(r, 3) for r in ratios]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp_create_post", description=__doc__.split("\n")[0])
    add_bench_options(parser)
    parser.add_argument("--rounds", type=int, default=2, help="REST-then-MCP rounds")
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "mcp_create_post")
    if out is None:
        return 130
    failed = sum(r["errors"] for phases in out["rounds"] for r in phases.values())
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
