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
from typing import Any

from bench.load import measured_body_loop, unique_tag
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import add_bench_options, bench_database, bench_result, measure, run_bench
from bench.seed import check_created, content_for, oauth_tokens, post_arguments, seed_organization


async def load(
    window: Any, *, base_url: str, path: str, credential: str, concurrency: int, duration: float, warmup: float
) -> dict[str, Any]:
    """`path` is `rest` (POST /v1/posts) or `mcp` (tools/call create_post)."""
    tag = unique_tag()

    def body_for(k: int, n: int) -> tuple[bytes, str]:
        content = content_for(f"{tag}-{k}-{n}")
        arguments = post_arguments(content)
        if path == "rest":
            return json.dumps(arguments).encode(), content
        call = {"name": "create_post", "arguments": arguments}
        return json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": call}).encode(), content

    def check(answer: bytes, content: str) -> str | None:
        if path == "rest":
            return check_created(answer, content)
        result = json.loads(answer)["result"]
        if result.get("isError"):
            return f"tool error: {result['content'][0]['text'][:300]}"
        return check_created(json.dumps(result["structuredContent"]).encode(), content)

    return await measured_body_loop(
        window,
        base_url=base_url,
        path="/v1/posts" if path == "rest" else "/mcp",
        headers={
            "Authorization": f"Bearer {credential}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
        body_for=body_for,
        check=check,
        concurrency=concurrency,
        duration=duration,
        warmup=warmup,
        status=201 if path == "rest" else 200,
        error_marker=b"" if path == "rest" else b'"isError":true',
    )


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
            api_key = asyncio.run(seed_organization(url))["api_key"]
            access_token = asyncio.run(oauth_tokens(stack))["access_token"]
            pids = stack_pids(stack)
            out["rounds"] = []
            for round_no in range(args.rounds):
                phases = {}
                for path, credential in (("rest", api_key), ("mcp", access_token)):
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
