"""Several core processes behind one port (SO_REUSEPORT) all serve: the facade spreads concurrent
calls over several connections (each to the channel with the fewest in flight), and the kernel
spreads connections over the processes. Calls one after another stay on one channel, so on one
warm process."""

from __future__ import annotations

import asyncio
import os

from harness.stack import bootstrap_org, cpu_ticks, database, get_in_closed_loop, running_stack


def test_two_core_processes_share_concurrent_calls_and_one_serves_calls_in_turn(tmp_path) -> None:
    # 16 connections: the chance that the kernel puts all of them on one of two processes is 2^-15.
    with (
        database("sqlite", tmp_path) as url,
        running_stack(url, tmp_path, core_processes=2, HERALD_CORE_CHANNELS="16") as stack,
    ):
        headers = {"Authorization": f"Bearer {bootstrap_org(url, 'spread')}"}
        cores = stack.processes[:2]
        clock_ticks = os.sysconf("SC_CLK_TCK")

        before = [cpu_ticks(p.pid) for p in cores]
        asyncio.run(get_in_closed_loop(stack.base_url, "/v1/profiles", headers, 600, 16))
        used = [cpu_ticks(p.pid) - b for p, b in zip(cores, before, strict=True)]
        # Each process did real work (at least 5% of the total CPU the cores spent).
        assert min(used) >= 0.05 * sum(used), f"CPU ticks per core ({clock_ticks}/s): {used}"

        before = [cpu_ticks(p.pid) for p in cores]
        asyncio.run(get_in_closed_loop(stack.base_url, "/v1/profiles", headers, 300, 1))
        used = [cpu_ticks(p.pid) - b for p, b in zip(cores, before, strict=True)]
        # One after another: the first channel each time, so one process did nearly all of it
        # (the other only its health checks).
        assert max(used) >= 0.9 * sum(used), f"CPU ticks per core ({clock_ticks}/s): {used}"
