"""Bench: the compose page's counter round trip (text -> counts for 8 destinations) beside its floor.

    .venv/bin/python -m bench.compose_preview [--backend postgresql|sqlite] [--duration 10] [--rounds 2]

Through the real stack (core and facade, PostgreSQL by default), a signed-in human's session and
the compose form's CSRF token (taken through /login and the page, as a browser does). From a
separate load process, one request in flight at a time, alternating --rounds times:
- `POST /dashboard/compose/preview`: what the page's script sends 250 ms after the last
  keystroke, the form's fields for 8 destinations (one per platform: a video, a thread item,
  versions for Instagram, TikTok, YouTube and LinkedIn, two of them with a first comment); the
  answer is checked (200, 8 destinations; one body in ten parsed).
- the floor: the core's `PostService/PreviewPosts` called directly over gRPC with the same
  request and the session credential, as the endpoint calls it.
The aim (issue 31): p50 <= 30 ms for the page's round trip. Prints p50/p99 of both and the
difference (the facade: the session and CSRF checks, reading the form, the contract's check,
rendering the JSON).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from typing import Any
from urllib.parse import urlencode

from bench.dashboard_pages import CSRF_FIELD, post_service_load, sign_in
from bench.load import measured_body_loop
from bench.readings import peak_rss_mib, stack_pids
from bench.runs import add_run_options, bench_database, bench_result, phases, run_bench
from bench.seed import confirmed_media, seed_organization

PROFILES = [
    ("c-x", "x"),
    ("c-bsky", "bluesky"),
    ("c-mastodon", "mastodon"),
    ("c-threads", "threads"),
    ("c-ig", "instagram"),
    ("c-tiktok", "tiktok"),
    ("c-yt", "youtube"),
    ("c-li", "linkedin"),
]
EMAIL = "compose@example.com"


async def seed(stack: Any) -> str:
    """The organization, its 8 profiles and one confirmed vertical video; the video's id."""
    out = await seed_organization(stack.database_url, org="compose", profiles=PROFILES, credits=1000, email=EMAIL)
    (video,) = await confirmed_media(stack.database_url, out["org_id"], [("video/mp4", 2_000_000, 1080, 1920)])
    return video


def session(base_url: str) -> tuple[str, str]:
    """Signs in through /login as a browser does; the session token and the compose form's CSRF token."""
    import httpx

    with httpx.Client(base_url=base_url, timeout=30) as http:
        token = sign_in(http, EMAIL)
        page = http.get("/dashboard/compose")
        if page.status_code != 200:
            raise RuntimeError(f"the compose page answered HTTP {page.status_code}")
        return token, CSRF_FIELD.search(page.text).group(1)


def form_fields(video: str, csrf_token: str) -> list[tuple[str, str]]:
    """The compose form as the page sends it: 8 destinations, one video, a thread item, and the
    versions that make each destination's post what its platform takes."""
    fields = [
        ("csrf_token", csrf_token),
        ("content", "Spring is here 🌱 new colours, recycled fabrics, same fit. https://example.com/spring"),
        *(("profiles", slug) for slug, _ in PROFILES),
        ("thread", "Every piece uses at least 60% recycled fibre."),
        ("media_ids", video),
        ("v.c-ig.post_type", "reel"),
        ("v.c-ig.no_thread", "1"),
        ("v.c-ig.first_comment", "Sizes and prices: link in bio"),
        ("v.c-tiktok.content", "Spring drop 🌱 #fashion #spring"),
        ("v.c-tiktok.no_thread", "1"),
        ("v.c-yt.title", "Spring lookbook"),
        ("v.c-yt.post_type", "short"),
        ("v.c-yt.no_thread", "1"),
        ("v.c-yt.first_comment", "Sizes and prices: https://example.com/spring/sizes"),
        ("v.c-li.no_thread", "1"),
        ("time_zone", "Europe/Paris"),
    ]
    return fields


def preview_message(fields: list[tuple[str, str]]) -> bytes:
    """The PreviewPosts request the endpoint sends for these fields, read by the facade's own
    code (compose_form.read_form, the contract's model), so the floor asks the core exactly what
    the page makes it ask."""
    from sanic.request import RequestParameters

    from contract.writing import PreviewPostsRequest
    from facades.web.compose_form import read_form

    form = RequestParameters()
    for name, value in fields:
        form.setdefault(name, []).append(value)
    body = read_form(form).body("schedule")
    return PreviewPostsRequest.model_validate(body).to_proto().SerializeToString()


