"""The chart library's one file, served by the facade (docs/dashboard.md, "Analytics", "The
chart library"): Chart.js (chart.js) from the npm registry, served as every npm library is
(npm_assets.py). Its UMD bundle only, the standalone one that defines `Chart` (its @kurkle/color
dependency is inside); the analytics page and a post's page (analytics_pages.py,
post_metrics.py) link it when the package is installed."""

from __future__ import annotations

from sanic import Request
from sanic.response import HTTPResponse

from facades.web.npm_assets import NpmLibrary

SCRIPT = "chart.umd.min.js"
LIBRARY = NpmLibrary(
    package="chart.js",
    prefix="/assets/chart.js",
    files={SCRIPT: "text/javascript; charset=utf-8"},
)


def library_version() -> str:
    """The installed version, "" when it is not installed: the pages then show their tables
    without charts."""
    return LIBRARY.version


def script_url() -> str:
    """The library's URL for a page's `<script src>`, "" when it is not installed."""
    return LIBRARY.url(SCRIPT)


async def library_file(request: Request, version: str, name: str) -> HTTPResponse:
    """The chart library's file at its installed version (npm_assets.py: 404 for any other)."""
    return LIBRARY.response(request, version, name)


ROUTES = (LIBRARY.route(library_file),)
