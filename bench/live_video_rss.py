"""Bench: memory of a live 500 MB video delivery to a fake X (and a 99 MiB one to a fake
Mastodon): the RSS of every process while the bytes go through.

    .venv/bin/python -m bench.live_video_rss [--size-mb 500] [--mastodon-mib 99] [--latency-ms 50]
        [--backend postgresql|sqlite] [--sample-ms 50] [--fake-as-written] [--wait-quiet 60] [--no-json]

Issue 12's target: "a 500 MB video delivery keeps each process under 150 MB RSS".

1. Starts a fake X and a fake Mastodon (harness/fakes/platforms, each in its own process, every
   answer after --latency-ms) whose large multipart bodies are parsed as they arrive: file bytes
   are counted and hashed (for X, one running SHA-256 over the `append` segments in order), never
   kept, and whose sockets are tuned as a production server's (backlog 128, TCP_NODELAY;
   --fake-as-written not): bench/fake_platforms.py.
2. Starts the real live-mode stack (core, facade, storage; X's hosts overridden to the fake,
   private addresses allowed for the Mastodon instance on loopback), one organization, an X and a
   Mastodon account connected through `POST /v1/profiles:connect` and the browser's redirects,
   and one `python -m core worker`.
3. Uploads a --size-mb MB video (10**6 bytes; an MP4 `ftyp` header then random bytes generated
   while streaming, SHA-256 computed on the way): `POST /v1/media/presign`, a streaming PUT to
   the signed storage URL, `POST /v1/media/{id}/confirm` (its content_hash must be ours).
4. `POST /v1/posts` to the X profile with the video; the worker delivers it: INITIALIZE, APPEND
   5 MiB segments streamed from storage, FINALIZE, STATUS, then the post. Waits for `published`.
5. Then the same to Mastodon with a --mastodon-mib MiB video (Mastodon's video limit is 99 MiB,
   so the 500 MB one cannot go there): one multipart `POST /api/v2/media` streaming the whole file,
   processing polled, the status. 0 skips it.
6. All along, a thread samples VmRSS of the worker, core, facade, storage and both fakes every
   --sample-ms (/proc/<pid>/status); per phase it keeps the largest, and at the end VmHWM.
7. Verifies: the post `published` with the fake's post id; X received every byte
   (received = total_bytes = size, finalized, the running SHA-256 = the upload's); Mastodon's
   attachment has the size and SHA-256 of its upload. Exit status 1 otherwise.

Prints the table and writes the result as JSON under bench/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import time
from typing import Any

import httpx

from bench.fake_platforms import FakeProcess, connect_accounts, live_env
from bench.readings import RssSampler, cpu_seconds, stack_pids, status_kib, wait_until_quiet
from bench.runs import add_run_options, bench_database, bench_result, run_bench
from bench.seed import MIB, seed_organization, video_bytes
from bench.workers import wait_workers_ready, worker_log_problems
from harness.stack import stop_processes

MB = 1_000_000
TARGET_MB = 150  # issue 12: each process under 150 MB RSS (read as 10**6 bytes: the stricter)


def upload_video(api: httpx.Client, auth: dict[str, str], size: int, name: str) -> tuple[str, str, dict[str, float]]:
    """presign, streaming PUT, confirm; returns (media id, SHA-256, seconds of each step)."""
    times = {}
    ticket = api.post(
        "/v1/media/presign", headers=auth, json={"filename": name, "mime_type": "video/mp4", "size_bytes": size}
    )
    if ticket.status_code not in (200, 201):
        raise RuntimeError(f"presign: {ticket.status_code} {ticket.text[:300]}")
    ticket = ticket.json()
    digest = hashlib.sha256()
    started = time.perf_counter()
    put = httpx.put(
        ticket["upload_url"],
        content=video_bytes(size, digest),
        headers={"Content-Type": "video/mp4", "Content-Length": str(size)},
        timeout=600,
    )
    times["put_s"] = time.perf_counter() - started
    if put.status_code >= 300:
        raise RuntimeError(f"upload: {put.status_code} {put.text[:300]}")
    started = time.perf_counter()
    confirmed = api.post(f"/v1/media/{ticket['media_id']}/confirm", headers=auth, timeout=600)
    times["confirm_s"] = time.perf_counter() - started
    sha = digest.hexdigest()
    if confirmed.status_code != 200 or confirmed.json().get("content_hash") != sha:
        raise RuntimeError(f"confirm: {confirmed.status_code} {confirmed.text[:300]}")
    return ticket["media_id"], sha, times


def deliver(api: httpx.Client, auth: dict[str, str], slug: str, media_id: str, text: str, timeout: float) -> dict:
    """POST /v1/posts with the video, then GET it until it is final."""
    created = api.post("/v1/posts", headers=auth, json={"content": text, "profiles": [slug], "media_ids": [media_id]})
    if created.status_code != 201:
        raise RuntimeError(f"create: {created.status_code} {created.text[:300]}")
    post_id = created.json()["posts"][0]["id"]
    started = time.perf_counter()
    deadline = time.monotonic() + timeout
    while True:
        post = api.get(f"/v1/posts/{post_id}", headers=auth).json()
        if post["status"] in ("published", "failed", "canceled"):
            post["bench_seconds"] = time.perf_counter() - started
            return post
        if time.monotonic() > deadline:
            raise TimeoutError(f"post {post_id} not final after {timeout} s: {post}")
        time.sleep(0.2)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from harness.stack import running_stack

    size = args.size_mb * MB
    m_size = args.mastodon_mib * MIB
    with (
        FakeProcess("x", args.latency_ms, args.fake_as_written) as fake_x,
        FakeProcess("mastodon", args.latency_ms, args.fake_as_written) as fake_m,
        bench_database(args.backend) as (url, workdir, _),
        running_stack(url, workdir, **live_env(fake_x, HERALD_PUBLISH_POLL_SECONDS="0.2")) as stack,
    ):
        out = bench_result("live video delivery RSS", "bench.live_video_rss", args, url)
        out["checks"] = {}
        print(
            f"live video RSS  backend={args.backend}  X: {size:,} bytes  Mastodon: {m_size:,} bytes  "
            f"fake latency {args.latency_ms} ms  loadavg {' '.join(out['loadavg_at_start'])}",
            flush=True,
        )
        boot = asyncio.run(seed_organization(url, profiles=(), credits=100))
        x_accounts = asyncio.run(connect_accounts(stack.base_url, boot["api_key"], fake_x, ["video_x"], platform="x"))
        m_accounts = asyncio.run(
            connect_accounts(
                stack.base_url, boot["api_key"], fake_m, ["video_m"], platform="mastodon", instance_url=fake_m.base_url
            )
        )
        (x_slug,), (m_slug,) = list(x_accounts), list(m_accounts)
        worker = stack.spawn("core", "worker", log_name="worker0")
        try:
            wait_workers_ready([worker], url.split("///", 1)[1] if url.startswith("sqlite") else None)
            pids = {"worker": worker.pid, **stack_pids(stack), "fake_x": fake_x.pid, "fake_mastodon": fake_m.pid}
            auth = {"Authorization": f"Bearer {boot['api_key']}"}
            idle = {name: (status_kib(pid, "VmRSS") or 0) / 1024 for name, pid in pids.items()}
            out["busy_before"] = round(wait_until_quiet(args.wait_quiet), 3) if args.wait_quiet > 0 else None
            with (
                RssSampler(pids, args.sample_ms / 1000, phase="idle") as sampler,
                httpx.Client(base_url=stack.base_url, timeout=60) as api,
            ):
                sampler.phase = f"upload + confirm ({args.size_mb} MB)"
                x_media, x_sha, x_times = upload_video(api, auth, size, "big.mp4")
                out["x_upload"] = {k: round(v, 2) for k, v in x_times.items()}
                sampler.phase = "X delivery"
                cpu0 = {name: cpu_seconds(pid) for name, pid in pids.items()}
                x_post = deliver(api, auth, x_slug, x_media, f"A {args.size_mb} MB video, live.", args.timeout)
                x_cpu = {name: round(cpu_seconds(pid) - cpu0[name], 2) for name, pid in pids.items()}
                m_post = m_media = m_sha = None
                m_cpu: dict[str, float] = {}
                if m_size:
                    sampler.phase = f"upload + confirm ({args.mastodon_mib} MiB)"
                    m_media, m_sha, m_times = upload_video(api, auth, m_size, "medium.mp4")
                    out["mastodon_upload"] = {k: round(v, 2) for k, v in m_times.items()}
                    sampler.phase = "Mastodon delivery"
                    cpu0 = {name: cpu_seconds(pid) for name, pid in pids.items()}
                    m_post = deliver(
                        api, auth, m_slug, m_media, f"A {args.mastodon_mib} MiB video, live.", args.timeout
                    )
                    m_cpu = {name: round(cpu_seconds(pid) - cpu0[name], 2) for name, pid in pids.items()}
                sampler.phase = "after"
                time.sleep(args.sample_ms / 1000 * 3)
            hwm = {name: (status_kib(pid, "VmHWM") or 0) / 1024 for name, pid in pids.items()}
            samples = sampler.samples
            peaks = {phase: {n: round(v / 1024, 1) for n, v in p.items()} for phase, p in sampler.peaks.items()}
            x_seen = fake_x.call("media")
            tweets = fake_x.call("tweets")
            x_requests = fake_x.call("requests")
            m_seen = fake_m.call("media") if m_size else {}
            statuses = fake_m.call("statuses") if m_size else []
            m_requests = fake_m.call("requests") if m_size else {}
        finally:
            stop_processes([worker])
        log_problems = worker_log_problems(workdir)

    # --- verification
    checks = out["checks"]
    videos = [m for m in x_seen.values() if m["kind"] == "video"]
    checks["x_post_published"] = x_post["status"] == "published"
    checks["x_one_video_received_whole"] = (
        len(videos) == 1
        and videos[0]["total_bytes"] == size
        and videos[0]["received"] == size
        and videos[0]["finalized"]
        and videos[0]["segments"] == -(-size // (5 * MIB))
    )
    checks["x_sha256_matches"] = len(videos) == 1 and videos[0]["sha256"] == x_sha
    checks["x_one_tweet_with_it"] = (
        len(tweets) == 1 and tweets[0][0] == x_post.get("platform_post_id") and len(tweets[0][4]) == 1
    )
    if m_size:
        attachments = list(m_seen.values())
        checks["mastodon_post_published"] = m_post["status"] == "published"
        checks["mastodon_video_received_whole"] = (
            len(attachments) == 1 and attachments[0]["size"] == m_size and attachments[0]["sha256"] == m_sha
        )
        checks["mastodon_one_status_with_it"] = (
            len(statuses) == 1 and statuses[0][0] == m_post.get("platform_post_id") and len(statuses[0][4]) == 1
        )
    out.update(
        {
            "size_bytes": size,
            "mastodon_size_bytes": m_size,
            "x_post": {
                k: x_post.get(k)
                for k in ("status", "attempts", "failure_reason", "platform_error", "platform_post_id", "bench_seconds")
            },
            "mastodon_post": m_post
            and {
                k: m_post.get(k)
                for k in ("status", "attempts", "failure_reason", "platform_error", "platform_post_id", "bench_seconds")
            },
            "x_fake_media": x_seen,
            "x_fake_requests": x_requests,
            "mastodon_fake_media": m_seen,
            "mastodon_fake_requests": m_requests,
            "cpu_s_x_delivery": x_cpu,
            "cpu_s_mastodon_delivery": m_cpu,
            "rss_idle_mib": {k: round(v, 1) for k, v in idle.items()},
            "rss_peak_mib_by_phase": peaks,
            "vmhwm_mib": {k: round(v, 1) for k, v in hwm.items()},
            "samples": samples,
            "worker_log_problems": log_problems[:20],
        }
    )
    return out


def print_table(out: dict[str, Any]) -> None:
    peaks = out["rss_peak_mib_by_phase"]
    phases = [p for p in peaks if p not in ("idle", "after")]
    names = list(out["rss_idle_mib"])
    print()
    x = out["x_post"]
    x_mbs = out["size_bytes"] / MB / x["bench_seconds"] if x.get("bench_seconds") else float("nan")
    print(
        f"X: {out['size_bytes']:,} bytes {x['status']} in {x['bench_seconds']:.1f} s ({x_mbs:.0f} MB/s, "
        f"{len(out['x_fake_media'])} media, upload PUT {out['x_upload']['put_s']:.1f} s, confirm {out['x_upload']['confirm_s']:.1f} s)"
    )
    if out["mastodon_post"]:
        m = out["mastodon_post"]
        print(
            f"Mastodon: {out['mastodon_size_bytes']:,} bytes {m['status']} in {m['bench_seconds']:.1f} s "
            f"({out['mastodon_size_bytes'] / MB / m['bench_seconds']:.0f} MB/s)"
        )
    print(
        f"\nRSS in MiB (VmRSS sampled every {out['args']['sample_ms']:g} ms, {out['samples']} samples; VmHWM at the end)"
    )
    head = f"| {'process':<14} | {'idle':>6} | " + " | ".join(f"{p:>26}" for p in phases) + f" | {'VmHWM':>6} |"
    print(head)
    print("|" + "|".join("-" * (len(c) + 0) for c in head.split("|")[1:-1]) + "|")
    for name in names:
        cells = " | ".join(f"{peaks[p].get(name, float('nan')):>26.1f}" for p in phases)
        print(f"| {name:<14} | {out['rss_idle_mib'][name]:>6.1f} | {cells} | {out['vmhwm_mib'][name]:>6.1f} |")
    cpu = out["cpu_s_x_delivery"]
    print("\nCPU s during the X delivery: " + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items()))
    if out["cpu_s_mastodon_delivery"]:
        print(
            "CPU s during the Mastodon delivery: "
            + ", ".join(f"{k} {v:.1f}" for k, v in out["cpu_s_mastodon_delivery"].items())
        )
    limit_mib = TARGET_MB * MB / MIB
    worst = max(
        ((n, v) for p in phases for n, v in peaks[p].items() if "delivery" in p), key=lambda nv: nv[1], default=("", 0)
    )
    verdict = "met" if worst[1] < limit_mib else "NOT met"
    print(
        f"\ntarget: each process under {TARGET_MB} MB ({limit_mib:.0f} MiB) during the deliveries: {verdict}"
        f" (largest: {worst[0]} {worst[1]:.1f} MiB)"
    )
    print("checks: " + ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in out["checks"].items()))
    if out["worker_log_problems"]:
        print(f"NOTE: {len(out['worker_log_problems'])} warning/error lines in the worker log")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.live_video_rss", description=__doc__.split("\n")[0])
    add_run_options(parser)
    parser.add_argument("--size-mb", type=int, default=500, help="the X video, in MB (10**6 bytes)")
    parser.add_argument(
        "--mastodon-mib", type=int, default=99, help="the Mastodon video in MiB (its limit: 99); 0 skips"
    )
    parser.add_argument("--latency-ms", type=float, default=50.0, help="the fakes answer every request after this")
    parser.add_argument(
        "--fake-as-written",
        action="store_true",
        help="keep the fakes' stdlib server sockets as they are (backlog 5, no TCP_NODELAY: ~40 ms more per request)",
    )
    parser.add_argument("--sample-ms", type=float, default=50.0, help="how often VmRSS is read")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a delivery may take")
    parser.set_defaults(wait_quiet=60.0)
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "live_video_rss")
    if out is None:
        return 130
    return 0 if all(out["checks"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