def preview_once(base_url: str, session_token: str, fields: list[tuple[str, str]]) -> dict[str, Any]:
    """One preview before measuring: whether the post is ready for every destination (it is
    meant to be; a problem is printed, not hidden), and what each button may do."""
    import httpx

    with httpx.Client(base_url=base_url, timeout=30, cookies={"herald_session": session_token}) as http:
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        answer = http.post("/dashboard/compose/preview", content=urlencode(fields), headers=headers)
    answer.raise_for_status()
    shown = answer.json()
    problems = [(d["profile"], p["code"]) for d in shown["preview"]["destinations"] for p in d["problems"]]
    print(f"  the form's preview: valid {shown['preview']['valid']}, credits {shown['preview']['credits']}")
    if problems:
        print(f"    problems: {problems}")
    return {"valid": shown["preview"]["valid"], "problems": problems, "actions": shown["actions"]}


def _check(answer: bytes, _: Any) -> str | None:
    try:
        shown = json.loads(answer)["preview"]
    except (ValueError, KeyError, TypeError) as exc:
        return f"unparseable answer ({exc}): {answer[:200]!r}"
    if shown is None or len(shown["destinations"]) != len(PROFILES):
        return f"unexpected preview {answer[:300]!r}"
    return None


async def page_load(
    window: Any, *, base_url: str, session_token: str, body: bytes, duration: float, warmup: float
) -> dict[str, Any]:
    headers = {
        "Cookie": f"herald_session={session_token}",
        "Content-Type": "application/x-www-form-urlencoded",
        "Accept": "application/json",
    }
    return await measured_body_loop(
        window,
        base_url=base_url,
        path="/dashboard/compose/preview",
        headers=headers,
        body_for=lambda k, n: (body, None),
        check=_check,
        concurrency=1,
        duration=duration,
        warmup=warmup,
        status=200,
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    out: dict[str, Any] = {}
    with bench_database(args.backend) as (url, workdir, sessions):
        out.update(bench_result("compose preview round trip beside PreviewPosts", "bench.compose_preview", args, url))
        with running_stack(url, workdir, core_processes=args.core_processes) as stack:
            video = asyncio.run(seed(stack))
            token, csrf_token = session(stack.base_url)
            fields = form_fields(video, csrf_token)
            message = preview_message(fields)
            out["preview_once"] = preview_once(stack.base_url, token, fields)
            pids = stack_pids(stack)
            phase = phases(args, pids, sessions)
            for round_ in range(1, args.rounds + 1):
                out[f"floor_r{round_}"] = phase(
                    f"PreviewPosts gRPC r{round_}",
                    post_service_load,
                    core_target=stack.core_target,
                    session_token=token,
                    rpc="PreviewPosts",
                    message=message,
                    field="destinations",
                    expected=len(PROFILES),
                )
                out[f"page_r{round_}"] = phase(
                    f"compose preview r{round_}",
                    page_load,
                    base_url=stack.base_url,
                    session_token=token,
                    body=urlencode(fields).encode(),
                )
            out["peak_rss_mib"] = {name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()}
    return out


def print_table(out: dict[str, Any]) -> None:
    print()
    rounds = sorted(int(k.removeprefix("page_r")) for k in out if k.startswith("page_r"))
    for round_ in rounds:
        floor, page = out[f"floor_r{round_}"], out[f"page_r{round_}"]
        for name, r in (("PreviewPosts over gRPC (floor)", floor), ("POST /dashboard/compose/preview", page)):
            print(
                f"r{round_} {name:<33} p50 {r['p50_ms']:6.2f} ms  p99 {r['p99_ms']:6.2f} ms  ({r['requests']} requests)"
            )
        print(
            f"   the page's round trip: p50 {page['p50_ms']:.2f} ms (aim: <= 30 ms), "
            f"{page['p50_ms'] - floor['p50_ms']:+.2f} ms over the floor"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.compose_preview", description=__doc__.split("\n")[0])
    add_run_options(parser)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each measured run")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of warm-up before each run")
    parser.add_argument("--rounds", type=int, default=2, help="floor and page runs, alternated")
    parser.add_argument("--core-processes", type=int, default=2, help="core processes sharing one port")
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "compose_preview")
    if out is None:
        return 130
    return 1 if any(v.get("errors") for k, v in out.items() if k.startswith(("floor_r", "page_r"))) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
