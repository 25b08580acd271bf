"""`herald serve`: every process of one machine under one supervisor (docs/operations.md).

One core per CPU (sharing the port), the storage server, the worker, the demo stock provider
when it is on, and the facade, started once every core listens. A process that exits is started
again after a back-off (0.5 s, doubling, at most 15 s), and the restart is logged, as a process
supervisor does: one crashed worker must not take the API down with it. Everything stops on
SIGINT/SIGTERM (exit 0), or when one process exits CRASH_LIMIT times within CRASH_WINDOW seconds
(exit 1): a crash loop is a misconfiguration that restarting cannot fix.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from core.keyfiles import KeyFileError
from core.platform_accounts.vault import TokenVault
from core.settings import CoreSettings
from core.storage.signing import signing_key

CRASH_LIMIT = 5  # exits of one process within CRASH_WINDOW that stop everything
CRASH_WINDOW = 60.0  # seconds
BACKOFF_FIRST = 0.5  # seconds before the first restart; doubles with each recent exit
BACKOFF_MAX = 15.0
TICK = 0.2
STOP_GRACE = 10.0  # seconds the processes get to stop after SIGTERM (the core drains for 5)
LISTEN_WAIT = 60.0  # the facade starts after this even if a core never listens


def _say(line: str) -> None:
    print(f"herald: {line}", file=sys.stderr, flush=True)


@dataclass
class Child:
    """One supervised process: its command, the process running it (None before the first start),
    when it exited recently, and when it is due to start again."""

    name: str
    command: list[str]
    env: dict[str, str]
    proc: subprocess.Popen | None = None
    exits: deque[float] = field(default_factory=deque)
    restart_at: float | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(self.command, env=self.env)
        self.restart_at = None

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def _describe(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def serve(settings: CoreSettings) -> int:
    """Supervises the machine's processes until a signal (0) or a crash loop (1). An address
    already in use is one line and exit 1, before anything starts."""
    listening = {
        "HERALD_FACADE_LISTEN": settings.facade_listen,
        "HERALD_CORE_LISTEN": settings.core_listen,
        "HERALD_STORAGE_LISTEN": settings.storage_listen,
    }
    if settings.stock_demo:
        listening["HERALD_STOCK_DEMO_LISTEN"] = settings.stock_demo_listen
    if taken := _taken(listening):
        _say(f"cannot start: already in use: {', '.join(taken)}")
        return 1
    try:
        # The key files every process reads (made here if absent): a file others may read is a
        # misconfiguration one line can say, not a crash loop of every child.
        TokenVault.from_settings(settings)
        if settings.storage_backend == "local":
            signing_key(settings)
    except KeyFileError as error:
        _say(f"cannot start: {error}")
        return 1
    stopping = False

    def _stop(signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    # Before the first child starts: a signal at any moment stops whatever was started.
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    env = _metrics_dir(settings)
    herald = [sys.executable, "-m", "core"]
    count = settings.core_process_count
    cores = [Child("core" if count == 1 else f"core {i + 1}", [*herald, "core"], env) for i in range(count)]
    others = [Child("storage", [*herald, "storage"], env), Child("worker", [*herald, "worker"], env)]
    if settings.stock_demo:
        others.append(Child("stock-demo", [*herald, "stock-demo"], env))
    facade = Child("facade", [sys.executable, "-m", "facades"], env)
    children = [*cores, *others]
    for child in children:
        child.start()
    # The kernel places each connection on one of the cores sharing the port when it opens, and
    # the facade opens its channels once: started before every core listens, it could put them
    # all on the first.
    facade_due = time.monotonic() + LISTEN_WAIT
    code, announced = 0, False
    while not stopping:
        now = time.monotonic()
        if facade.proc is None and (now >= facade_due or _all_listen(cores, settings.core_listen)):
            facade.start()
            children.append(facade)
        if (looping := _supervise(children, now)) is not None:
            _say(
                f"{looping.name} exited {CRASH_LIMIT} times within {CRASH_WINDOW:g} s "
                f"({_describe(looping.proc.returncode)}); stopping everything"
            )
            code = 1
            break
        if not announced and facade.running() and _stack_ready(settings):
            _say(
                f"ready: facade {settings.base_url} · core {settings.core_listen} "
                f"({count} processes) · storage {settings.storage_listen}"
            )
            announced = True
        time.sleep(TICK)
    _stop_all(children)
    return code


def _supervise(children: list[Child], now: float) -> Child | None:
    """Starts again the children whose back-off is over, and schedules a restart for each one
    that exited. Returns a child in a crash loop (nothing else is done then)."""
    for child in children:
        if child.restart_at is not None:
            if now >= child.restart_at:
                child.start()
                _say(f"{child.name} started again (pid {child.proc.pid})")
            continue
        returncode = child.proc.poll()
        if returncode is None:
            continue
        child.exits.append(now)
        _forget_gauges(child)
        while child.exits and child.exits[0] <= now - CRASH_WINDOW:
            child.exits.popleft()
        if len(child.exits) >= CRASH_LIMIT:
            return child
        delay = min(BACKOFF_FIRST * 2 ** (len(child.exits) - 1), BACKOFF_MAX)
        _say(f"{child.name} (pid {child.proc.pid}) exited ({_describe(returncode)}); starting it again in {delay:g} s")
        child.restart_at = now + delay
    return None


def _forget_gauges(child: Child) -> None:
    """Drops the live gauges of a process that is gone from the shared metrics directory (its
    counters stay: they still add to the sums)."""
    from prometheus_client import multiprocess

    directory = child.env.get("PROMETHEUS_MULTIPROC_DIR")
    if directory and child.proc is not None:
        multiprocess.mark_process_dead(child.proc.pid, directory)


def _stop_all(children: list[Child]) -> None:
    """SIGTERM to every running child, then waits for each (SIGKILL after STOP_GRACE)."""
    for child in children:
        if child.running():
            child.proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    for child in children:
        if child.proc is None:
            continue
        try:
            child.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.proc.kill()
            child.proc.wait()


def _all_listen(cores: list[Child], listen: str) -> bool:
    """Every core process listens on `listen`'s port (read from /proc; True where there is none)."""
    from core import procfs

    if not procfs.available():
        return True
    port = int(listen.rpartition(":")[2])
    return all(c.running() and procfs.listens(c.proc.pid, port) for c in cores)


