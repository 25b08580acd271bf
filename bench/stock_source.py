"""Bench: stock sourcing (`POST /v1/media/source`, 10 photos) beside its floor, in the same run.

    .venv/bin/python -m bench.stock_source [--backend sqlite|postgresql] [--reps 10]
        [--rows stock_a:square stock_a:landscape stock_a:portrait stock_b:square] [--no-json]

Issue 16: sourcing 10 images of 2-6 MB from the local provider takes at most 1.3x the unavoidable
work measured in the same run, and the core's peak RSS stays under 250 MB while doing it.

1. Draws the demo provider's catalogue (core/stock/demo_catalogue.py) into a temp directory and
   picks the first 10 photos whose original JPEG is at least 2,000,000 bytes; then starts the demo
   provider as its own process (`python -m core stock-demo`, both APIs on one loopback port).
2. Starts the real core (one process), facade and storage (harness/stack.py, running_stack) with
   stock_a (Pexels API) and stock_b (Unsplash API) pointed at the demo, as tests/facades/
   test_stock.py does, and bootstraps an organization with 1,000,000 credits.
3. Starts the floor process (spawned, persistent): for the same 10 refs it asks the provider for
   the rendition exactly as the core does (the same PexelsProvider / UnsplashProvider
   `rendition(ref, width, height)` calls with the preset's TARGET_BOX, so the same URLs), downloads
   them with httpx, 4 at a time (the core's FETCH_CONCURRENCY), and in a thread per image
   (asyncio.to_thread, as the core) decodes with Pillow (`draft` to the needed size), crops the
   preset's ratio (centred), resizes to the output size the core computes (`output_size`, bicubic,
   reducing_gap 2.0, as the core) and encodes a JPEG with the core's settings (quality 88,
   progressive, optimized). Each phase is timed. That is the unavoidable work: nothing is stored,
   recorded or charged, no detail map is computed, nothing goes through gRPC or the facade.
4. Warm-up: for every row one floor call and one sourcing call, not measured (the demo makes each
   rendition once, at its first request; the warm-up makes them all, so generation is never
   measured; it also opens the connection pools).
5. Then `--reps` times, for every row (provider:preset): one `POST /v1/media/source` with the 10
   refs through the facade, timed from the bench process (the whole HTTP call), and one floor call,
   the two in alternating order; every sourcing call must answer 200 with 10 media delivered and no
   failures. Each measured call is made by an organization of its own (made before the row's
   calls, not timed), so nothing is deduplicated: every call fetches, crops, encodes, hashes,
   stores, records and charges 10 new photos.
   The core's VmRSS is sampled every 10 ms during each sourcing call; VmHWM is read before the
   first call and at the end.
6. Prints, per row, the median and p90 of the sourcing call and of the floor, their ratio (of the
   medians), the CPU seconds per call of the core, the floor process and the demo provider, the
   floor's phases; then the core's peak RSS. Writes everything as JSON under bench/results/.

Exit status 1 if a sourcing call did not deliver all 10 photos.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import math
import multiprocessing
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.load import percentile
from bench.readings import RssSampler, cpu_seconds, stack_pids, status_kib, wait_until_quiet
from bench.runs import add_run_options, bench_result, run_bench
from harness.stack import ROOT, Stack, bootstrap_org, database, free_port, running_stack, stack_env

MIN_ORIGINAL_BYTES = 2_000_000
PHOTOS = 10
FETCH_CONCURRENCY = 4  # core/stock/service.py
RSS_TARGET_MB = 250
RATIO_TARGET = 1.3
DEFAULT_ROWS = ["stock_a:square", "stock_a:landscape", "stock_a:portrait", "stock_b:square"]


# ----------------------------------------------------------------------------- the floor (child process)


def _floor_process(data: bytes, preset: str) -> dict[str, Any]:
    """Decode (draft), crop, resize and encode one rendition as the core's crop_to_preset does,
    without the detail map, EXIF/ICC handling or checks. Returns the phase times and the output."""
    from PIL import Image

    from core.stock.images import JPEG_QUALITY, PRESETS, TARGET_BOX, output_size

    t0, c0 = time.perf_counter(), time.thread_time()
    image = Image.open(io.BytesIO(data))
    w, h = image.size
    width, height = output_size((w, h), PRESETS[preset], TARGET_BOX[preset])
    # The largest window of the preset's ratio, centred, as fractions of the image (as the core).
    horizontal = w * height >= h * width
    span = (h * width / height) / w if horizontal else (w * height / width) / h
    lo, hi = (1 - span) / 2, (1 + span) / 2
    need = (math.ceil(width / span), height) if horizontal else (width, math.ceil(height / span))
    drafted = image.draft("RGB", need)
    sw, sh = (drafted[1][2], drafted[1][3]) if drafted else (float(w), float(h))
    image.load()
    t1, c1 = time.perf_counter(), time.thread_time()
    fractions = (lo, 0.0, hi, 1.0) if horizontal else (0.0, lo, 1.0, hi)
    box = (
        fractions[0] * sw,
        fractions[1] * sh,
        min(fractions[2] * sw, image.width),
        min(fractions[3] * sh, image.height),
    )
    pixels = image.resize((width, height), Image.Resampling.BICUBIC, box=box, reducing_gap=2.0)
    rgb = pixels if pixels.mode == "RGB" else pixels.convert("RGB")
    t2, c2 = time.perf_counter(), time.thread_time()
    out = io.BytesIO()
    rgb.save(out, "JPEG", quality=JPEG_QUALITY, progressive=True, optimize=True)
    t3, c3 = time.perf_counter(), time.thread_time()
    return {
        "decode_s": t1 - t0,
        "crop_s": t2 - t1,
        "encode_s": t3 - t2,
        "decode_cpu_s": c1 - c0,
        "crop_cpu_s": c2 - c1,
        "encode_cpu_s": c3 - c2,
        "in_size": [w, h],
        "decoded_size": [image.width, image.height],
        "out_size": [rgb.width, rgb.height],
        "out_bytes": out.tell(),
    }


async def _floor_image(
    gate: asyncio.Semaphore, provider: Any, client: httpx.AsyncClient, ref: str, preset: str, box: tuple[int, int]
) -> dict[str, Any]:
    """One photo of the floor: the provider's rendition URL, its bytes, then Pillow in a thread."""
    async with gate:
        t0 = time.perf_counter()
        rendition = await provider.rendition(ref, width=box[0], height=box[1])
        t1 = time.perf_counter()
        response = await client.get(rendition.url, headers={"Accept": "image/jpeg, image/png, image/webp"})
        response.raise_for_status()
        data = response.content
        t2 = time.perf_counter()
        done = await asyncio.to_thread(_floor_process, data, preset)
        t3 = time.perf_counter()
    return {**done, "lookup_s": t1 - t0, "download_s": t2 - t1, "thread_s": t3 - t2, "rendition_bytes": len(data)}


