"""Bench: the same MCP `tools/call` at 2026-07-28 beside a handshake-era one, in the same run.

    .venv/bin/python -m bench.mcp_revisions [--backend postgresql|sqlite] [--duration 10]
        [--concurrency 32] [--core-processes 2] [--rounds 2] [--tools list_profiles create_post]
        [--wait-quiet 30]

1. Fresh migrated database; the POST /v1/posts benches' organization (bench/seed.py: 1,000,000
   credits, 3 profiles) and an OAuth access token from the real flow (bench/seed.py, oauth_tokens).
2. Starts the real core process(es) and facade (no worker: created posts stay queued).
3. For each tool and each of --rounds rounds, from a separate load process, a closed loop of
   `POST /mcp` `tools/call` at --concurrency in flight for --duration s (after --warmup s), then
   at 1 in flight for --c1-duration s, once per era:
   - modern: `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method: tools/call`, `Mcp-Name: <tool>`
     and `params._meta` carrying the protocol version, client info and (empty) capabilities;
   - handshake: `MCP-Protocol-Version: 2025-11-25`, no `_meta` (a client past `initialize`;
     Herald keeps no session, so none is needed).
   The era that goes first alternates between rounds (ABBA), so a drift of the machine falls on
   both. Same arguments in both eras (`list_profiles` with none; `create_post` to the 3
   profiles, a new content per request). Every answer must be a 200 without `isError`; one body
   in ten is parsed: `resultType: "complete"` in the modern era and none in the handshake era,
   and the tool's result (the 3 profiles; the 3 queued posts with the content sent).
4. Prints per phase requests/s, p50/p99 and CPU ms per request of each process, then per tool
   the modern/handshake ratios over all rounds: requests/s at --concurrency, p50 and p99 at 1 in
   flight and at --concurrency, and the facade's CPU per request (the eras differ only there).
   The aim: a 2026-07-28 call costs no more than a handshake-era one (ratios near 1).
5. Before the stack starts, in this process: the facade's era-dependent work alone on the same
   `create_post` request (facades.mcp.transport.read_exchange, plus the revision's request
   validation for the modern one), best of 7 x 20,000, in microseconds: what the HTTP figures
   above should differ by.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import timeit
from typing import Any

from bench.load import measured_body_loop, unique_tag
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import add_bench_options, bench_database, bench_result, measure, run_bench
from bench.seed import SLUGS, check_created, content_for, oauth_tokens, post_arguments, seed_organization

TOOLS = ("list_profiles", "create_post")
ERAS = ("handshake", "modern")
MODERN_VERSION = "2026-07-28"
HANDSHAKE_VERSION = "2025-11-25"
CLIENT_INFO = {"name": "herald-bench", "version": "1.0.0"}
# What a 2026-07-28 client sends in every request's params (no initialize handshake before).
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _arguments(tool: str, content: str) -> dict[str, Any]:
    return post_arguments(content) if tool == "create_post" else {}


def _check_result(tool: str, era: str, answer: bytes, content: str) -> str | None:
    try:
        result = json.loads(answer)["result"]
    except (ValueError, KeyError, TypeError) as exc:
        return f"unparseable answer ({exc}): {answer[:200]!r}"
    if result.get("resultType") != ("complete" if era == "modern" else None):
        return f"{era} result with resultType {result.get('resultType')!r}"
    structured = result.get("structuredContent") or {}
    if tool == "create_post":
        return check_created(json.dumps(structured).encode(), content)
    slugs = sorted(p.get("slug") for p in structured.get("profiles", []))
    return None if slugs == sorted(SLUGS) else f"unexpected profiles {slugs}"


async def load(
    window: Any,
    *,
    base_url: str,
    token: str,
    tool: str,
    era: str,
    concurrency: int,
    duration: float,
    warmup: float,
) -> dict[str, Any]:
    """A closed loop of `tools/call <tool>` at one era, each request built as that era's client
    sends it."""
    version = MODERN_VERSION if era == "modern" else HANDSHAKE_VERSION
    headers = {"Authorization": f"Bearer {token}", "MCP-Protocol-Version": version}
    if era == "modern":
        headers |= {"Mcp-Method": "tools/call", "Mcp-Name": tool}
    headers |= {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    tag = unique_tag()

    def body_for(k: int, n: int) -> tuple[bytes, str]:
        content = content_for(f"{tag}-{k}-{n}")
        params: dict[str, Any] = {"name": tool, "arguments": _arguments(tool, content)}
        if era == "modern":
            params["_meta"] = MODERN_META
        return json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}).encode(), content

    return await measured_body_loop(
        window,
        base_url=base_url,
        path="/mcp",
        headers=headers,
        body_for=body_for,
        check=lambda answer, content: _check_result(tool, era, answer, content),
        concurrency=concurrency,
        duration=duration,
        warmup=warmup,
        status=200,
        error_marker=b'"isError":true',
    )


def transport_cost_us() -> dict[str, float]:
    """Microseconds per request of what the facade does differently per era, in this process:
    reading and checking the exchange (transport.read_exchange: headers, JSON, the JSON-RPC
    shape, the version, and for 2026-07-28 the routing headers against the body) and, for
    2026-07-28, the params against the revision's wire types (as server.py does)."""
    from mcp_types.methods import validate_client_request
    from sanic import Request, Sanic
    from sanic.compat import Header

    from facades.mcp.transport import read_exchange

    app = Sanic("bench_mcp_revisions")
    costs = {}
    for era in ERAS:
        params: dict[str, Any] = {"name": "create_post", "arguments": _arguments("create_post", content_for("x"))}
        headers = [
            ("host", "127.0.0.1"),
            ("authorization", "Bearer hoa_bench"),
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", MODERN_VERSION if era == "modern" else HANDSHAKE_VERSION),
        ]
        if era == "modern":
            params["_meta"] = MODERN_META
            headers += [("mcp-method", "tools/call"), ("mcp-name", "create_post")]
        request = Request(b"/mcp", Header(headers), "1.1", "POST", None, app)
        request.body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()

        def work(request: Any = request) -> None:
            exchange = read_exchange(request)
            assert exchange.method == "tools/call", exchange
            if exchange.modern is not None:
                validate_client_request(exchange.method, exchange.modern, exchange.params)

        work()
        costs[era] = round(min(timeit.repeat(work, number=20_000, repeat=7)) / 20_000 * 1e6, 1)
    return costs


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    with bench_database(args.backend) as (url, workdir, sessions):
        out = bench_result("tools/call at 2026-07-28 beside 2025-11-25", "bench.mcp_revisions", args, url)
        print(
            f"MCP tools/call, 2026-07-28 beside 2025-11-25  backend={args.backend}  "
            f"core processes={args.core_processes}  concurrency={args.concurrency}  duration={args.duration}s  "
            f"rounds={args.rounds}  tools={' '.join(args.tools)}",
            flush=True,
        )
        out["transport_us"] = transport_cost_us()
        with running_stack(url, workdir, core_processes=args.core_processes) as stack:
            asyncio.run(seed_organization(url))
            token = asyncio.run(oauth_tokens(stack))["access_token"]
            pids = stack_pids(stack)
            out["phases"] = []
            for tool in args.tools:
                for round_no in range(args.rounds):
                    # ABBA: the era that goes first alternates, so drift falls on both.
                    for era in ERAS if round_no % 2 == 0 else tuple(reversed(ERAS)):
                        for in_flight, seconds, warm in (
                            (args.concurrency, args.duration, args.warmup),
                            (1, args.c1_duration, 0.5),
                        ):
                            kwargs = {
                                "base_url": stack.base_url,
                                "token": token,
                                "tool": tool,
                                "era": era,
                                "concurrency": in_flight,
                                "duration": seconds,
                                "warmup": warm,
                            }
                            name = f"{tool} {era} #{round_no + 1} @{in_flight}"
                            phase = measure(name, load, kwargs, pids, seconds, sessions, args.wait_quiet)
                            phase.update(tool=tool, era=era, round=round_no + 1)
                            out["phases"].append(phase)
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
    return out


