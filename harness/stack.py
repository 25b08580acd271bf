"""Test harness: real databases (SQLite file, PostgreSQL) and the real processes on loopback.

Used by tests/conftest.py and by bench/: one way to start Herald for measurement and for tests.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from core import procfs
from harness.ports import free_port

__all__ = ["free_port"]  # re-exported: tests and benches import it from here

PG_ADMIN_DSN = os.environ.get("HERALD_TEST_PG_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")
ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def database(backend: str, workdir: Path) -> Iterator[str]:
    """Yields the SQLAlchemy URL of a new, migrated, empty database of the given backend."""
    from core.db.migrate import upgrade

    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{workdir / 'herald.db'}"
        upgrade(url)
        yield url
        return
    import psycopg

    name = f"herald_t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    admin = psycopg.conninfo.conninfo_to_dict(PG_ADMIN_DSN)
    url = f"postgresql+psycopg://{admin.get('user', 'postgres')}@{admin.get('host', '127.0.0.1')}:{admin.get('port', 5432)}/{name}"
    try:
        upgrade(url)
        yield url
    finally:
        with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class Stack:
    """The core and the facade running as real processes against one database."""

    database_url: str
    workdir: Path
    core_target: str
    base_url: str
    env: dict[str, str]
    processes: list[subprocess.Popen] = field(default_factory=list)
    storage_url: str = ""

    def spawn(self, *args: str, env: dict[str, str] | None = None, log_name: str) -> subprocess.Popen:
        log = open(self.workdir / f"{log_name}.log", "ab")  # noqa: SIM115 - owned by the process
        proc = subprocess.Popen(
            [sys.executable, "-m", *args], env={**self.env, **(env or {})}, stdout=log, stderr=log, cwd=ROOT
        )
        self.processes.append(proc)
        return proc

    def start_worker(self, name: str = "", **env: str) -> subprocess.Popen:
        """A worker (`herald worker`) with `env` on top of the stack's settings, returned once its
        job loop runs (its log, of its own, says "running jobs": it logs at INFO)."""
        name = name or f"worker-{uuid.uuid4().hex[:8]}"
        proc = self.spawn("core", "worker", log_name=name, env={**env, "HERALD_LOG_LEVEL": "INFO"})
        log = self.workdir / f"{name}.log"
        deadline = time.monotonic() + 60
        while "running jobs" not in (log.read_text(errors="replace") if log.exists() else ""):
            assert proc.poll() is None and time.monotonic() < deadline, self.logs()
            time.sleep(0.05)
        return proc

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in self.workdir.glob("*.log"))


def stack_env(database_url: str, workdir: Path, **extra: str) -> dict[str, str]:
    # Without PYTHONDONTWRITEBYTECODE: each process reuses the compiled modules (Makefile).
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERALD_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        {
            "HERALD_DATABASE_URL": database_url,
            "HERALD_DATA_DIR": str(workdir / "data"),
            "HERALD_LOG_LEVEL": "WARNING",
            # No stack here runs the demo stock provider: a test that sources photos starts its
            # own (core/stock/demo.py) and points the providers at it.
            "HERALD_STOCK_DEMO": "false",
            # Webhook retries in tenths of seconds, for every worker of the stack: any of them may
            # claim a delivery (a module's own worker may be alive while another module runs).
            "HERALD_WEBHOOK_RETRY_SCHEDULE": "[0.3, 0.3, 0.3]",
            # Tests and benches drive one key far past any budget: limits are off unless a test
            # sets them (tests/e2e/test_rate_limits.py).
            "HERALD_RATE_LIMIT_API_KEY": "off",
            "HERALD_RATE_LIMIT_OAUTH_CLIENT": "off",
            # Every test signs up and in from 127.0.0.1: the per-address and per-email budgets
            # are off too unless a test sets them (tests/e2e/test_sign_up_limits.py).
            "HERALD_RATE_LIMIT_SIGN_IN_ADDRESS": "off",
            "HERALD_RATE_LIMIT_SIGN_IN_ACCOUNT": "off",
            "HERALD_RATE_LIMIT_SIGN_UP_ADDRESS": "off",
            # Every test registers clients and fetches metadata documents from 127.0.0.1
            # (tests/facades/test_oauth_limits.py sets these).
            "HERALD_RATE_LIMIT_REGISTER_ADDRESS": "off",
            "HERALD_RATE_LIMIT_CLIENT_METADATA_ADDRESS": "off",
            **extra,
        }
    )
    return env


def wait_for_http(url: str, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before {url} answered")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise TimeoutError(url)


def wait_for_grpc(target: str, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"core exited with {proc.returncode}")
            try:
                if (
                    stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status
                    == health_pb2.HealthCheckResponse.SERVING
                ):
                    return
            except grpc.RpcError:
                time.sleep(0.05)
    raise TimeoutError(target)


def wait_for_listening(proc: subprocess.Popen, port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not procfs.listens(proc.pid, port):
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"pid {proc.pid} does not listen on {port}")
        time.sleep(0.05)


# What a process's log says when the port it was given was taken between free_port() picking it
# and the process binding it (another test's process, or an outgoing connection's local port).
PORT_TAKEN = ("cannot listen on", "address already in use", "eaddrinuse")
START_ATTEMPTS = 3


@contextmanager
def running_stack(database_url: str, workdir: Path, *, core_processes: int = 1, **extra_env: str) -> Iterator[Stack]:
    """The core(s), the facade and the embedded storage server, on free loopback ports. A port
    taken before its process bound it (free_port's race, likelier the more test workers share
    the machine) starts the stack again on new ports, up to START_ATTEMPTS times; any other
    failure to start is raised with the processes' logs."""
    for attempt in range(1, START_ATTEMPTS + 1):
        stack = _stack_on_free_ports(database_url, workdir, **extra_env)
        try:
            _start(stack, core_processes)
        except (RuntimeError, TimeoutError) as error:
            stop_processes(stack.processes)
            logs = stack.logs()
            for name in [*(f"core{i}" for i in range(core_processes)), "storage", "facade"]:
                (workdir / f"{name}.log").unlink(missing_ok=True)  # the next attempt's start clean
            if attempt < START_ATTEMPTS and any(words in logs.lower() for words in PORT_TAKEN):
                continue
            raise RuntimeError(f"the stack did not start: {error}\n{logs}") from error
        except BaseException:
            stop_processes(stack.processes)
            raise
        break
    try:
        yield stack
    finally:
        stop_processes(stack.processes)