async def _floor_serve(conn: Any, demo_base: str, app_name: str) -> None:
    from core.stock.demo import DEMO_PEXELS_KEY, DEMO_UNSPLASH_KEY
    from core.stock.images import TARGET_BOX
    from core.stock.providers import PexelsProvider, UnsplashProvider

    host = demo_base.removeprefix("http://")
    providers = {
        "stock_a": PexelsProvider(DEMO_PEXELS_KEY, base_url=demo_base, image_hosts=frozenset({host})),
        "stock_b": UnsplashProvider(
            DEMO_UNSPLASH_KEY, app_name=app_name, base_url=f"{demo_base}/unsplash", image_hosts=frozenset({host})
        ),
    }
    client = httpx.AsyncClient(timeout=60)
    loop = asyncio.get_running_loop()
    try:
        while True:
            job = await loop.run_in_executor(None, conn.recv)
            if job is None:
                return
            provider_key, preset, refs = job
            provider = providers[provider_key]
            width, height = TARGET_BOX[preset]
            gate = asyncio.Semaphore(FETCH_CONCURRENCY)

            cpu0, t0 = time.process_time(), time.perf_counter()
            try:
                images = await asyncio.gather(
                    *(_floor_image(gate, provider, client, r, preset, (width, height)) for r in refs)
                )
            except Exception as error:  # reported to the parent
                conn.send(("error", f"{type(error).__name__}: {error}"))
                continue
            wall = time.perf_counter() - t0
            conn.send(("ok", {"wall_s": wall, "cpu_s": time.process_time() - cpu0, "images": images}))
    finally:
        await client.aclose()
        for p in providers.values():
            await p.aclose()


