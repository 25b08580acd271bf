"""The scopes (SPEC 5): what the resource metadata lists, and what the MCP surface names."""

from __future__ import annotations

from core.identity.principal import ALL_SCOPES

# Listed in the protected resource and authorization server metadata (SPEC 5, discovery).
RESOURCE_SCOPES = frozenset({"posts:write", "posts:read", "media:write"})
# Every scope a client may register for and ask for.
SUPPORTED_SCOPES = ALL_SCOPES
