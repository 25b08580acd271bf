"""The MCP Apps extension (`io.modelcontextprotocol/ui`, 2026-01-26): the `ui://` resources a
host renders a tool's result in. Herald has one, the post preview (`preview_post`'s
`_meta.ui.resourceUri`); `resources/list` and `resources/read` serve it, and only it.

The HTML is self-contained (its style and script inline, no external load) and declares a
strict Content-Security-Policy of its own; its `_meta.ui.csp` asks the host for no domains at
all. The preview cards are the dashboard's: `facades/web/static/preview_cards.{js,css}`, the one
renderer the compose page loads from /static, are inlined where the HTML says
`// herald:include <file>` or `/* herald:include <file> */` when the resource is read. It speaks the Apps dialect over postMessage: `ui/initialize`, then it renders the
`ui/notifications/tool-result` the host pushes, and its button calls `create_post` through
the host's `tools/call` with the arguments of `ui/notifications/tool-input`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

from contract.operations import TOOLS

HERE = Path(__file__).resolve().parent
# The dashboard's static files, which an app's HTML may inline (the preview cards).
SHARED = HERE.parent.parent / "web" / "static"
_INCLUDE = re.compile(r"^(?://|/\*) herald:include ([\w.-]+)(?: \*/)?$", re.MULTILINE)
# The URI is the operation table's (the tool names it); this module serves it.
POST_PREVIEW_URI = TOOLS["preview_post"].tool.ui
# No connect, resource or frame domains: everything the page needs is inline.
_UI_META: dict[str, Any] = {"ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}}


@dataclass(frozen=True, slots=True)
class AppResource:
    uri: str
    name: str
    title: str
    description: str
    file: str

    @property
    def html(self) -> str:
        return _read(self.file)


def _inline(match: re.Match[str]) -> str:
    text = (SHARED / match.group(1)).read_text(encoding="utf-8").rstrip("\n")
    # Inlined into <script> or <style>: a closing tag inside would end the element early.
    if re.search(r"</(script|style)", text, re.IGNORECASE):
        raise RuntimeError(f"{match.group(1)} cannot be inlined: it contains a closing script or style tag")
    return text


@cache
def _read(file: str) -> str:
    """The app's HTML with the shared files it names inlined: one self-contained document."""
    return _INCLUDE.sub(_inline, (HERE / file).read_text(encoding="utf-8"))


RESOURCES = {
    POST_PREVIEW_URI: AppResource(
        uri=POST_PREVIEW_URI,
        name="post-preview",
        title="Post preview",
        description="One card per destination, as each platform shows a post: every part's text with its count "
        "against the limit, the media attached, problems and warnings, and a button that creates the post.",
        file="post_preview.html",
    )
}


_UNSERVED = {op.tool.ui for op in TOOLS.values() if op.tool.ui} - set(RESOURCES)
if _UNSERVED:  # a tool pointing at a UI no one serves would leave hosts with a broken frame
    raise RuntimeError(f"MCP Apps resources named by tools but not served: {sorted(_UNSERVED)}")


def capabilities() -> dict[str, Any]:
    """What the server advertises for the extension (`capabilities.extensions`)."""
    return {EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}


def list_resources() -> dict[str, Any]:
    resources = [
        types.Resource(
            uri=r.uri, name=r.name, title=r.title, description=r.description, mime_type=APP_MIME_TYPE, _meta=_UI_META
        ).model_dump(by_alias=True, exclude_none=True, mode="json")
        for r in RESOURCES.values()
    ]
    return {"resources": resources}


def read_resource(uri: str) -> dict[str, Any] | None:
    """The resource's contents, or None for a URI Herald does not serve."""
    resource = RESOURCES.get(uri)
    if resource is None:
        return None
    contents = types.TextResourceContents(uri=uri, mime_type=APP_MIME_TYPE, text=resource.html, _meta=_UI_META)
    return {"contents": [contents.model_dump(by_alias=True, exclude_none=True, mode="json")]}
