"""Key files made on first use (the platform-token key, the storage signing key): 32 random bytes
as hex, created with mode 0600, and refused when other users may read or write them.

A key file that others can read gives away every secret it seals or signs; one they can write
lets them choose the key. Group access is left to the operator (a service group may own it).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import tempfile
from pathlib import Path

KEY_BYTES = 32


class KeyFileError(RuntimeError):
    """A key file that must not be used as it is; the message says how to fix it."""


def load_or_create_key_file(path: Path) -> bytes:
    """Reads the key file, creating it first when absent. Two processes racing here agree: each
    writes a complete temp file and hard-links it into place, which succeeds for exactly one of
    them; the other reads the winner's key."""
    with contextlib.suppress(FileNotFoundError):
        return _read_key(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o600)  # mkstemp's mode already, whatever the umask; said once more here
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_bytes(KEY_BYTES).hex() + "\n")
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)  # atomic create-if-absent, with the content already complete
    finally:
        os.unlink(tmp)
    return _read_key(path)


def _read_key(path: Path) -> bytes:
    # The mode is read from the opened file, so it is the mode of the bytes read.
    with open(path) as f:
        mode = os.fstat(f.fileno()).st_mode
        if mode & 0o007:
            raise KeyFileError(
                f"{path} can be read or written by other users (mode {stat.filemode(mode)}): "
                f"run `chmod 600 {path}` (or chmod 640 for a group of its own)"
            )
        text = f.read().strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise KeyFileError(f"{path} does not hold a {KEY_BYTES}-byte hex key; remove it to generate a new one")
    return key
