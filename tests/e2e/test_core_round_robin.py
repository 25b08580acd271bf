"""A facade that names several cores (HERALD_CORE_TARGET=`host:port,host:port`) spreads its calls
over them itself, by gRPC's client-side round robin with health checks, no proxy between
(docs/operations.md): both cores serve calls, and when one dies the other serves them all."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
from prometheus_client import CollectorRegistry, generate_latest, multiprocess
from prometheus_client.parser import text_string_to_metric_families

from harness.stack import (
    Stack,
    bootstrap_org,
    database,
    free_port,
    stack_env,
    stop_processes,
    wait_for_grpc,
    wait_for_http,
)


def _list_profiles_calls(directory: Path) -> float:
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(directory))
    return sum(
        s.value
        for family in text_string_to_metric_families(generate_latest(registry).decode())
        for s in family.samples
        if s.name == "grpc_server_handled_total" and s.labels.get("grpc_method") == "ListProfiles"
    )


def test_calls_spread_over_the_named_cores_and_survive_one(tmp_path: Path) -> None:
    a, b, http_port = free_port(), free_port(), free_port()
    with database("postgresql", tmp_path) as url:
        key = bootstrap_org(url, "spread")
        env = stack_env(url, tmp_path, HERALD_CORE_TARGET=f"127.0.0.1:{a},127.0.0.1:{b}", HERALD_CORE_WAIT_SECONDS="3")
        stack = Stack(url, tmp_path, "", f"http://127.0.0.1:{http_port}", env)
        dirs = {port: tmp_path / f"metrics-{port}" for port in (a, b)}
        try:
            cores = {}
            for port, directory in dirs.items():
                directory.mkdir()
                cores[port] = stack.spawn(
                    "core",
                    "core",
                    env={"HERALD_CORE_LISTEN": f"127.0.0.1:{port}", "PROMETHEUS_MULTIPROC_DIR": str(directory)},
                    log_name=f"core-{port}",
                )
                wait_for_grpc(f"127.0.0.1:{port}", cores[port])
            facade = stack.spawn("facades", env={"HERALD_FACADE_LISTEN": f"127.0.0.1:{http_port}"}, log_name="facade")
            wait_for_http(f"{stack.base_url}/readyz", facade)
            with httpx.Client(base_url=stack.base_url, timeout=30) as http:
                auth = {"Authorization": f"Bearer {key}"}
                for _ in range(40):
                    assert http.get("/v1/profiles", headers=auth).status_code == 200
                served = {port: _list_profiles_calls(d) for port, d in dirs.items()}
                assert sum(served.values()) == 40
                assert all(n >= 10 for n in served.values()), served  # both took their share

                cores[a].send_signal(signal.SIGKILL)
                cores[a].wait(timeout=10)
                time.sleep(1)  # the channels see it gone
                answers = [http.get("/v1/profiles", headers=auth).status_code for _ in range(20)]
                assert answers == [200] * 20
                assert _list_profiles_calls(dirs[b]) == served[b] + 20  # all on the survivor
        finally:
            stop_processes(stack.processes)
