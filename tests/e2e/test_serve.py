"""`make run`'s path: `herald migrate` then `herald serve` on the embedded defaults (SQLite under
the data directory), every process up, a real request served, and a clean stop on SIGTERM; a
process that dies is started again, and one that keeps dying stops everything (core/serve.py)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from harness.stack import ROOT, connections_accepted, free_port

HERALD = [sys.executable, "-m", "core"]


def _herald(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`herald <args>` run to its end; it must succeed."""
    done = subprocess.run([*HERALD, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.parametrize("core_processes", ["2"])
def test_serve_starts_every_process_and_stops_cleanly(tmp_path, core_processes: str) -> None:
    env, http_port, storage_port = _serve_env(tmp_path)
    env.update(HERALD_CORE_PROCESSES=core_processes, HERALD_LOG_LEVEL="WARNING")
    _herald(env, "migrate")
    assert (tmp_path / "data" / "herald.db").exists()
    boot = _herald(
        env, "admin", "bootstrap", "--email", "me@example.com", "--password", "a long password", "--org", "solo"
    )
    key = json.loads(boot.stdout)["api_key"]

    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115
    serve = subprocess.Popen([*HERALD, "serve"], env=env, cwd=ROOT, stdout=log, stderr=log, start_new_session=True)
    try:
        ready = _ready_line(tmp_path / "serve.log", serve)
        assert ready == (
            f"herald: ready: facade http://127.0.0.1:{http_port} · core {env['HERALD_CORE_LISTEN']} "
            f"({core_processes} processes) · storage 127.0.0.1:{storage_port}"
        )
        children = _children(serve.pid)
        # cores + facade + storage + worker + the demo stock provider
        assert len(children) == int(core_processes) + 4, children
        # Ready means ready: the first request is served, with no retry.
        assert httpx.get(f"http://127.0.0.1:{http_port}/readyz").json() == {"status": "ready"}
        response = httpx.get(f"http://127.0.0.1:{http_port}/v1/profiles", headers={"Authorization": f"Bearer {key}"})
        assert response.status_code == 200, response.text
        # serve gives its processes one metrics directory: the facade's /metrics sums them all.
        metrics = httpx.get(f"http://127.0.0.1:{http_port}/metrics").text
        assert (
            'grpc_server_handled_total{grpc_code="OK",grpc_method="ListProfiles",'
            'grpc_service="herald.profiles.v1.ProfileService",grpc_type="unary"} 1.0'
        ) in metrics
        assert (tmp_path / "data" / "metrics").is_dir()
        # A new organization starts with 0 credits: below the default threshold of 50.
        assert response.json() == {"profiles": [], "warning": {"code": "low_credits", "remaining": 0}}
        assert response.headers["x-credits-remaining"] == "0"
        # serve starts the facade once every core listens, so the kernel spreads the facade's
        # channels (16 connections) over all of them: each core holds some (all on one: 2^-15).
        cores = [pid for pid in children if _cmdline(pid)[-2:] == ["core", "core"]]
        assert len(cores) == int(core_processes)
        core_port = int(env["HERALD_CORE_LISTEN"].rsplit(":", 1)[1])
        accepted = [connections_accepted(pid, core_port) for pid in cores]
        assert sum(accepted) >= 16 and min(accepted) >= 1, f"connections per core: {accepted}"
        # Stock photos work with no keys: the providers point at the demo provider serve started.
        # The demo provider is part of what "ready" waited for.
        found = httpx.post(
            f"http://127.0.0.1:{http_port}/v1/media/stock/search",
            json={"query": "coffee", "provider": "stock_b"},
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )
        assert found.status_code == 200, found.text
        assert found.json()["results"] and found.json()["results"][0]["attribution"]["source"] == "Unsplash"
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=20) == 0
        for pid in children:
            assert not _alive(pid), f"child {pid} still running"
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
        log.close()


def _serve_env(tmp_path: Path) -> tuple[dict[str, str], int, int]:
    """`herald serve`'s environment on free loopback ports: (env, facade port, storage port)."""
    http_port, core_port, storage_port, stock_port = free_port(), free_port(), free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_")}
    env.update(
        HERALD_DATA_DIR=str(tmp_path / "data"),
        HERALD_FACADE_LISTEN=f"127.0.0.1:{http_port}",
        HERALD_BASE_URL=f"http://127.0.0.1:{http_port}",
        HERALD_CORE_LISTEN=f"127.0.0.1:{core_port}",
        HERALD_CORE_TARGET=f"127.0.0.1:{core_port}",
        HERALD_STORAGE_LISTEN=f"127.0.0.1:{storage_port}",
        HERALD_STOCK_DEMO_LISTEN=f"127.0.0.1:{stock_port}",
    )
    return env, http_port, storage_port


def _ready_line(log: Path, serve: subprocess.Popen, timeout: float = 60) -> str:
    """The one line `herald serve` prints once the whole stack answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert serve.poll() is None, log.read_text()
        lines = [line for line in log.read_text().splitlines() if line.startswith("herald: ready")]
        if lines:
            assert len(lines) == 1, lines
            return lines[0]
        time.sleep(0.1)
    raise TimeoutError(log.read_text())


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_text().split("\0")[:-1]


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_an_address_in_use_is_one_line_and_nothing_starts(tmp_path) -> None:
    env, http_port, _ = _serve_env(tmp_path)
    with socket.socket() as squatter:  # another program already serves on the facade's port
        squatter.bind(("127.0.0.1", http_port))
        squatter.listen()
        done = subprocess.run([*HERALD, "serve"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines == [f"herald: cannot start: already in use: 127.0.0.1:{http_port} (HERALD_FACADE_LISTEN)"], lines
    assert not (tmp_path / "data").exists()  # nothing started, nothing written


def _prepare(env: dict[str, str]) -> str:
    """Migrates the database and bootstraps an organization with credits and a sandbox profile;
    returns its API key."""
    _herald(env, "migrate")
    boot = _herald(
        env,
        "admin",
        "bootstrap",
        "--email",
        "me@example.com",
        "--password",
        "a long password",
        "--org",
        "solo",
        "--credits",
        "10",
    )
    _herald(env, "admin", "add-profile", "--org", "solo", "--slug", "solo-x", "--platform", "x")
    return json.loads(boot.stdout)["api_key"]


def _published(base: str, key: str, content: str, within: float = 30) -> None:
    """Posts to the sandbox profile and waits until a worker published it."""
    headers = {"Authorization": f"Bearer {key}"}
    created = httpx.post(f"{base}/v1/posts", json={"content": content, "profiles": ["solo-x"]}, headers=headers)
    assert created.status_code == 201, created.text
    post_id = created.json()["posts"][0]["id"]
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        status = httpx.get(f"{base}/v1/posts/{post_id}", headers=headers).json()["status"]
        if status == "published":
            return
        assert status in ("queued", "publishing"), status
        time.sleep(0.2)
    raise TimeoutError(f"{post_id} was not published within {within} s")


def _role(pid: int) -> str:
    return " ".join(_cmdline(pid)[-2:])


def test_a_killed_worker_is_started_again_and_the_service_keeps_answering(tmp_path) -> None:
    env, http_port, _ = _serve_env(tmp_path)
    env.update(HERALD_CORE_PROCESSES="1", HERALD_LOG_LEVEL="WARNING", HERALD_STOCK_DEMO="false")
    key = _prepare(env)
    base, headers = f"http://127.0.0.1:{http_port}", {"Authorization": f"Bearer {key}"}
    log_path = tmp_path / "serve.log"
    log = open(log_path, "wb")  # noqa: SIM115
    serve = subprocess.Popen([*HERALD, "serve"], env=env, cwd=ROOT, stdout=log, stderr=log, start_new_session=True)
    try:
        _ready_line(log_path, serve)
        _published(base, key, "before the kill")
        (worker,) = [pid for pid in _children(serve.pid) if _role(pid) == "core worker"]
        others = sorted(pid for pid in _children(serve.pid) if pid != worker)
        os.kill(worker, signal.SIGKILL)
        # The service keeps answering while the worker is down and while it starts again.
        deadline, restarted = time.monotonic() + 30, []
        while not restarted:
            assert time.monotonic() < deadline, log_path.read_text()
            assert serve.poll() is None, log_path.read_text()
            assert httpx.get(f"{base}/readyz").status_code == 200
            assert httpx.get(f"{base}/v1/profiles", headers=headers).status_code == 200
            restarted = [pid for pid in _children(serve.pid) if _role(pid) == "core worker"]
            time.sleep(0.1)
        assert restarted != [worker]
        assert sorted(pid for pid in _children(serve.pid) if pid not in restarted) == others  # nothing else moved
        lines = [line for line in log_path.read_text().splitlines() if line.startswith("herald: worker")]
        assert lines[:2] == [
            f"herald: worker (pid {worker}) exited (killed by SIGKILL); starting it again in 0.5 s",
            f"herald: worker started again (pid {restarted[0]})",
        ], lines
        _published(base, key, "after the kill")  # the new worker publishes
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=20) == 0
        with pytest.raises(ProcessLookupError):  # nothing of serve's is left running
            os.killpg(serve.pid, 0)
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
        log.close()


def test_a_process_that_keeps_crashing_stops_serve(tmp_path) -> None:
    """A misconfiguration only the facade reads (HERALD_CORE_CHANNELS must be 1-64): it exits at
    every start, is started again with a growing back-off, and its fifth exit within a minute
    stops everything with exit 1 and one line saying why."""
    env, _, _ = _serve_env(tmp_path)
    env.update(HERALD_CORE_PROCESSES="1", HERALD_LOG_LEVEL="WARNING", HERALD_STOCK_DEMO="false")
    env["HERALD_CORE_CHANNELS"] = "0"
    _prepare(env)
    started = time.monotonic()
    done = subprocess.run(
        [*HERALD, "serve"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        start_new_session=True,
    )
    assert done.returncode == 1, done.stderr[-4000:]
    assert time.monotonic() - started < 90
    lines = [line for line in done.stderr.splitlines() if line.startswith("herald: ")]
    assert not any(line.startswith("herald: ready") for line in lines)
    assert lines[-1] == "herald: facade exited 5 times within 60 s (exit code 1); stopping everything", lines
    delays = [line.rsplit(" in ", 1)[1] for line in lines if line.startswith("herald: facade (pid")]
    assert delays == ["0.5 s", "1 s", "2 s", "4 s"], lines
    assert not [line for line in lines if line.startswith(("herald: core", "herald: worker", "herald: storage"))]