def _floor_entry(conn: Any, demo_base: str, app_name: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops it
    asyncio.run(_floor_serve(conn, demo_base, app_name))


class Floor:
    """The floor in its own spawned process (it shares no interpreter, GIL or pool with the bench)."""

    def __init__(self, demo_base: str, app_name: str) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_floor_entry, args=(child, demo_base, app_name), daemon=True)
        self.proc.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def run(self, provider: str, preset: str, refs: list[str]) -> dict[str, Any]:
        self.conn.send((provider, preset, refs))
        if not self.conn.poll(300):
            raise TimeoutError("the floor process did not answer")
        kind, value = self.conn.recv()
        if kind != "ok":
            raise RuntimeError(f"floor failed: {value}")
        return value

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(5)


# ----------------------------------------------------------------------------- the demo provider


def pick_refs(demo_dir: Path) -> list[dict[str, Any]]:
    """Draws the catalogue's originals and returns the first PHOTOS photos of >= 2,000,000 bytes."""
    from core.stock.demo_catalogue import CATALOGUE, ImageStore

    store = ImageStore(demo_dir)
    store.prepare()
    picked = []
    for photo in CATALOGUE:
        size = store.original(photo).stat().st_size
        if size >= MIN_ORIGINAL_BYTES:
            picked.append(
                {
                    "number": photo.number,
                    "stock_a": str(photo.pexels_id),
                    "stock_b": photo.unsplash_id,
                    "original": [photo.width, photo.height],
                    "original_bytes": size,
                }
            )
    if len(picked) < PHOTOS:
        raise SystemExit(f"the demo catalogue has only {len(picked)} originals of >= {MIN_ORIGINAL_BYTES} bytes")
    return picked[:PHOTOS]


def start_demo(url: str, workdir: Path) -> tuple[subprocess.Popen, str]:
    """`python -m core stock-demo` on a free loopback port, its catalogue under HERALD_DATA_DIR."""
    from core.stock.demo import DEMO_PEXELS_KEY

    port = free_port()
    # A Stack of this one process: the settings every stack process gets, its log in `workdir`.
    demo = Stack(url, workdir, "", "", stack_env(url, workdir))
    proc = demo.spawn("core", "stock-demo", "--listen", f"127.0.0.1:{port}", log_name="stock-demo")
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the demo provider exited with {proc.returncode}")
        try:
            r = httpx.get(f"{base}/v1/search?query=coffee", headers={"Authorization": DEMO_PEXELS_KEY}, timeout=1)
            if r.status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("the demo provider did not answer")
        time.sleep(0.05)


# ----------------------------------------------------------------------------- the run


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_s": round(statistics.median(ordered), 4),
        "p90_s": round(percentile(ordered, 90), 4),
        "min_s": round(ordered[0], 4),
        "max_s": round(ordered[-1], 4),
    }


def source_once(
    http: httpx.Client, headers: dict[str, str], provider: str, preset: str, refs: list[str]
) -> tuple[float, str | None]:
    """One timed POST /v1/media/source; returns (seconds, failure or None)."""
    body = {"source_refs": refs, "preset": preset, "provider": provider, "query": "bench"}
    t0 = time.perf_counter()
    r = http.post("/v1/media/source", json=body, headers=headers)
    elapsed = time.perf_counter() - t0
    if r.status_code != 200:
        return elapsed, f"HTTP {r.status_code}: {r.text[:300]}"
    answer = r.json()
    if (
        answer.get("delivered_count") != len(refs)
        or answer.get("failures")
        or len(answer.get("media_ids", [])) != len(refs)
    ):
        return elapsed, f"delivered {answer.get('delivered_count')} of {len(refs)}: {answer.get('failures')}"
    return elapsed, None


