"""Bench: the cost of OAuth access tokens at /mcp beside API keys at /v1, and of the token endpoint.

    .venv/bin/python -m bench.mcp_gate [--backend postgresql|sqlite] [--duration 8] [--concurrency 32]

1. Fresh migrated database, one organization with 5 profiles, an API key, and an access token
   obtained through the real flow (register, consent page over HTTP, code exchange).
2. Starts the real core and facade (harness/stack.py, running_stack).
3. From a separate load process, each for --duration seconds at --concurrency in flight:
   - floor: `GET /v1/profiles` with the API key (one core call: key lookup + profiles page);
   - `POST /mcp` `tools/call list_profiles` with the access token (one core call: token lookup +
     the same page, plus JSON-RPC parsing and the MCP result shape);
   - `POST /mcp` `ping` (one core call: the token lookup alone);
   - `POST /api/auth/oauth2/token` `grant_type=refresh_token`, each in-flight slot rotating its
     own refresh token family (a conditional update, two inserts, one grant update).
   Every status is checked; one body in ten is parsed.
4. Prints requests/s and p50/p99 per path, the ratio of each to the floor, and peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from bench.load import closed_loop, raw_http_connections, raw_http_workers, request_head, run_in_child, with_body
from bench.readings import peak_rss_mib, stack_pids
from bench.seed import oauth_tokens, seed_organization

PROFILES = ["alpha", "bravo", "charlie", "delta", "echo"]


async def seed(stack: Any, concurrency: int) -> dict[str, Any]:
    """An org, its profiles, an API key, one access token and `concurrency` refresh families."""
    boot = await seed_organization(stack.database_url, profiles=[(slug, "x") for slug in PROFILES], credits=10)
    tokens = await oauth_tokens(stack, refresh_families=concurrency)
    return {
        "api_key": boot["api_key"],
        "access_token": tokens["access_token"],
        "client_id": tokens["client_id"],
        "refresh": tokens["refresh_tokens"],
    }


def _request(method: str, host: str, path: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    return with_body(request_head(method, host, path, headers), body)


async def load(
    window: Any, *, base_url: str, seeded: dict[str, Any], concurrency: int, duration: float
) -> dict[str, Any]:
    parts = urlsplit(base_url)
    host, port = parts.hostname, parts.port
    hostport = f"{host}:{port}"
    mcp_headers = {
        "Authorization": f"Bearer {seeded['access_token']}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }

    def mcp_body(method: str, params: dict[str, Any]) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()

    def check_profiles(body: bytes) -> str | None:
        doc = json.loads(body)
        profiles = doc.get("profiles") or doc["result"]["structuredContent"]["profiles"]
        return None if len(profiles) == len(PROFILES) else f"unexpected body {body[:200]!r}"

    phases = {
        "v1_profiles_api_key (floor)": (
            _request("GET", hostport, "/v1/profiles", {"Authorization": f"Bearer {seeded['api_key']}"}),
            check_profiles,
        ),
        "mcp_list_profiles_access_token": (
            _request(
                "POST",
                hostport,
                "/mcp",
                mcp_headers,
                mcp_body("tools/call", {"name": "list_profiles", "arguments": {}}),
            ),
            check_profiles,
        ),
        "mcp_ping_access_token": (
            _request("POST", hostport, "/mcp", mcp_headers, mcp_body("ping", {})),
            lambda body: None if json.loads(body)["result"] == {} else "bad ping",
        ),
    }
    results: dict[str, Any] = {}
    await window.open()
    for name, (raw, check) in phases.items():
        workers, close = await raw_http_workers(host, port, raw, concurrency, check)
        await closed_loop(workers, 1.0)  # warm-up
        results[name] = (await closed_loop(workers, duration)).summary()
        close()

    conns, close = await raw_http_connections(host, port, concurrency)
    form_headers = {"Content-Type": "application/x-www-form-urlencoded"}

    def refresher(conn: Any, family: list[str]) -> Any:
        async def one(validate: bool) -> str | None:
            body = urlencode(
                {"grant_type": "refresh_token", "refresh_token": family[0], "client_id": seeded["client_id"]}
            ).encode()
            status, answer = await conn.request(
                _request("POST", hostport, "/api/auth/oauth2/token", form_headers, body)
            )
            if status != 200:
                return f"HTTP {status}: {answer[:300]!r}"
            family[0] = json.loads(answer)["refresh_token"]  # rotation: only the newest is valid
            return None

        return one

    workers = [refresher(c, [token]) for c, token in zip(conns, seeded["refresh"], strict=True)]
    results["token_refresh_rotation"] = (await closed_loop(workers, duration)).summary()
    close()
    await window.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp_gate", description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args(argv)

    from harness.stack import database, running_stack

    with tempfile.TemporaryDirectory() as tmp, database(args.backend, Path(tmp)) as url:
        workdir = Path(tmp) / "stack"
        workdir.mkdir()
        with running_stack(url, workdir, HERALD_LOG_LEVEL="WARNING") as stack:
            seeded = asyncio.run(seed(stack, args.concurrency))
            kwargs = {
                "base_url": stack.base_url,
                "seeded": seeded,
                "concurrency": args.concurrency,
                "duration": args.duration,
            }
            result = run_in_child(load, kwargs, timeout=args.duration * 6 + 120)
            rss = {role: peak_rss_mib(pid) for role, pid in stack_pids(stack).items()}
    floor = result["v1_profiles_api_key (floor)"]["rps"]
    print(f"backend={args.backend} concurrency={args.concurrency} duration={args.duration}s")
    print(f"{'path':36} {'req/s':>8} {'vs floor':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    failed = False
    for name, row in result.items():
        if not isinstance(row, dict):
            continue
        failed |= row["errors"] > 0
        print(
            f"{name:36} {row['rps']:8.1f} {row['rps'] / floor:9.2f} {row['p50_ms']:8.2f} {row['p99_ms']:8.2f} {row['errors']:7d}"
        )
        if row["first_error"]:
            print(f"  first error: {row['first_error']}")
    print("peak RSS MiB: " + ", ".join(f"{k} {v:.0f}" for k, v in rss.items()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
