"""Bench: the built-in writing engine's cost, and polling a run beside reading a post.

    .venv/bin/python -m bench.generate_post [--backend postgresql|sqlite] [--duration 8] [--concurrency 32]

1. In-process: the CPU time (time.process_time) of the core's whole built-in `generate_post`
   work for 4 profiles (x, bluesky, instagram, linkedin) with a brand voice, over 300 briefs of
   varied length (1-12 sentences, links, mentions, hashtags, emoji, CJK): p50/p99/max ms.
2. Through the real stack (core and facade, PostgreSQL by default), from a separate load process:
   - `POST /v1/generate/posts` for the same 4 profiles at concurrency 1: latency p50/p99 (an upper
     bound of the core CPU a call takes) and the core processes' CPU ms per request;
   - `GET /v1/generate/runs/{id}` (a ready run) beside `GET /v1/posts/{id}` (the floor), each at
     --concurrency for --duration: req/s, p50/p99, CPU ms per request.
Every response is checked (status; one body in ten parsed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from typing import Any
from urllib.parse import urlsplit

from bench.load import measured_body_loop, measured_closed_loop, raw_http_workers
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import add_bench_options, bench_database, bench_result, measure, run_bench
from bench.seed import seed_organization

PROFILES = [("g-x", "x"), ("g-bsky", "bluesky"), ("g-ig", "instagram"), ("g-li", "linkedin")]
VOICE = {
    "preferred_terms": [{"use": "customers", "instead_of": "users"}],
    "never_publish": ["cheap tricks", "guaranteed"],
    "signature_hashtags": ["Acme"],
    "hashtags": "few",
}
WORDS = [
    "herald",
    "posts",
    "schedule",
    "media",
    "library",
    "voice",
    "brand",
    "launch",
    "team",
    "customers",
    "users",
    "update",
    "release",
    "notes",
]


def briefs(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        sentences = []
        for _ in range(rnd.randint(1, 12)):
            words = rnd.choices(WORDS, k=rnd.randint(4, 14))
            if rnd.random() < 0.3:
                words.append(
                    rnd.choice(["https://herald.example/blog/launch", "@alice", "#launch", "🚀", "東京で発表"])
                )
            sentences.append(" ".join(words).capitalize() + rnd.choice([".", "!", "?"]))
        out.append(" ".join(sentences))
    return out


def engine_cpu(samples: int) -> dict[str, Any]:
    """The core's built-in work of one call (engine, then every output check), CPU ms."""
    from core.brand.never_publish import matcher
    from core.generate.catalogue import TOOLS
    from core.generate.outputs import Style, Target
    from core.generate.service import _checked

    style = Style(
        terms=(("customers", "users"),),
        signature=("#Acme",),
        never_publish=matcher(tuple(VOICE["never_publish"])),
    )
    targets = [Target(slug, key) for slug, key in PROFILES]
    tool = TOOLS["generate_post"]
    times = []
    for brief in briefs(samples):
        started = time.process_time()
        request = {"brief": brief, "profiles": [slug for slug, _ in PROFILES]}
        _checked(tool.builtin(request, targets, style), style, request, "brief")
        times.append((time.process_time() - started) * 1000)
    times.sort()
    return {
        "samples": samples,
        "p50_ms": round(times[len(times) // 2], 2),
        "p99_ms": round(times[int(len(times) * 0.99) - 1], 2),
        "max_ms": round(times[-1], 2),
    }


async def seed(stack: Any) -> dict[str, str]:
    import httpx

    out = await seed_organization(stack.database_url, org="gen", profiles=PROFILES, credits=1000)
    auth = {"Authorization": f"Bearer {out['api_key']}"}
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        await http.put("/v1/brand-voice", json=VOICE, headers=auth)
        run = (
            await http.post("/v1/generate/posts", json={"brief": briefs(1)[0], "profiles": ["g-x"]}, headers=auth)
        ).json()
        post = (await http.post("/v1/posts", json={"content": "hello", "profiles": ["g-x"]}, headers=auth)).json()
    return {"api_key": out["api_key"], "run_id": run["id"], "post_id": post["posts"][0]["id"]}


def _get(hostport: str, path: str, api_key: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: {hostport}\r\nAuthorization: Bearer {api_key}\r\n\r\n".encode()


async def read_load(
    window: Any, *, base_url: str, path: str, api_key: str, concurrency: int, duration: float, warmup: float
) -> dict[str, Any]:
    parts = urlsplit(base_url)

    def check(body: bytes) -> str | None:
        doc = json.loads(body)
        return None if doc.get("id") else f"unexpected body {body[:200]!r}"

    workers, close = await raw_http_workers(
        parts.hostname, parts.port, _get(parts.netloc, path, api_key), concurrency, check
    )
    try:
        return await measured_closed_loop(window, workers, duration, warmup)
    finally:
        close()


async def generate_load(
    window: Any, *, base_url: str, api_key: str, concurrency: int, duration: float, warmup: float
) -> dict[str, Any]:
    texts = briefs(200, seed=11)
    slugs = [slug for slug, _ in PROFILES]

    def body_for(k: int, n: int) -> tuple[bytes, None]:
        return json.dumps({"brief": texts[n % len(texts)], "profiles": slugs}).encode(), None

    def check(answer: bytes, _: None) -> str | None:
        return None if len(json.loads(answer)["output"]["drafts"]) == len(PROFILES) else "unexpected drafts"

    return await measured_body_loop(
        window,
        base_url=base_url,
        path="/v1/generate/posts",
        headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"},
        body_for=body_for,
        check=check,
        concurrency=concurrency,
        duration=duration,
        warmup=warmup,
        status=200,
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    out: dict[str, Any] = {}
    print("engine CPU, in-process (4 profiles, 300 briefs)...", flush=True)
    engine = engine_cpu(300)
    with bench_database(args.backend) as (url, workdir, sessions):
        out.update(bench_result("built-in generate_post; polling a run", "bench.generate_post", args, url))
        out["engine_cpu"] = engine
        with running_stack(url, workdir, core_processes=args.core_processes) as stack:
            seeded = asyncio.run(seed(stack))
            pids = stack_pids(stack)
            common = {"base_url": stack.base_url, "api_key": seeded["api_key"], "warmup": args.warmup}
            out["generate_c1"] = measure(
                "generate_post, 4 profiles, conc 1",
                generate_load,
                {**common, "concurrency": 1, "duration": args.duration},
                pids,
                args.duration,
                sessions,
                args.wait_quiet,
            )
            for key, path, name in (
                ("get_post", f"/v1/posts/{seeded['post_id']}", "GET /v1/posts/{id} (floor)"),
                ("get_run", f"/v1/generate/runs/{seeded['run_id']}", "GET /v1/generate/runs/{id}"),
            ):
                out[key] = measure(
                    name,
                    read_load,
                    {**common, "path": path, "concurrency": args.concurrency, "duration": args.duration},
                    pids,
                    args.duration,
                    sessions,
                    args.wait_quiet,
                )
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
    return out


def print_table(out: dict[str, Any]) -> None:
    engine, gen = out["engine_cpu"], out["generate_c1"]
    core_cpu = sum(v for k, v in gen["cpu_ms_per_request"].items() if k.startswith("core"))
    print()
    print(
        f"engine CPU per call (in-process): p50 {engine['p50_ms']} ms, p99 {engine['p99_ms']} ms, max {engine['max_ms']} ms (aim: p99 < 50)"
    )
    print(
        f"generate_post through the stack, conc 1: p50 {gen['p50_ms']:.1f} ms, p99 {gen['p99_ms']:.1f} ms, core CPU {core_cpu:.2f} ms/request"
    )
    floor, polled = out["get_post"], out["get_run"]
    ratio = polled["rps"] / floor["rps"] if floor["rps"] else float("nan")
    for name, r in (("GET /v1/posts/{id}", floor), ("GET /v1/generate/runs/{id}", polled)):
        cpu = ", ".join(f"{k} {v:.2f}" for k, v in r["cpu_ms_per_request"].items() if k != "other")
        print(
            f"{name:<28}{r['rps']:>8.0f} req/s  p50 {r['p50_ms']:.1f} ms  p99 {r['p99_ms']:.1f} ms  CPU ms/req: {cpu}"
        )
    print(f"polling a run / reading a post: {ratio:.2f} of the req/s (aim: >= 1.0 within noise)")
    out["ratio_run_post_rps"] = round(ratio, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.generate_post", description=__doc__.split("\n")[0])
    add_bench_options(parser)
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "generate_post")
    if out is None:
        return 130
    return 1 if any(out[k]["errors"] for k in ("generate_c1", "get_post", "get_run")) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
