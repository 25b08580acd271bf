"""The chart library's one file, served by the facade (docs/dashboard.md, "Analytics", "The
chart library"): Chart.js (chart.js) from the npm registry, pinned by
facades/web/assets/package-lock.json and installed by scripts/ensure_web_assets.sh, never copied
into the repository nor loaded from a CDN. Its UMD bundle only, at a versioned URL (immutable),
gzip-compressed for a browser that accepts it; the analytics page and a post's page
(analytics_pages.py, post_metrics.py) link it when the package is installed."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

from sanic import Request
from sanic.response import HTTPResponse, raw

from facades.errors import ApiError
from facades.web.calendar_assets import accepts_gzip
from facades.web.pages import Route

# The chart library, from the npm registry (facades/web/assets/package.json): only this file is
# served, the standalone bundle that defines `Chart` (its @kurkle/color dependency is inside).
LIBRARY = Path(__file__).resolve().parent / "assets" / "node_modules" / "chart.js"
LIBRARY_FILES = {"chart.umd.min.js": "text/javascript; charset=utf-8"}
SCRIPT = "chart.umd.min.js"


@functools.cache
def library_version() -> str:
    """The installed library's version (its URL carries it, so browsers may keep the file for a
    year); "" when it is not installed: the pages then show their tables without charts."""
    try:
        return str(json.loads((LIBRARY / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return ""


def script_url() -> str:
    """The library's URL for a page's `<script src>`, "" when it is not installed."""
    version = library_version()
    return f"/assets/chart.js/{version}/{SCRIPT}" if version else ""


@functools.lru_cache(maxsize=len(LIBRARY_FILES))
def _library_bytes(name: str) -> tuple[bytes, bytes]:
    """The file as installed and gzip-compressed, read and compressed once per process."""
    plain = (LIBRARY / "dist" / name).read_bytes()
    return plain, gzip.compress(plain, compresslevel=9, mtime=0)


async def chart_library(request: Request, version: str, name: str) -> HTTPResponse:
    """The chart library's script, gzip-compressed for a browser that accepts it; immutable at
    its versioned URL. Anything else under it is 404."""
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


ROUTES = (Route("GET", "/assets/chart.js/<version:str>/<name:str>", chart_library),)
