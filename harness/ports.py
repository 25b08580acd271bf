"""Loopback ports for the processes tests and benches start.

A port from bind(("127.0.0.1", 0)) comes from the kernel's ephemeral range, the range outgoing
connections take their local ports from. Between its pick and the bind of the server it is
meant for (or while a killed server is being started again on it), such a port can become the
local port of any connection on the machine, or another pytest worker's pick. Ports here come
from below that range, where the kernel never picks: each pytest-xdist worker has a block of
its own, a process hands its block's ports out in turn (the same port again only after the whole
block), and each is checked free by binding it first.
"""

from __future__ import annotations

import itertools
import os
import random
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

FIRST = 16_000  # below: ports services commonly use
BLOCK = 1_500  # ports per worker: several times what one worker's share of the suite takes
STANDALONE_BLOCKS = 3  # for processes outside pytest-xdist (benches, one pytest), by pid

_lock = threading.Lock()
_ports: Iterator[int] | None = None


def ephemeral_low(path: Path = Path("/proc/sys/net/ipv4/ip_local_port_range")) -> int:
    """The first port of the kernel's ephemeral range (32768 unless configured otherwise)."""
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def block(worker: str, pid: int, low: int) -> range | None:
    """This process's block of ports below `low`, or None when there is no room for blocks.
    `worker`: pytest-xdist's PYTEST_XDIST_WORKER (`gw0`, `gw1`...), empty outside it."""
    count = (low - FIRST) // BLOCK
    if count <= STANDALONE_BLOCKS:
        return None
    if worker.startswith("gw") and worker[2:].isdigit():
        index = int(worker[2:]) % (count - STANDALONE_BLOCKS)
    else:
        index = count - 1 - pid % STANDALONE_BLOCKS
    start = FIRST + index * BLOCK
    return range(start, start + BLOCK)


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))  # no SO_REUSEADDR: a port in any use is refused
        except OSError:
            return False
    return True


def _ephemeral() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_port() -> int:
    """A loopback port nothing uses now, not handed out by this process recently."""
    global _ports
    with _lock:
        if _ports is None:
            ports = block(os.environ.get("PYTEST_XDIST_WORKER", ""), os.getpid(), ephemeral_low())
            if ports is None:
                return _ephemeral()
            offset = random.randrange(len(ports))  # spreads the processes sharing a block
            _ports = itertools.cycle([*ports[offset:], *ports[:offset]])
        for _ in range(BLOCK):
            port = next(_ports)
            if _free(port):
                return port
    return _ephemeral()
