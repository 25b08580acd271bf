"""Several core processes behind one port (SO_REUSEPORT) all serve: the facade spreads concurrent
calls over several connections (each to the channel with the fewest in flight), and the kernel
spreads connections over the processes. Calls one after another stay on one channel, so on one
warm process. A core that starts after the facade connected gets its share once the
connections reach their age (HERALD_CORE_MAX_CONNECTION_AGE_SECONDS)."""

from __future__ import annotations

import asyncio
import os

import httpx

from tests.harness import bootstrap_org, database, running_stack, wait_for_listening


def _cpu_ticks(pid: int) -> int:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()  # noqa: SIM115
    return int(fields[11]) + int(fields[12])  # utime + stime


async def _load(base_url: str, headers: dict[str, str], requests: int, in_flight: int) -> None:
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        left = iter(range(requests))

        async def worker() -> None:
            for _ in left:
                assert (await http.get("/v1/profiles", headers=headers)).status_code == 200

        await asyncio.gather(*(worker() for _ in range(in_flight)))


def test_two_core_processes_share_concurrent_calls_and_one_serves_calls_in_turn(tmp_path) -> None:  # noqa: ANN001
    # 16 connections: the chance that the kernel puts all of them on one of two processes is 2^-15.
    with (
        database("sqlite", tmp_path) as url,
        running_stack(url, tmp_path, core_processes=2, HERALD_CORE_CHANNELS="16") as stack,
    ):
        headers = {"Authorization": f"Bearer {bootstrap_org(url, 'spread')}"}
        cores = stack.processes[:2]
        clock_ticks = os.sysconf("SC_CLK_TCK")

        before = [_cpu_ticks(p.pid) for p in cores]
        asyncio.run(_load(stack.base_url, headers, 600, 16))
        used = [_cpu_ticks(p.pid) - b for p, b in zip(cores, before, strict=True)]
        # Each process did real work (at least 5% of the total CPU the cores spent).
        assert min(used) >= 0.05 * sum(used), f"CPU ticks per core ({clock_ticks}/s): {used}"

        before = [_cpu_ticks(p.pid) for p in cores]
        asyncio.run(_load(stack.base_url, headers, 300, 1))
        used = [_cpu_ticks(p.pid) - b for p, b in zip(cores, before, strict=True)]
        # One after another: the first channel each time, so one process did nearly all of it
        # (the other only its health checks).
        assert max(used) >= 0.9 * sum(used), f"CPU ticks per core ({clock_ticks}/s): {used}"


def test_a_core_started_after_the_facade_connected_gets_calls_once_connections_reach_their_age(tmp_path) -> None:  # noqa: ANN001
    with (
        database("sqlite", tmp_path) as url,
        running_stack(
            url,
            tmp_path,
            HERALD_CORE_CHANNELS="16",
            HERALD_CORE_MAX_CONNECTION_AGE_SECONDS="1",
            HERALD_CORE_MAX_CONNECTION_AGE_GRACE_SECONDS="1",
        ) as stack,
    ):
        headers = {"Authorization": f"Bearer {bootstrap_org(url, 'late')}"}
        asyncio.run(_load(stack.base_url, headers, 100, 16))  # every channel on the only core
        first = stack.processes[0]
        late = stack.spawn("core", "core", log_name="late-core")
        wait_for_listening(late, int(stack.core_target.rsplit(":", 1)[1]))

        # Several connection ages go by under load: the core closes each connection (GOAWAY) and
        # the facade opens another, and not one call fails for it (_load checks every answer).
        asyncio.run(_load(stack.base_url, headers, 800, 16))

        cores = [first, late]
        before = [_cpu_ticks(p.pid) for p in cores]
        asyncio.run(_load(stack.base_url, headers, 600, 16))
        used = [_cpu_ticks(p.pid) - b for p, b in zip(cores, before, strict=True)]
        assert min(used) >= 0.05 * sum(used), f"CPU ticks per core: {used}"
