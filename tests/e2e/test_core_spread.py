"""Several core processes behind one port (SO_REUSEPORT) all serve: the kernel spreads the facade's
connections over the processes, and the facade sends each call on the channel with the fewest in
flight. Calls one after another stay on one channel, so on one warm process; concurrent calls
reach every process once enough of them are in flight to use every channel."""

from __future__ import annotations

import asyncio
import os

from harness.stack import bootstrap_org, connections_accepted, cpu_ticks, database, get_in_closed_loop, running_stack


def test_two_core_processes_share_concurrent_calls_and_one_serves_calls_in_turn(tmp_path) -> None:
    # 16 connections: the chance that the kernel puts all of them on one of two processes is 2^-15.
    with (
        database("sqlite", tmp_path) as url,
        running_stack(url, tmp_path, core_processes=2, HERALD_CORE_CHANNELS="16") as stack,
    ):
        headers = {"Authorization": f"Bearer {bootstrap_org(url, 'spread')}"}
        cores = stack.processes[:2]
        clock_ticks = os.sysconf("SC_CLK_TCK")

        # A first call connects every channel; the kernel gives each process some of them.
        asyncio.run(get_in_closed_loop(stack.base_url, "/v1/profiles", headers, 1, 1))
        core_port = int(stack.core_target.rsplit(":", 1)[1])
        accepted = [connections_accepted(p.pid, core_port) for p in cores]
        assert sum(accepted) >= 16 and min(accepted) >= 1, f"connections per core: {accepted}"

        # 64 at a time keep more calls in flight than there are channels: every channel, so every
        # process, serves (at least 5% of the CPU the cores spent).
        before = [cpu_ticks(p.pid) for p in cores]
        asyncio.run(get_in_closed_loop(stack.base_url, "/v1/profiles", headers, 1200, 64))
        used = [cpu_ticks(p.pid) - b for p, b in zip(cores, before, strict=True)]
        assert min(used) >= 0.05 * sum(used), f"CPU ticks per core ({clock_ticks}/s): {used}"

        before = [cpu_ticks(p.pid) for p in cores]
        asyncio.run(get_in_closed_loop(stack.base_url, "/v1/profiles", headers, 300, 1))
        used = [cpu_ticks(p.pid) - b for p, b in zip(cores, before, strict=True)]
        # One after another: the first channel each time, so one process did nearly all of it
        # (the other only its health checks).
        assert max(used) >= 0.9 * sum(used), f"CPU ticks per core ({clock_ticks}/s): {used}"
