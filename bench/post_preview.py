"""Bench: the post preview beside the dry run it is built on.

    .venv/bin/python -m bench.post_preview [--backend postgresql|sqlite] [--duration 8] [--concurrency 32]

Through the real stack (core and facade, PostgreSQL by default), from a separate load process,
the same body for 4 destinations (x, bluesky, instagram with an image, youtube with a title and
a video; a thread item and a first comment, one customization) sent alternately as
`POST /v1/posts:validate` (the floor) and `POST /v1/posts:preview`, each at concurrency 1 and at
--concurrency: req/s, p50/p99, CPU ms per request. The aim (issue 19): the preview answers within
2x the dry run. Every response is checked (status; one body in ten parsed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from typing import Any

from bench.load import measured_body_loop
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import add_bench_options, bench_database, bench_result, measure, run_bench
from bench.seed import confirmed_media, seed_organization

PROFILES = [("p-x", "x"), ("p-bsky", "bluesky"), ("p-ig", "instagram"), ("p-yt", "youtube")]


async def seed(stack: Any) -> dict[str, Any]:
    out = await seed_organization(stack.database_url, org="pv", profiles=PROFILES, credits=1000)
    image, video = await confirmed_media(
        stack.database_url, out["org_id"], [("image/jpeg", 200_000, 1080, 1080), ("video/mp4", 200_000, 1920, 1080)]
    )
    body = {
        "content": "Spring is here 🌱 new colours, recycled fabrics, same fit. https://example.com/spring",
        "profiles": [slug for slug, _ in PROFILES],
        "media_ids": [image],
        "thread": [{"content": "Every piece uses at least 60% recycled fibre."}],
        "first_comment": "Sizes and prices: https://example.com/spring/sizes",
        "customizations": {
            "p-ig": {"thread": []},
            "p-yt": {"media_ids": [video], "title": "Spring lookbook", "thread": []},
        },
    }
    return {"api_key": out["api_key"], "body": body}


async def post_load(
    window: Any, *, base_url: str, path: str, api_key: str, body: dict, concurrency: int, duration: float, warmup: float
) -> dict[str, Any]:
    payload = json.dumps(body).encode()
    key = "destinations" if path.endswith(":preview") else "profiles"

    def check(answer: bytes, _: None) -> str | None:
        return None if len(json.loads(answer)[key]) == len(PROFILES) else f"unexpected body {answer[:200]!r}"

    return await measured_body_loop(
        window,
        base_url=base_url,
        path=path,
        headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"},
        body_for=lambda k, n: (payload, None),
        check=check,
        concurrency=concurrency,
        duration=duration,
        warmup=warmup,
        status=200,
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    out: dict[str, Any] = {}
    with bench_database(args.backend) as (url, workdir, sessions):
        out.update(bench_result("post preview beside the dry run", "bench.post_preview", args, url))
        with running_stack(url, workdir, core_processes=args.core_processes) as stack:
            seeded = asyncio.run(seed(stack))
            pids = stack_pids(stack)
            common = {"base_url": stack.base_url, "api_key": seeded["api_key"], "body": seeded["body"]}
            for concurrency, duration in ((1, args.c1_duration), (args.concurrency, args.duration)):
                for key, path in (("validate", "/v1/posts:validate"), ("preview", "/v1/posts:preview")):
                    out[f"{key}_c{concurrency}"] = measure(
                        f"{path} c{concurrency}",
                        post_load,
                        {
                            **common,
                            "path": path,
                            "concurrency": concurrency,
                            "duration": duration,
                            "warmup": args.warmup,
                        },
                        pids,
                        duration,
                        sessions,
                        args.wait_quiet,
                    )
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
    return out


def print_table(out: dict[str, Any]) -> None:
    print()
    for concurrency in sorted({int(k.rsplit("_c", 1)[1]) for k in out if k.startswith("validate_c")}):
        floor, shown = out[f"validate_c{concurrency}"], out[f"preview_c{concurrency}"]
        for name, r in (("validate (floor)", floor), ("preview", shown)):
            cpu = sum(v for k, v in r["cpu_ms_per_request"].items() if k.startswith("core"))
            print(
                f"c{concurrency:<3} {name:<18}{r['rps']:>8.0f} req/s  p50 {r['p50_ms']:.2f} ms  "
                f"p99 {r['p99_ms']:.2f} ms  core CPU {cpu:.2f} ms/req"
            )
        latency = shown["p50_ms"] / floor["p50_ms"] if floor["p50_ms"] else float("nan")
        throughput = floor["rps"] / shown["rps"] if shown["rps"] else float("nan")
        print(f"     preview / validate: p50 x{latency:.2f}, time per request x{throughput:.2f} (aim: <= 2)")
        out[f"ratio_c{concurrency}"] = {"p50": round(latency, 3), "time_per_request": round(throughput, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.post_preview", description=__doc__.split("\n")[0])
    add_bench_options(parser)
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "post_preview")
    if out is None:
        return 130
    return 1 if any(v.get("errors") for k, v in out.items() if k.startswith(("validate_c", "preview_c"))) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