def _pooled(phases: list[dict[str, Any]], key: str) -> float:
    """The median over rounds of one figure (one value per round: the rounds are few and equal)."""
    return statistics.median(p[key] for p in phases)


def print_table(out: dict[str, Any]) -> None:
    print()
    print(
        f"{'tool':<15}{'era':<11}{'round':>6}{'conc':>6}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}  CPU ms/req"
    )
    for p in out["phases"]:
        cpu = ", ".join(f"{k} {v:.2f}" for k, v in p["cpu_ms_per_request"].items() if k != "other")
        print(
            f"{p['tool']:<15}{p['era']:<11}{p['round']:>6}{p['concurrency']:>6}{p['rps']:>9.0f}"
            f"{p['p50_ms']:>9.2f}{p['p99_ms']:>9.2f}{p['errors']:>8}  {cpu}"
        )
    print()
    print(
        "modern (2026-07-28) / handshake (2025-11-25), medians over the rounds (aim: req/s >= ~1, latency and CPU <= ~1):"
    )
    out["ratios"] = {}
    for tool in dict.fromkeys(p["tool"] for p in out["phases"]):
        figures: dict[str, dict[str, float]] = {}
        for era in ERAS:
            busy = [p for p in out["phases"] if p["tool"] == tool and p["era"] == era and p["concurrency"] > 1]
            one = [p for p in out["phases"] if p["tool"] == tool and p["era"] == era and p["concurrency"] == 1]
            figures[era] = {
                "rps": _pooled(busy, "rps"),
                "p50_ms": _pooled(busy, "p50_ms"),
                "p99_ms": _pooled(busy, "p99_ms"),
                "rps_c1": _pooled(one, "rps"),
                "p50_ms_c1": _pooled(one, "p50_ms"),
                "p99_ms_c1": _pooled(one, "p99_ms"),
                "facade_cpu_ms": statistics.median(p["cpu_ms_per_request"]["facade"] for p in busy),
            }
        ratio = {k: round(figures["modern"][k] / figures["handshake"][k], 3) for k in figures["modern"]}
        out["ratios"][tool] = {"ratio": ratio, **figures}
        h, m = figures["handshake"], figures["modern"]
        print(
            f"  {tool}: req/s {m['rps']:.0f} / {h['rps']:.0f} = {ratio['rps']:.2f}; "
            f"p50 {m['p50_ms']:.2f} / {h['p50_ms']:.2f} ms = {ratio['p50_ms']:.2f}; "
            f"p99 {m['p99_ms']:.2f} / {h['p99_ms']:.2f} ms = {ratio['p99_ms']:.2f}; "
            f"at 1 in flight p50 {m['p50_ms_c1']:.2f} / {h['p50_ms_c1']:.2f} ms = {ratio['p50_ms_c1']:.2f}, "
            f"p99 {m['p99_ms_c1']:.2f} / {h['p99_ms_c1']:.2f} ms = {ratio['p99_ms_c1']:.2f}; "
            f"facade CPU {m['facade_cpu_ms']:.2f} / {h['facade_cpu_ms']:.2f} ms = {ratio['facade_cpu_ms']:.2f}"
        )
    us = out["transport_us"]
    print(
        f"facade's era-dependent work in-process (create_post request): handshake {us['handshake']:.1f} us, "
        f"modern {us['modern']:.1f} us per request (+{us['modern'] - us['handshake']:.1f} us)"
    )
    print("peak RSS MiB: " + ", ".join(f"{k} {v:.0f}" for k, v in out["peak_rss_mib"].items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp_revisions", description=__doc__.split("\n")[0])
    add_bench_options(parser)
    parser.add_argument("--rounds", type=int, default=2, help="rounds per tool, each running both eras (ABBA)")
    parser.add_argument("--tools", nargs="+", choices=TOOLS, default=list(TOOLS), help="the tools to call")
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "mcp_revisions")
    if out is None:
        return 130
    return 1 if any(p["errors"] or (p.get("warmup") or {}).get("errors") for p in out["phases"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
