"""The calendar library's two files, served by the facade (docs/dashboard.md, "Calendar", "The
library"): EventCalendar (@event-calendar/build) from the npm registry, pinned by
facades/web/assets/package-lock.json and installed by scripts/ensure_web_assets.sh, never copied
into the repository nor loaded from a CDN. Its script and stylesheet only, at versioned URLs
(immutable), gzip-compressed for a browser that accepts it; the calendar page (calendar_pages.py)
links them when the package is installed."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

from sanic import Request
from sanic.response import HTTPResponse, raw

from facades.errors import ApiError
from facades.web.pages import Route

# The calendar library, from the npm registry (facades/web/assets/package.json, pinned by its
# package-lock.json, installed by scripts/ensure_web_assets.sh): only these two files are served.
LIBRARY = Path(__file__).resolve().parent / "assets" / "node_modules" / "@event-calendar" / "build"
LIBRARY_FILES = {
    "event-calendar.min.js": "text/javascript; charset=utf-8",
    "event-calendar.min.css": "text/css; charset=utf-8",
}


@functools.cache
def library_version() -> str:
    """The installed library's version (its URLs carry it, so browsers may keep the files for a
    year); "" when it is not installed: the page then works without its script."""
    try:
        return str(json.loads((LIBRARY / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return ""


def library_url(name: str) -> str:
    return f"/assets/event-calendar/{library_version()}/{name}"


@functools.lru_cache(maxsize=len(LIBRARY_FILES))
def _library_bytes(name: str) -> tuple[bytes, bytes]:
    """A file as installed and gzip-compressed, read and compressed once per process."""
    plain = (LIBRARY / "dist" / name).read_bytes()
    return plain, gzip.compress(plain, compresslevel=9, mtime=0)


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (RFC 9110 12.5.3: `gzip`, else `*`, at a
    quality above 0)."""
    qualities = {}
    for item in header.split(","):
        name, _, params = item.strip().partition(";")
        quality = params.strip().lower().removeprefix("q=")
        try:
            qualities[name.strip().lower()] = float(quality) if quality else 1.0
        except ValueError:
            qualities[name.strip().lower()] = 0.0
    return qualities.get("gzip", qualities.get("*", 0.0)) > 0


async def library_file(request: Request, version: str, name: str) -> HTTPResponse:
    """The calendar library's script or stylesheet, gzip-compressed for a browser that accepts
    it; immutable at its versioned URL. Anything else under it is 404."""
    if not version or version != library_version() or name not in LIBRARY_FILES:
        raise ApiError("NOT_FOUND", "not found")
    try:
        plain, packed = _library_bytes(name)
    except OSError:
        raise ApiError("NOT_FOUND", "not found") from None
    headers = {
        "Cache-Control": "public, max-age=31536000, immutable",
        "Vary": "Accept-Encoding",
        "X-Content-Type-Options": "nosniff",
    }
    body = plain
    if accepts_gzip(request.headers.get("accept-encoding", "")):
        body = packed
        headers["Content-Encoding"] = "gzip"
    return raw(body, content_type=LIBRARY_FILES[name], headers=headers)


ROUTES = (Route("GET", "/assets/event-calendar/<version:str>/<name:str>", library_file),)
