"""The /mcp credential rule (docs/oauth.md, "The /mcp gate"): only user-bound OAuth access tokens
whose audience is {base_url}/mcp. API keys, dashboard sessions and client_credentials tokens are
refused.

The facade checks the shape; the core checks the token (hash lookup, expiry, revocation, grant,
membership, and the audience this facade sends as `herald-audience`).
"""

from __future__ import annotations

from sanic import Request
from sanic.response import HTTPResponse, json

from contract.catalog import Catalog
from contract.operations import TOOLS
from facades.errors import ApiError

ACCESS_TOKEN_PREFIX = "hoa_"


class GateRefusal(Exception):
    """The request is refused before any MCP message is looked at."""

    def __init__(self, status: int, error: str, description: str, scope: str = "") -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description
        self.scope = scope


def access_token_authorization(request: Request) -> str:
    """The `Bearer` value to forward to the core, or a 401 refusal."""
    headers = request.headers.getall("authorization", [])
    if not headers:
        raise GateRefusal(401, "", "missing credential: send an OAuth access token as Authorization: Bearer")
    if len(headers) > 1:
        raise GateRefusal(401, "invalid_token", "send exactly one Authorization header")
    scheme, _, token = headers[0].strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token or not (token.isascii() and token.isprintable()):
        raise GateRefusal(401, "invalid_token", "malformed Authorization header: expected 'Bearer <access token>'")
    if not token.startswith(ACCESS_TOKEN_PREFIX):
        raise GateRefusal(401, "invalid_token", _not_an_access_token(token))
    return f"Bearer {token}"


# What other Herald credentials look like, to tell a caller which one it sent.
_OTHER_CREDENTIALS = {
    "svc_": "an API key: API keys belong at /v1",
    "hor_": "a refresh token: exchange it at the token endpoint for an access token",
    "hss_": "a dashboard session: sessions belong to the dashboard",
}


def tool_scopes(catalog: Catalog) -> list[str]:
    """Every scope some MCP tool needs (its core method's, from the catalog), in the catalog's
    order of scopes: what one consent must cover for every tool to work."""
    needed: set[str] = set()
    for op in TOOLS.values():
        try:
            needed.update(catalog.method(op.rpc).scopes)
        except LookupError:  # a core older than this facade: that tool answers its own error
            continue
    return [scope.name for scope in catalog.message.scopes if scope.name in needed]


async def _first_scope(request: Request) -> str:
    """The scopes a 401 asks for, space-separated: every scope the tools need, so that an MCP
    client's first authorization (it asks for the challenge's `scope`) covers them all and a
    human approves the agent once (docs/oauth.md, "The /mcp gate"). Empty when the core's
    catalog cannot be had now (the challenge goes out without them rather than not at all)."""
    try:
        catalog = (await request.app.ctx.contract.get()).catalog
    except ApiError:
        return ""
    return " ".join(tool_scopes(catalog))


def _not_an_access_token(token: str) -> str:
    kind = next((what for prefix, what in _OTHER_CREDENTIALS.items() if token.startswith(prefix)), None)
    sent = kind or "not an OAuth access token"
    return f"/mcp accepts only OAuth access tokens issued by this server's authorization server; this is {sent}"


async def refusal_response(request: Request, refusal: GateRefusal) -> HTTPResponse:
    """401 / 403 with the RFC 6750 section 3 challenge (docs/oauth.md, "The /mcp gate"). A 401 also
    names the scopes to ask for (MCP 2025-11-25 and 2026-07-28, "scope selection": the client takes
    the challenge's `scope` first): every scope the tools need; a 403 names those the call lacked."""
    metadata_url = request.app.ctx.settings.resource_metadata_url
    scope = refusal.scope or (await _first_scope(request) if refusal.status == 401 else "")
    params = []
    if refusal.error:
        params.append(f'error="{refusal.error}"')
    if scope:
        params.append(f'scope="{scope}"')
    params.append(f'resource_metadata="{metadata_url}"')
    body = {"error": refusal.error or "invalid_token", "error_description": refusal.description}
    return json(body, status=refusal.status, headers={"WWW-Authenticate": "Bearer " + ", ".join(params)})
