"""Where a browser may be sent back to: sign-in's `next` and a connection's `return_to`.

One rule for the core, which stores a connection's `return_to`, and the facade, which redirects
to it (and to sign-in's `next`), so neither can be talked into sending a browser elsewhere.
"""

from __future__ import annotations

from urllib.parse import urlsplit

MAX_TARGET = 2000


def _plain(target: str) -> bool:
    """No whitespace, control or invisible characters, no backslash. Browsers drop tabs and
    newlines from URLs (so "/\\t/host" becomes "//host") and read "\\" as "/" in http(s) URLs
    (so "/\\host" becomes "//host")."""
    return "\\" not in target and all(c.isprintable() and not c.isspace() for c in target)


def local_path(target: str | None) -> str | None:
    """`target` when it is a path of this site ("/…", not "//host", which browsers read as
    another host), at most MAX_TARGET characters; else None."""
    if not target or len(target) > MAX_TARGET or not target.startswith("/") or target.startswith("//"):
        return None
    return target if _plain(target) else None


def app_url(target: str | None) -> str | None:
    """`target` when it is an absolute http(s) URL with a host and without credentials (a client
    application's page, which the REST connect flow may name: docs/live-publishing.md), at most
    MAX_TARGET characters; else None."""
    if not target or len(target) > MAX_TARGET or not _plain(target):
        return None
    try:
        parts = urlsplit(target)
        _ = parts.port  # ValueError when it is not a number
    except ValueError:
        return None
    if parts.scheme not in ("https", "http") or not parts.hostname or "@" in parts.netloc:
        return None
    if not target.lower().startswith(f"{parts.scheme}://"):  # "https:/\host", "https:host"
        return None
    return target