def run(args: argparse.Namespace) -> dict[str, Any]:
    rows = [tuple(r.split(":", 1)) for r in args.rows]
    work = Path(tempfile.mkdtemp(prefix="herald-stock-bench-", dir=ROOT / "var" if (ROOT / "var").exists() else None))
    failures: list[str] = []
    demo = floor = None
    try:
        picked = pick_refs(work / "data" / "stock-demo")
        with database(args.backend, work) as url:
            out = bench_result(
                "stock sourcing (POST /v1/media/source, 10 photos) beside its floor", "bench.stock_source", args, url
            )
            demo, demo_base = start_demo(url, work)
            from core.stock.demo import DEMO_PEXELS_KEY, DEMO_UNSPLASH_KEY

            with running_stack(
                url,
                work,
                HERALD_STOCK_A_API_KEY=DEMO_PEXELS_KEY,
                HERALD_STOCK_A_BASE_URL=demo_base,
                HERALD_STOCK_B_ACCESS_KEY=DEMO_UNSPLASH_KEY,
                HERALD_STOCK_B_BASE_URL=f"{demo_base}/unsplash",
                HERALD_STOCK_B_APP_NAME="herald_bench",
                HERALD_LOW_CREDIT_THRESHOLD="0",
            ) as stack:
                pids = stack_pids(stack)
                core_pid = pids["core0"]
                key = bootstrap_org(url, "bench-stock", credits=1_000_000)
                headers = {"Authorization": f"Bearer {key}"}
                floor = Floor(demo_base, "herald_bench")
                hwm_before_kib = status_kib(core_pid, "VmHWM") or 0
                rss_idle_kib = status_kib(core_pid, "VmRSS") or 0
                watched = {"core": core_pid, "facade": pids["facade"], "demo": demo.pid, "floor": floor.pid}
                results: dict[str, Any] = {}
                with httpx.Client(base_url=stack.base_url, timeout=300) as http:
                    # Warm-up: every rendition made once by the demo, pools opened; not measured.
                    for provider, preset in rows:
                        refs = [p[provider] for p in picked]
                        floor.run(provider, preset, refs)
                        _, failure = source_once(http, headers, provider, preset, refs)
                        if failure:
                            failures.append(f"warm-up {provider}:{preset}: {failure}")
                    hwm_after_warmup_kib = status_kib(core_pid, "VmHWM") or 0
                    for provider, preset in rows:
                        name = f"{provider}:{preset}"
                        refs = [p[provider] for p in picked]
                        row: dict[str, Any] = {"herald_s": [], "floor_s": [], "busy_before": [], "rss_peak_kib": []}
                        cpu = {"herald": {k: 0.0 for k in watched}, "floor": {k: 0.0 for k in watched}}
                        phases: list[dict[str, Any]] = []
                        floor_cpu_inproc = 0.0
                        # One new organization per measured call: every call is a first sourcing
                        # (nothing deduplicated), the path a real library takes most.
                        slug = f"bench-{provider.replace('_', '-')}-{preset}"
                        fresh = [
                            {"Authorization": f"Bearer {bootstrap_org(url, f'{slug}-{i}', credits=1000)}"}
                            for i in range(args.reps)
                        ]
                        for rep in range(args.reps):
                            row["busy_before"].append(
                                round(wait_until_quiet(args.wait_quiet), 3) if args.wait_quiet > 0 else None
                            )
                            order = ("herald", "floor") if rep % 2 == 0 else ("floor", "herald")
                            for what in order:
                                before = {k: cpu_seconds(p) for k, p in watched.items()}
                                if what == "herald":
                                    with RssSampler({"core": core_pid}, 0.01) as sampler:
                                        elapsed, failure = source_once(http, fresh[rep], provider, preset, refs)
                                    row["rss_peak_kib"].append(sampler.peak_kib("core"))
                                    row["herald_s"].append(elapsed)
                                    if failure:
                                        failures.append(f"{name} rep {rep}: {failure}")
                                else:
                                    done = floor.run(provider, preset, refs)
                                    row["floor_s"].append(done["wall_s"])
                                    floor_cpu_inproc += done["cpu_s"]
                                    phases.append(done)
                                for k, p in watched.items():
                                    cpu[what][k] += cpu_seconds(p) - before[k]
                            print(
                                f"  {name:<18} rep {rep + 1:>2}: herald {row['herald_s'][-1]:.3f} s"
                                f"  floor {row['floor_s'][-1]:.3f} s  core RSS peak {row['rss_peak_kib'][-1] / 1024:.0f} MiB",
                                flush=True,
                            )
                        results[name] = _row_result(row, cpu, phases, args.reps)
                hwm_end_kib = status_kib(core_pid, "VmHWM") or 0
                logs = stack.logs() if failures else ""
    finally:
        if floor is not None:
            floor.stop()
        if demo is not None:
            demo.terminate()
            try:
                demo.wait(10)
            except subprocess.TimeoutExpired:
                demo.kill()
        shutil.rmtree(work, ignore_errors=True)
    out |= {
        "loadavg_at_end": Path("/proc/loadavg").read_text().split()[:3],
        "photos": picked,
        "rows": results,
        "core_rss": {
            "idle_vmrss_mib": round(rss_idle_kib / 1024, 1),
            "vmhwm_before_sourcing_mib": round(hwm_before_kib / 1024, 1),
            "vmhwm_after_warmup_mib": round(hwm_after_warmup_kib / 1024, 1),
            "vmhwm_end_mib": round(hwm_end_kib / 1024, 1),
            "vmrss_peak_sampled_mib": max(r["rss_peak_sampled_mib"] for r in results.values()),
        },
        "failures": failures,
    }
    if logs:
        print(logs[-3000:], file=sys.stderr)
    return out


