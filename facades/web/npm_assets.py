"""Front-end libraries from the npm registry, served by the facade (docs/dashboard.md,
"Calendar", "The library", and "Analytics", "The chart library"): each is an npm package pinned by
facades/web/assets/package-lock.json and installed by scripts/ensure_web_assets.sh into
facades/web/assets/node_modules, never copied into the repository nor loaded from a CDN. A
library names the few files of its `dist/` a page loads; only those are served, at a URL that
carries the installed version (so a browser keeps them a year, immutable), gzip-compressed for a
browser that accepts it. calendar_assets.py and chart_assets.py declare the two libraries."""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sanic import Request
from sanic.response import HTTPResponse, raw

from facades.errors import ApiError
from facades.web.pages import Route

NODE_MODULES = Path(__file__).resolve().parent / "assets" / "node_modules"

# Every served file's headers but its encoding: a versioned URL never changes its content.
HEADERS = {
    "Cache-Control": "public, max-age=31536000, immutable",
    "Vary": "Accept-Encoding",
    "X-Content-Type-Options": "nosniff",
}


@dataclass(frozen=True)
class NpmLibrary:
    """One installed npm package's served files: `package` is its name under node_modules
    (`chart.js`, `@event-calendar/build`), `prefix` the URL its files live under (the version
    and the file's name follow), `files` each served file of its `dist/` with its content type."""

    package: str
    prefix: str
    files: Mapping[str, str]
    _bytes: dict[str, tuple[bytes, bytes]] = field(default_factory=dict, repr=False, compare=False)

    @functools.cached_property
    def version(self) -> str:
        """The installed version, read once per process; "" when the package is not installed:
        a page then works without the library (its tables, no script)."""
        try:
            return str(json.loads((NODE_MODULES / self.package / "package.json").read_text())["version"])
        except (OSError, ValueError, KeyError):
            return ""

    def url(self, name: str) -> str:
        """A file's URL for a page's `<script src>` or `<link href>`, "" when not installed."""
        return f"{self.prefix}/{self.version}/{name}" if self.version else ""

    def _read(self, name: str) -> tuple[bytes, bytes]:
        """A file as installed and gzip-compressed, read and compressed once per process."""
        if name not in self._bytes:
            plain = (NODE_MODULES / self.package / "dist" / name).read_bytes()
            self._bytes[name] = plain, gzip.compress(plain, compresslevel=9, mtime=0)
        return self._bytes[name]

    def response(self, request: Request, version: str, name: str) -> HTTPResponse:
        """A named file at the installed version, gzip-compressed for a browser that accepts it;
        any other name or version (a source map, package.json, an older release) is 404."""
        if not version or version != self.version or name not in self.files:
            raise ApiError("NOT_FOUND", "not found")
        try:
            plain, packed = self._read(name)
        except OSError:
            raise ApiError("NOT_FOUND", "not found") from None
        headers = dict(HEADERS)
        body = plain
        if accepts_gzip(request.headers.get("accept-encoding", "")):
            body = packed
            headers["Content-Encoding"] = "gzip"
        return raw(body, content_type=self.files[name], headers=headers)

    def route(self, handler: Callable[[Request, str, str], Awaitable[HTTPResponse]]) -> Route:
        """The library's one route, to `handler`: its module's documented function that answers
        `self.response` (the dashboard's handlers are module-level functions, never closures)."""
        return Route("GET", f"{self.prefix}/<version:str>/<name:str>", handler)


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