def _stack_on_free_ports(database_url: str, workdir: Path, **extra_env: str) -> Stack:
    core_port, http_port, storage_port = free_port(), free_port(), free_port()
    core_target = f"127.0.0.1:{core_port}"
    base_url = f"http://127.0.0.1:{http_port}"
    env = stack_env(
        database_url,
        workdir,
        HERALD_CORE_LISTEN=core_target,
        HERALD_CORE_TARGET=core_target,
        HERALD_FACADE_LISTEN=f"127.0.0.1:{http_port}",
        HERALD_BASE_URL=base_url,
        HERALD_STORAGE_LISTEN=f"127.0.0.1:{storage_port}",
        HERALD_STORAGE_PUBLIC_URL=f"http://127.0.0.1:{storage_port}",
        **extra_env,
    )
    stack = Stack(database_url, workdir, core_target, base_url, env)
    stack.storage_url = f"http://127.0.0.1:{storage_port}"
    return stack


def _start(stack: Stack, core_processes: int) -> None:
    # All at once: the facade waits for a core by itself (its calls wait HERALD_CORE_WAIT_SECONDS
    # for a connection, and /readyz answers 503 until a core and its database answer).
    cores = [stack.spawn("core", "core", log_name=f"core{i}") for i in range(core_processes)]
    storage = stack.spawn("core", "storage", log_name="storage")
    core_port = int(stack.core_target.rpartition(":")[2])
    if core_processes > 1:
        # Several: the facade starts once every one listens, else it may connect all its
        # channels to the first (they move only when the core closes them for their age).
        for core in cores:
            wait_for_listening(core, core_port)
    facade = stack.spawn("facades", log_name="facade")
    for core in cores:
        wait_for_grpc(stack.core_target, core)
    wait_for_http(f"{stack.base_url}/readyz", facade)  # a core answers it, its database too
    wait_for_http(f"{stack.storage_url}/healthz", storage)


@contextmanager
def stack_on_own_database(backend: str, workdir: Path, **extra_env: str) -> Iterator[Stack]:
    """`running_stack` on a database of its own, made under `workdir` (workers that share a job
    queue must all run the settings under test, so they get a database no other stack uses)."""
    with database(backend, workdir) as url, running_stack(url, workdir, **extra_env) as stack:
        yield stack


def stop_processes(processes: list[subprocess.Popen]) -> None:
    """SIGTERM to those still running, then waits for each (SIGKILL after 10 s)."""
    for proc in processes:
        if proc.poll() is None:
            proc.terminate()
    for proc in processes:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def bootstrap_org(database_url: str, org: str, *, email: str | None = None, credits: int = 100) -> str:
    """Creates a user and an active organization with the admin code itself; returns an API key.
    For synchronous tests and benches (it runs its own event loop)."""
    import asyncio

    from sqlalchemy.ext.asyncio import create_async_engine

    from core import admin

    async def run() -> str:
        engine = create_async_engine(database_url)
        try:
            out = await admin.bootstrap(
                engine,
                email=email or f"{org}@example.com",
                password="a long password",
                org=org,
                credits_=credits,
                plan="active",
            )
        finally:
            await engine.dispose()
        return out["api_key"]

    return asyncio.run(run())


def connections_accepted(pid: int, port: int) -> int:
    """How many established TCP connections process `pid` holds on its local `port`: for a core
    behind a shared port (SO_REUSEPORT), the connections the kernel gave that process."""
    sockets = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                sockets.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            # sl, local address (hex ip:hex port), remote address, state (01 established), ..., inode.
            fields = row.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01" and fields[9] in sockets:
                count += 1
    return count


def cpu_ticks(pid: int) -> int:
    """User + system CPU time process `pid` has used, in clock ticks (os.sysconf("SC_CLK_TCK") a second)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


async def get_in_closed_loop(base_url: str, path: str, headers: dict[str, str], requests: int, in_flight: int) -> None:
    """`requests` GETs of `path`, `in_flight` at a time; each must answer 200."""
    import asyncio

    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        left = iter(range(requests))

        async def worker() -> None:
            for _ in left:
                response = await http.get(path, headers=headers)
                assert response.status_code == 200, response.text

        await asyncio.gather(*(worker() for _ in range(in_flight)))