def _row_result(
    row: dict[str, Any], cpu: dict[str, dict[str, float]], phases: list[dict[str, Any]], reps: int
) -> dict[str, Any]:
    herald, floor = _summary(row["herald_s"]), _summary(row["floor_s"])
    images = [img for call in phases for img in call["images"]]
    per_call = {
        k: round(sum(img[k] for img in images) / len(phases), 4)
        for k in ("lookup_s", "download_s", "decode_s", "crop_s", "encode_s", "thread_s")
        + ("decode_cpu_s", "crop_cpu_s", "encode_cpu_s")
    }
    return {
        "herald": herald,
        "floor": floor,
        "ratio_median": round(herald["median_s"] / floor["median_s"], 3),
        "ratio_p90": round(herald["p90_s"] / floor["p90_s"], 3),
        "ratio_per_rep_median": round(
            statistics.median(h / f for h, f in zip(row["herald_s"], row["floor_s"], strict=True)), 3
        ),
        "herald_s": [round(v, 4) for v in row["herald_s"]],
        "floor_s": [round(v, 4) for v in row["floor_s"]],
        "busy_before": row["busy_before"],
        "cpu_s_per_call": {what: {k: round(v / reps, 4) for k, v in by.items()} for what, by in cpu.items()},
        "floor_phases_summed_per_call_s": per_call,
        "rendition": {
            "in_size": images[0]["in_size"],
            "decoded_size": images[0]["decoded_size"],
            "out_size": images[0]["out_size"],
            "bytes_mean": round(statistics.mean(img["rendition_bytes"] for img in images)),
            "out_bytes_mean": round(statistics.mean(img["out_bytes"] for img in images)),
        },
        "rss_peak_sampled_mib": round(max(row["rss_peak_kib"]) / 1024, 1),
    }


