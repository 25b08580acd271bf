"""The /mcp credential rule (SPEC 5, 7): only user-bound OAuth access tokens whose audience is
{base_url}/mcp. API keys, dashboard sessions and client_credentials tokens are refused.

The facade checks the shape; the core checks the token (hash lookup, expiry, revocation, grant,
membership, and the audience this facade sends as `herald-audience`).
"""

from __future__ import annotations

from sanic import Request
from sanic.response import HTTPResponse, json

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


async def _advertised_scope(request: Request) -> str:
    """The scopes of the protected resource metadata, space-separated; empty when the core's
    catalog cannot be had now (the challenge goes out without them rather than not at all)."""
    try:
        catalog = (await request.app.ctx.contract.get()).catalog
    except ApiError:
        return ""
    return " ".join(catalog.advertised_scopes)


def _not_an_access_token(token: str) -> str:
    kind = next((what for prefix, what in _OTHER_CREDENTIALS.items() if token.startswith(prefix)), None)
    sent = kind or "not an OAuth access token"
    return f"/mcp accepts only OAuth access tokens issued by this server's authorization server; this is {sent}"


async def refusal_response(request: Request, refusal: GateRefusal) -> HTTPResponse:
    """401 / 403 with the RFC 6750 3 challenge SPEC 7 lists. A 401 also names the scopes to ask
    for (MCP 2025-11-25 and 2026-07-28, "scope selection": the client takes the challenge's
    `scope` first): those the protected resource metadata advertises; a 403 names those the
    call lacked."""
    metadata_url = request.app.ctx.settings.resource_metadata_url
    scope = refusal.scope or (await _advertised_scope(request) if refusal.status == 401 else "")
    params = []
    if refusal.error:
        params.append(f'error="{refusal.error}"')
    if scope:
        params.append(f'scope="{scope}"')
    params.append(f'resource_metadata="{metadata_url}"')
    body = {"error": refusal.error or "invalid_token", "error_description": refusal.description}
    return json(body, status=refusal.status, headers={"WWW-Authenticate": "Bearer " + ", ".join(params)})
