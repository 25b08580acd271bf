"""Health and readiness (issue 13): the core's standard gRPC health service follows its database,
the facade's /readyz follows the core, a call made while the core is starting waits for it
instead of failing, a call made while the database is gone is refused as 503 (not 500), and a
core refuses to share its port with a core of another database."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from core.health import database_service_name
from harness.stack import (
    ROOT,
    Stack,
    bootstrap_org,
    database,
    free_port,
    stack_env,
    stop_processes,
    wait_for_grpc,
    wait_for_http,
)
from tests.tcp_proxy import TcpProxy

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _until(check, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def _health(target: str, service: str = "") -> int | None:
    with grpc.insecure_channel(target) as channel:
        try:
            return (
                health_pb2_grpc.HealthStub(channel)
                .Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
                .status
            )
        except grpc.RpcError:
            return None


def test_readiness_follows_the_core_and_its_database(tmp_path: Path) -> None:
    with database("postgresql", tmp_path) as url:
        key = bootstrap_org(url, "ready")
        pg = urlsplit(url.replace("postgresql+psycopg", "postgresql"))
        with TcpProxy((pg.hostname, pg.port or 5432)) as proxy:
            proxied = url.replace(f"{pg.hostname}:{pg.port}", f"127.0.0.1:{proxy.port}")
            core_target = f"127.0.0.1:{free_port()}"
            env = stack_env(proxied, tmp_path, HERALD_CORE_LISTEN=core_target, HERALD_CORE_TARGET=core_target)
            env["HERALD_HEALTH_INTERVAL_SECONDS"] = "0.2"
            env["HERALD_HEALTH_TIMEOUT_SECONDS"] = "1"
            stack = Stack(proxied, tmp_path, core_target, "", env)
            impatient, patient = free_port(), free_port()
            try:
                # Two facades and no core yet: one waits 1 s for a core, the other 30 s.
                for port, wait in ((impatient, "1"), (patient, "30")):
                    facade = stack.spawn(
                        "facades",
                        env={"HERALD_FACADE_LISTEN": f"127.0.0.1:{port}", "HERALD_CORE_WAIT_SECONDS": wait},
                        log_name=f"facade-{port}",
                    )
                    wait_for_http(f"http://127.0.0.1:{port}/healthz", facade)  # alive, not ready
                headers = {"Authorization": f"Bearer {key}"}
                not_ready = httpx.get(f"http://127.0.0.1:{impatient}/readyz", timeout=10)
                assert not_ready.status_code == 503
                assert not_ready.json()["status"] == "unavailable"
                assert not_ready.json()["failed"] == "core"
                assert not_ready.headers["retry-after"] == "1"

                started = time.monotonic()
                down = httpx.get(f"http://127.0.0.1:{impatient}/v1/profiles", headers=headers, timeout=10)
                waited = time.monotonic() - started
                assert down.status_code == 503 and down.json()["code"] == "SERVICE_UNAVAILABLE"
                assert 0.9 <= waited < 5, waited  # it waited its second for a core, then gave up

                # A request sent before the core starts is answered once it is up, not refused.
                answers: list[httpx.Response] = []
                early = threading.Thread(
                    target=lambda: answers.append(
                        httpx.get(f"http://127.0.0.1:{patient}/v1/profiles", headers=headers, timeout=60)
                    )
                )
                early.start()
                time.sleep(0.3)
                core = stack.spawn("core", "core", log_name="core")
                early.join(timeout=60)
                assert answers and answers[0].status_code == 200, answers and answers[0].text
                wait_for_grpc(core_target, core)

                ready = httpx.get(f"http://127.0.0.1:{impatient}/readyz", timeout=10)
                assert (ready.status_code, ready.json()) == (200, {"status": "ready"})

                # The database goes away: the core says NOT_SERVING, the facade is not ready.
                proxy.cut()
                assert _until(lambda: _health(core_target) == NOT_SERVING), "health still SERVING"
                gone = httpx.get(f"http://127.0.0.1:{impatient}/readyz", timeout=10)
                assert gone.status_code == 503
                assert (gone.json()["status"], gone.json()["failed"]) == ("unavailable", "database")
                assert _health(core_target, database_service_name(proxied)) == SERVING  # the port's identity stays
                # A call meanwhile is refused as "not now" (503, Retry-After), never as a 500:
                # clients, and Envoy for reads, may repeat it on another core.
                refused = httpx.get(f"http://127.0.0.1:{impatient}/v1/profiles", headers=headers, timeout=30)
                assert refused.status_code == 503, refused.text
                assert refused.json()["code"] == "SERVICE_UNAVAILABLE"
                assert refused.headers["retry-after"] == "1"

                proxy.restore()
                assert _until(lambda: _health(core_target) == SERVING), "health did not come back"
                assert httpx.get(f"http://127.0.0.1:{impatient}/readyz", timeout=10).status_code == 200
                assert (
                    httpx.get(f"http://127.0.0.1:{impatient}/v1/profiles", headers=headers, timeout=10).status_code
                    == 200
                )
            finally:
                stop_processes(stack.processes)


@pytest.mark.parametrize("other", ["another database", "the same database"])
def test_a_core_shares_its_port_only_with_a_core_of_its_database(tmp_path: Path, other: str) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    with database("sqlite", tmp_path / "a") as first_url, database("sqlite", tmp_path / "b") as second_url:
        target = f"127.0.0.1:{free_port()}"
        env = stack_env(first_url, tmp_path, HERALD_CORE_LISTEN=target)
        stack = Stack(first_url, tmp_path, target, "", env)
        try:
            first = stack.spawn("core", "core", log_name="first")
            wait_for_grpc(target, first)
            if other == "another database":
                refused = subprocess.run(
                    [sys.executable, "-m", "core", "core"],
                    env={**env, "HERALD_DATABASE_URL": second_url},
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                assert refused.returncode == 1
                assert refused.stderr.strip().splitlines() == [
                    f"core: cannot listen on {target}: a core of another database (or another gRPC server) serves there"
                ]
            else:
                second = stack.spawn("core", "core", log_name="second")
                time.sleep(2)  # past its probe and its bind
                assert second.poll() is None, stack.logs()
                first.terminate()
                first.wait(timeout=10)
                # The second core now answers the shared address alone.
                assert _until(lambda: _health(target) == SERVING), stack.logs()
        finally:
            stop_processes(stack.processes)
