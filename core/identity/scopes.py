"""The OAuth scopes (docs/api.md, "Authentication"): every scope Herald knows, what it allows,
and which ones the discovery documents list. The one table: policies, the OAuth server, the
consent page (through the catalog) and the discovery documents read it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scope:
    description: str
    # Listed in the resource and authorization server metadata: posts:write, posts:read and
    # media:write (docs/api.md, "Authentication"); the writing scopes are opt-in.
    advertised: bool


SCOPES: dict[str, Scope] = {
    "posts:write": Scope("create, schedule, update and delete posts", advertised=True),
    "posts:read": Scope(
        "read posts, their status, your connected profiles and the organization's settings", advertised=True
    ),
    "media:write": Scope("upload media and attach it to posts", advertised=True),
    "generate:read": Scope("read brand voice, recent posts and destination limits", advertised=False),
    "generate:write": Scope("run writing tools", advertised=False),
}

ALL_SCOPES = frozenset(SCOPES)
# Listed in the protected resource and authorization server metadata.
RESOURCE_SCOPES = frozenset(name for name, scope in SCOPES.items() if scope.advertised)
