"""Whether a process listens on a TCP port, read from Linux's /proc (no dependency).

Several core processes share one port (SO_REUSEPORT), so a connection to the port says nothing
about which of them is up: `herald serve` asks this before it starts the facade."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

_LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp's `st` column


def available() -> bool:
    return Path("/proc/net/tcp").exists()


def listens(pid: int, port: int) -> bool:
    """Whether process `pid` holds a TCP socket listening on `port` (False if it is gone)."""
    sockets = set()
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    sockets.add(target[8:-1])
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for row in Path(table).read_text().splitlines()[1:]:
                # sl, local address (hex ip:hex port), remote address, state, ..., inode (10th).
                fields = row.split()
                local_port = int(fields[1].rsplit(":", 1)[1], 16)
                if local_port == port and fields[3] == _LISTEN and fields[9] in sockets:
                    return True
    return False