def _taken(addresses: dict[str, str]) -> list[str]:
    """Which of these host:port addresses another process listens on (a bind test: an address
    in TIME_WAIT is free; one held by any listener, with SO_REUSEPORT or not, is not)."""
    taken = []
    for variable, address in addresses.items():
        host, _, port = address.rpartition(":")
        host = host.strip("[]") or "0.0.0.0"
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, int(port)))
            except OSError:
                taken.append(f"{address} ({variable})")
            except ValueError:
                taken.append(f"{address} ({variable}: not host:port)")
    return taken


def _metrics_dir(settings: CoreSettings) -> dict[str, str]:
    """The environment `herald serve` gives its processes: one PROMETHEUS_MULTIPROC_DIR for all
    (the operator's, else <data dir>/metrics), emptied first (files of processes from an earlier
    run would add to the sums)."""
    directory = Path(settings.metrics_dir or settings.data_dir / "metrics")
    if directory.exists():
        for stale in directory.glob("*.db"):
            stale.unlink()
    directory.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)}


def _stack_ready(settings: CoreSettings) -> bool:
    """The whole stack answers: the facade is ready (a core answers, its database too), and the
    storage server (and the demo stock provider, when started) are up."""
    from core.health import probe_target  # grpc: not for every admin command

    checks = [
        f"http://{probe_target(settings.facade_listen)}/readyz",
        f"http://{probe_target(settings.storage_listen)}/healthz",
    ]
    try:
        if not all(httpx.get(url, timeout=1).status_code == 200 for url in checks):
            return False
    except httpx.HTTPError:
        return False
    if not settings.stock_demo:
        return True
    host, _, port = probe_target(settings.stock_demo_listen).rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=1).close()
    except OSError:
        return False
    return True
