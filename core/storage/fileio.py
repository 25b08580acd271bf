"""Low-level file writing for the `local` backend: early writeback and socket-to-file splicing.

Two things make a 1 GB upload cost little more than a copy of the same bytes (docs/performance.md):

- `start_writeback`: asks the kernel to start writing a range that was just written to disk, without
  waiting (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`). Without it a machine with plenty of RAM
  keeps the whole upload dirty in the page cache and the final fsync writes all of it after the last
  byte arrived; with it the disk works while the network does, and the final fsync only flushes the
  tail. Durability is unchanged: the object is still fsynced (file and directory) before it is
  renamed into place and acknowledged. Elsewhere it does nothing.
- `splice_to_file`: moves bytes from a socket to a file through a pipe with `os.splice` (Linux), so
  they are copied once, in the kernel, and never become Python objects.

Both run in worker threads (they block).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import select
import threading
import time
from collections.abc import Callable

SYNC_FILE_RANGE_WRITE = 2
PIPE_SIZE = 1024 * 1024
# A read that brings nothing for this long ends the upload (a client that stalls mid-body); shorter
# than the storage server's response timeout (60 s), so the client gets a clear answer.
IDLE_TIMEOUT = 50.0
POLL_MS = 500


def _load_sync_file_range():  # a ctypes function or None
    if os.uname().sysname != "Linux":
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.sync_file_range
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_sync_file_range = _load_sync_file_range()
HAVE_SPLICE = hasattr(os, "splice") and _sync_file_range is not None


def start_writeback(fd: int, offset: int, length: int) -> None:
    """Starts writing `length` bytes at `offset` of `fd` to disk, without waiting for it (best
    effort: errors are ignored, the final fsync reports any)."""
    if _sync_file_range is not None and length > 0:
        _sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE)


class Writeback:
    """Kicks off writeback every `every` bytes written to a file, behind the writer."""

    def __init__(self, fd: int, every: int = 8 * 1024 * 1024) -> None:
        self.fd, self.every, self.flushed, self.written = fd, every, 0, 0

    def wrote(self, n: int) -> None:
        self.written += n
        if self.written - self.flushed >= self.every:
            start_writeback(self.fd, self.flushed, self.written - self.flushed)
            self.flushed = self.written


def write_all(fd: int, chunks: list[bytes]) -> int:
    """Writes the chunks in order (one writev when the kernel takes them all); returns the size."""
    total = sum(len(c) for c in chunks)
    views = [memoryview(c) for c in chunks if c]
    while views:
        n = os.writev(fd, views)
        while views and n >= len(views[0]):
            n -= len(views[0])
            views.pop(0)
        if n:
            views[0] = views[0][n:]
    return total


class SocketPipe:
    """A pipe to splice through, sized to 1 MiB when the system allows."""

    def __init__(self) -> None:
        self.r, self.w = os.pipe2(os.O_CLOEXEC)
        self.size = 64 * 1024
        with contextlib.suppress(OSError, AttributeError):
            import fcntl

            self.size = fcntl.fcntl(self.w, fcntl.F_SETPIPE_SZ, PIPE_SIZE)

    def close(self) -> None:
        os.close(self.r)
        os.close(self.w)


def splice_to_file(
    sock_fd: int,
    pipe: SocketPipe,
    file_fd: int,
    length: int,
    writeback: Writeback,
    alive: Callable[[], None],
    stop: threading.Event,
) -> int:
    """Moves exactly `length` bytes from the (non-blocking) socket to the file's current position,
    calling `alive()` as bytes arrive. Raises ConnectionError when the peer closes first,
    TimeoutError after IDLE_TIMEOUT seconds without a byte, InterruptedError when `stop` is set."""
    moved = 0
    poller = select.poll()
    poller.register(sock_fd, select.POLLIN | select.POLLPRI)
    last = time.monotonic()
    while moved < length:
        try:
            n = os.splice(
                sock_fd, pipe.w, min(length - moved, pipe.size), flags=os.SPLICE_F_MOVE | os.SPLICE_F_NONBLOCK
            )
        except BlockingIOError:
            if stop.is_set():
                raise InterruptedError("stopped") from None
            if time.monotonic() - last > IDLE_TIMEOUT:
                raise TimeoutError(f"no body bytes for {IDLE_TIMEOUT:.0f} s") from None
            poller.poll(POLL_MS)
            continue
        if n == 0:
            raise ConnectionError("the client closed the connection before the body was complete")
        last = time.monotonic()
        left = n
        while left:
            left -= os.splice(pipe.r, file_fd, left, flags=os.SPLICE_F_MOVE)
        moved += n
        writeback.wrote(n)
        alive()
    return moved
