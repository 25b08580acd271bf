"""The /v1 surface rule for credentials (docs/api.md, "Authentication"): only `svc_` API keys, as
Bearer tokens.

The facade checks only the shape; the core decides whether the key is valid.
"""

from __future__ import annotations

from sanic import Request

from facades.errors import ApiError

API_KEY_PREFIX = "svc_"


def api_key_authorization(request: Request) -> str:
    """The Authorization value to forward to the core, or UNAUTHORIZED."""
    headers = request.headers.getall("authorization", [])
    if not headers:
        raise ApiError("UNAUTHORIZED", "missing credential: send Authorization: Bearer <API key>")
    if len(headers) > 1:
        raise ApiError("UNAUTHORIZED", "send exactly one Authorization header")
    scheme, _, token = headers[0].strip().partition(" ")
    token = token.strip()
    # gRPC metadata carries only printable ASCII; no valid credential has anything else.
    if scheme.lower() != "bearer" or not token or not (token.isascii() and token.isprintable()) or " " in token:
        raise ApiError("UNAUTHORIZED", "malformed Authorization header: expected 'Bearer <API key>'")
    if not token.startswith(API_KEY_PREFIX):
        raise ApiError("UNAUTHORIZED", "the REST API accepts only API keys (svc_…); OAuth tokens belong at /mcp")
    return f"Bearer {token}"
