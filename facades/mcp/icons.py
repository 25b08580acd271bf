"""Icons for MCP hosts (2025-11-25 on): the server's, and one per tool by its operation's tag,
served by Herald itself from /static/icons (plain SVG, no script, no external reference)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import mcp_types as types

ICONS_DIR = Path(__file__).resolve().parent.parent / "web" / "static" / "icons"
SERVER_ICON = "herald"
VERSION = "0.1.0"


def icons(base_url: str, name: str) -> list[types.Icon]:
    """The icon `name` (a file of ICONS_DIR, else the server's), as the MCP `icons` field."""
    if not (ICONS_DIR / f"{name}.svg").is_file():
        name = SERVER_ICON
    src = f"{base_url.rstrip('/')}/static/icons/{name}.svg"
    return [types.Icon(src=src, mime_type="image/svg+xml", sizes=["any"])]


@cache
def server_info(base_url: str) -> types.Implementation:
    return types.Implementation(
        name="herald",
        title="Herald",
        version=VERSION,
        description="Publish and schedule posts to connected social profiles, with a media library and stock photos.",
        website_url=base_url,
        icons=icons(base_url, SERVER_ICON),
    )
