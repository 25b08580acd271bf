"""What the benches read from /proc while they measure: the CPU time and memory of processes,
how busy the whole machine is, and the kernel's counters they report beside their figures.

Every bench runs its load, the stack and the database on the same 2 CPUs, so each figure comes
with the CPU each process spent on it and what anything else on the machine took (`other`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_TICK = os.sysconf("SC_CLK_TCK")


def stack_pids(stack: Any) -> dict[str, int]:
    """The pids of a harness.stack Stack by role: core0..N (`python -m core core`), facade
    (`python -m facades`), and any other process under its subcommand's name (e.g. `storage`)."""
    pids: dict[str, int] = {}
    cores = 0
    for proc in stack.processes:
        command = list(proc.args)[2:]  # after `python -m`
        if command == ["core", "core"]:
            pids[f"core{cores}"] = proc.pid
            cores += 1
        elif command == ["facades"]:
            pids["facade"] = proc.pid
        else:
            pids[command[-1]] = proc.pid
    return pids


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def status_kib(pid: int | str, field: str) -> int | None:
    """One `kB` field of /proc/<pid>/status (VmRSS, VmHWM...), or None when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def peak_rss_mib(pid: int | str) -> float:
    """VmHWM (peak resident set size) of a live process (`"self"`: this one), in MiB."""
    kib = status_kib(pid, "VmHWM")
    return float("nan") if kib is None else kib / 1024


def machine_busy_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    total = sum(values[:8])
    idle = values[3] + values[4]
    return total - idle, total


def busy_fraction(seconds: float = 1.0) -> float:
    """How busy all the CPUs were over the next `seconds` (0 to 1)."""
    b0, t0 = machine_busy_jiffies()
    time.sleep(seconds)
    b1, t1 = machine_busy_jiffies()
    return (b1 - b0) / max(1, t1 - t0)


def wait_until_quiet(max_wait: float, threshold: float = 0.15) -> float:
    """Waits (up to max_wait seconds) for a second in which the machine is less than `threshold`
    busy, so a run does not start while something else (other people's tests) loads the CPUs.
    Returns the busy fraction of the last second looked at."""
    deadline = time.monotonic() + max_wait
    while True:
        busy = busy_fraction()
        if busy < threshold or time.monotonic() >= deadline:
            return busy


def warn_if_disturbed(cpu_s: dict[str, float], busy_before: float) -> None:
    """Prints a warning when the machine was busy before a run (`busy_before`, as
    wait_until_quiet returned it) or something outside the run took more than a tenth of all
    the CPU time during it (`cpu_s`: a CpuWindow's result)."""
    other = cpu_s["other"] / max(1e-9, cpu_s["wall_s"] * (os.cpu_count() or 1))
    if other > 0.1 or busy_before >= 0.15:
        print(
            f"    WARNING: something else used the machine ({busy_before:.0%} busy before the run, "
            f"{other:.0%} of all CPU time during it): these figures are disturbed",
            flush=True,
        )


def listen_overflows() -> int:
    """The kernel's count of connections dropped because a listen queue was full (TcpExt
    ListenOverflows, the whole machine: a fake platform's small accept queue shows up here)."""
    lines = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines() if line.startswith("TcpExt:")]
    return int(dict(zip(lines[0], lines[1], strict=True)).get("ListenOverflows", 0))


class CpuWindow:
    """CPU seconds each named process, and the database server processes `backend_pids()` lists
    together, used in a window (a backend that both starts and ends inside it is missed), and what
    the whole machine spent besides (`other`)."""

    def __init__(self, named_pids: dict[str, int], backend_pids: Callable[[], list[int]] = list) -> None:
        self.named = named_pids
        self._backends = backend_pids
        self.before: dict[str, float] = {}
        self.pg_before: dict[int, float] = {}
        self.machine_before = (0, 0)
        self.result: dict[str, float] = {}

    def start(self, **extra_pids: int) -> None:
        self.named = {**self.named, **extra_pids}
        self.before = {name: cpu_seconds(pid) for name, pid in self.named.items()}
        self.pg_before = {pid: cpu_seconds(pid) for pid in self._backends()}
        self.machine_before = machine_busy_jiffies()
        self.t0 = time.perf_counter()

    def end(self) -> None:
        wall = time.perf_counter() - self.t0
        self.result = {name: cpu_seconds(pid) - self.before[name] for name, pid in self.named.items()}
        if self._backends is not list:
            self.result["postgres"] = sum(cpu_seconds(pid) - self.pg_before.get(pid, 0.0) for pid in self._backends())
        busy, total = machine_busy_jiffies()
        busy_s = (busy - self.machine_before[0]) / _TICK
        # CPU the machine spent on anything else (other people's tests, the kernel's softirqs, ...).
        self.result["other"] = max(0.0, busy_s - sum(self.result.values()))
        self.result["machine_busy_fraction"] = (busy - self.machine_before[0]) / max(1, total - self.machine_before[1])
        self.result["wall_s"] = wall

    def per_item(self, n: int) -> dict[str, float]:
        """The window's CPU of each process in ms per request (or post), `n` of them."""
        return {
            name: round(v * 1000 / max(1, n), 3)
            for name, v in self.result.items()
            if name not in ("machine_busy_fraction", "wall_s")
        }


class BackendTracker:
    """CPU of the PostgreSQL backends serving the bench database, sampled at every poll, so a
    backend that starts and ends during the run (pool overflow) is counted up to its last sample
    (CpuWindow alone would miss it and count it as `other`)."""

    def __init__(self, backend_pids: Callable[[], list[int]]) -> None:
        self.backend_pids = backend_pids
        self.before: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def start(self) -> None:
        self.before = {pid: cpu_seconds(pid) for pid in self.backend_pids()}
        self.last = dict(self.before)

    def sample(self) -> None:
        for pid in self.backend_pids():
            value = cpu_seconds(pid)
            if value:
                self.last[pid] = value

    def total(self) -> float:
        return sum(v - self.before.get(pid, 0.0) for pid, v in self.last.items())

    def move_into(self, window: CpuWindow) -> None:
        """Puts the backends' CPU in the window's `postgres` and takes it out of its `other` (the
        window saw the machine spend it)."""
        pg = self.total()
        window.result["postgres"] = pg
        window.result["other"] = max(0.0, window.result["other"] - pg)


class RssSampler:
    """VmRSS of named processes every `interval` s in a thread, while in its `with` block: the
    largest seen per process in each phase (`peaks[phase][name]`, KiB; set `phase` as the work
    moves on). One last sample is taken on leaving."""

    def __init__(self, pids: dict[str, int], interval: float, phase: str = "run") -> None:
        self.pids = pids
        self.interval = interval
        self.phase = phase
        self.peaks: dict[str, dict[str, int]] = {}
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def peak_kib(self, name: str) -> int:
        """The largest VmRSS of one process over every phase."""
        return max((peaks.get(name, 0) for peaks in self.peaks.values()), default=0)

    def _sample(self) -> None:
        peaks = self.peaks.setdefault(self.phase, {})
        for name, pid in self.pids.items():
            kib = status_kib(pid, "VmRSS")
            if kib is not None and kib > peaks.get(name, 0):
                peaks[name] = kib
        self.samples += 1

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)