def print_table(out: dict[str, Any]) -> None:
    print()
    print(
        f"10 photos, originals {min(p['original_bytes'] for p in out['photos']) / 1e6:.1f}-"
        f"{max(p['original_bytes'] for p in out['photos']) / 1e6:.1f} MB, backend {out['args']['backend']}, "
        f"{out['args']['reps']} reps"
    )
    print(
        f"{'row':<18}{'herald med':>11}{'p90':>8}{'floor med':>11}{'p90':>8}{'ratio':>7}{'p90 r':>7}"
        f"{'core CPU':>10}{'floor CPU':>10}{'demo CPU':>10}"
    )
    for name, r in out["rows"].items():
        ch, cf = r["cpu_s_per_call"]["herald"], r["cpu_s_per_call"]["floor"]
        print(
            f"{name:<18}{r['herald']['median_s']:>10.3f}s{r['herald']['p90_s']:>7.3f}s"
            f"{r['floor']['median_s']:>10.3f}s{r['floor']['p90_s']:>7.3f}s{r['ratio_median']:>7.2f}{r['ratio_p90']:>7.2f}"
            f"{ch['core']:>9.3f}s{cf['floor']:>9.3f}s{ch['demo']:>9.3f}s"
        )
    print("(CPU: seconds per call; core = the core process during a sourcing call, floor = the floor process")
    print(
        " during a floor call, demo = the provider during a sourcing call; facade per call: "
        + ", ".join(f"{n} {r['cpu_s_per_call']['herald']['facade']:.3f}s" for n, r in out["rows"].items())
        + ")"
    )
    print("floor phases, summed over the 10 images, per call, in s (wall; they overlap, 4 at a time) and the")
    print("CPU time of the Pillow thread in each:")
    for name, r in out["rows"].items():
        ph, rd = r["floor_phases_summed_per_call_s"], r["rendition"]
        print(
            f"  {name:<18} lookup {ph['lookup_s']:.3f}  download {ph['download_s']:.3f}  decode {ph['decode_s']:.3f}"
            f" (CPU {ph['decode_cpu_s']:.3f})  crop {ph['crop_s']:.3f} (CPU {ph['crop_cpu_s']:.3f})"
            f"  encode {ph['encode_s']:.3f} (CPU {ph['encode_cpu_s']:.3f})"
        )
        print(
            f"  {'':<18} rendition {rd['in_size'][0]}x{rd['in_size'][1]}"
            f" ({rd['bytes_mean'] / 1000:.0f} KB) -> {rd['out_size'][0]}x{rd['out_size'][1]} ({rd['out_bytes_mean'] / 1000:.0f} KB)"
        )
    rss = out["core_rss"]
    print(
        f"core RSS: idle {rss['idle_vmrss_mib']:.0f} MiB, VmHWM before sourcing {rss['vmhwm_before_sourcing_mib']:.0f}, "
        f"after warm-up {rss['vmhwm_after_warmup_mib']:.0f}, at the end {rss['vmhwm_end_mib']:.0f} MiB; "
        f"largest VmRSS sampled during the measured calls {rss['vmrss_peak_sampled_mib']:.0f} MiB"
    )
    worst = max(r["ratio_median"] for r in out["rows"].values())
    peak_mb = rss["vmhwm_end_mib"] * 1024 * 1024 / 1e6
    print(
        f"targets: ratio <= {RATIO_TARGET} ({'met' if worst <= RATIO_TARGET else 'NOT met'}: worst row {worst:.2f}); "
        f"core peak RSS < {RSS_TARGET_MB} MB ({'met' if peak_mb < RSS_TARGET_MB else 'NOT met'}: {peak_mb:.0f} MB)"
    )
    print("(every measured call is made by a new organization: nothing is deduplicated)")
    if out["failures"]:
        print("FAILURES:\n  " + "\n  ".join(out["failures"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.stock_source", description=__doc__.splitlines()[0])
    add_run_options(parser, backend="sqlite")
    parser.add_argument("--reps", type=int, default=10, help="measured sourcing calls (and floor calls) per row")
    parser.add_argument("--rows", nargs="+", default=DEFAULT_ROWS, help="provider:preset, e.g. stock_a:square")
    parser.set_defaults(wait_quiet=10.0)  # before each rep
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "stock_source")
    if out is None:
        return 130
    return 1 if out["failures"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
