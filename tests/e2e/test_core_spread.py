"""Several core processes behind one port (SO_REUSEPORT) all serve: the facade spreads its calls
over several connections, and the kernel spreads connections over the processes."""

from __future__ import annotations

import os

import httpx

from tests.harness import bootstrap_org, database, running_stack


def _cpu_ticks(pid: int) -> int:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()  # noqa: SIM115
    return int(fields[11]) + int(fields[12])  # utime + stime


def test_two_core_processes_share_the_calls(tmp_path) -> None:  # noqa: ANN001
    # 16 connections: the chance that the kernel puts all of them on one of two processes is 2^-15.
    with (
        database("sqlite", tmp_path) as url,
        running_stack(url, tmp_path, core_processes=2, HERALD_CORE_CHANNELS="16") as stack,
    ):
        headers = {"Authorization": f"Bearer {bootstrap_org(url, 'spread')}"}
        cores = stack.processes[:2]
        before = [_cpu_ticks(p.pid) for p in cores]
        with httpx.Client(base_url=stack.base_url, timeout=30) as http:
            for _ in range(400):
                assert http.get("/v1/profiles", headers=headers).status_code == 200
        used = [_cpu_ticks(p.pid) - b for p, b in zip(cores, before, strict=True)]
        clock_ticks = os.sysconf("SC_CLK_TCK")
        # Each process did real work (at least 5% of the total CPU the cores spent).
        assert min(used) >= 0.05 * sum(used), f"CPU ticks per core ({clock_ticks}/s): {used}"
