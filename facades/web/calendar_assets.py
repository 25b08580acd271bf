"""The calendar library's two files, served by the facade (docs/dashboard.md, "Calendar", "The
library"): EventCalendar (@event-calendar/build) from the npm registry, served as every npm
library is (npm_assets.py). Its script and stylesheet only; the calendar page (calendar_pages.py)
links them when the package is installed."""

from __future__ import annotations

from sanic import Request
from sanic.response import HTTPResponse

from facades.web.npm_assets import NpmLibrary

LIBRARY = NpmLibrary(
    package="@event-calendar/build",
    prefix="/assets/event-calendar",
    files={
        "event-calendar.min.js": "text/javascript; charset=utf-8",
        "event-calendar.min.css": "text/css; charset=utf-8",
    },
)


def library_version() -> str:
    """The installed version, "" when it is not installed: the page then works without its
    script."""
    return LIBRARY.version


def library_url(name: str) -> str:
    """The script's or stylesheet's URL, "" when the library is not installed."""
    return LIBRARY.url(name)


async def library_file(request: Request, version: str, name: str) -> HTTPResponse:
    """The calendar library's file at its installed version (npm_assets.py: 404 for any other)."""
    return LIBRARY.response(request, version, name)


ROUTES = (LIBRARY.route(library_file),)
