"""The streamable HTTP transport of /mcp, for both eras of the protocol on one endpoint.

- The handshake era (2024-11-05 to 2025-11-25): `initialize`, then requests whose
  `MCP-Protocol-Version` header names the negotiated revision (none: 2025-03-26).
- The stateless era (2026-07-28): every request carries its revision in
  `params._meta["io.modelcontextprotocol/protocolVersion"]`, the same value in the
  `MCP-Protocol-Version` header, and the `Mcp-Method` / `Mcp-Name` headers mirroring the body.

A request is modern when its `_meta` carries a protocol version, or when its header names a
known revision that is not a handshake one (a 2026-07-28 header without the `_meta` is then
refused, as the revision asks). The modern checks are the SDK's own ladder
(`mcp.shared.inbound`): the same rungs, in the same order, with the same error codes and HTTP
statuses as the SDK's server; only the list of supported versions is ours, since Herald serves
both eras.

Answers are JSON, or one SSE event when the client accepts only `text/event-stream`.
"""

from __future__ import annotations

import json as jsonlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import mcp_types as types
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    InboundLadderRejection,
    classify_inbound_request,
    find_duplicated_routing_header,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from pydantic_core import from_json
from sanic import Request
from sanic.response import HTTPResponse, empty, json

MCP_PROTOCOL_VERSION = "mcp-protocol-version"
# What Herald speaks, newest first (UnsupportedProtocolVersionError's `supported`, and discovery's).
SUPPORTED_VERSIONS = tuple(reversed(KNOWN_PROTOCOL_VERSIONS))
_SERVED = frozenset(SUPPORTED_VERSIONS)


@dataclass(frozen=True, slots=True)
class Exchange:
    """One JSON-RPC request, read and checked: its id, method and params, and the revision it
    speaks. `modern` is the 2026-07-28-era revision, or None in the handshake era."""

    id: Any
    method: str
    params: dict[str, Any]
    modern: str | None


class Notification:
    """A JSON-RPC notification, read and checked: acknowledged with 202 once authenticated."""


NOTIFICATION = Notification()


def _wants_sse(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return "application/json" not in accept and "*/*" not in accept and "text/event-stream" in accept


def answer(request: Request, message: dict[str, Any], status: int = 200) -> HTTPResponse:
    """A JSON-RPC message as the client asked for it: JSON, or one SSE `message` event."""
    if status == 200 and _wants_sse(request):
        data = jsonlib.dumps(message, ensure_ascii=False, separators=(",", ":"))
        return HTTPResponse(
            f"event: message\r\ndata: {data}\r\n\r\n",
            content_type="text/event-stream",
            headers={"Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no"},
        )
    return json(message, status=status)


def result(request: Request, message_id: Any, body: dict[str, Any]) -> HTTPResponse:  # a JSON-RPC id
    return answer(request, {"jsonrpc": "2.0", "id": message_id, "result": body})


def error(
    request: Request,
    message_id: Any,  # a JSON-RPC id
    code: int,
    message: str,
    status: int = 200,
    data: Any = None,
) -> HTTPResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return answer(request, {"jsonrpc": "2.0", "id": message_id, "error": body}, status=status)


def modern_error(request: Request, message_id: Any, code: int, message: str, data: Any = None) -> HTTPResponse:
    """A 2026-07-28 error, with the HTTP status its code has on that revision's wire."""
    return error(request, message_id, code, message, ERROR_CODE_HTTP_STATUS.get(code, 200), data)


def unsupported_version(request: Request, message_id: Any, requested: str) -> HTTPResponse:
    data = types.UnsupportedProtocolVersionErrorData(supported=list(SUPPORTED_VERSIONS), requested=requested[:40])
    return error(
        request,
        message_id,
        types.UNSUPPORTED_PROTOCOL_VERSION,
        f"unsupported protocol version {requested[:40]!r}",
        status=400,
        data=data.model_dump(mode="json"),
    )


def foreign_origin(request: Request) -> bool:
    """MCP streamable HTTP: servers must check `Origin` (DNS rebinding). Agents send none;
    a browser page may call only from {base_url}'s own origin."""
    origin = request.headers.get("origin")
    if origin is None:
        return False
    base = urlsplit(request.app.ctx.settings.base_url)
    return origin.rstrip("/") != f"{base.scheme}://{base.netloc}"


def _header_refusal(request: Request) -> HTTPResponse | None:
    """The HTTP rules checked before the body is read."""
    accept = request.headers.get("accept", "")
    if not any(kind in accept for kind in ("application/json", "text/event-stream", "*/*")):
        accepts = "Accept must include application/json or text/event-stream"
        return error(request, None, types.INVALID_REQUEST, accepts, status=406)
    if (request.headers.get("content-type") or "").split(";")[0].strip().lower() != "application/json":
        return error(request, None, types.INVALID_REQUEST, "Content-Type must be application/json", status=415)
    return None


# RFC 9110 5.5: a field value excludes the optional whitespace around it. Sanic strips only
# the leading part, and the MCP header rules compare values exactly.
_OWS = " \t"


def _field_values(request: Request, name: str) -> list[str]:
    return [value.strip(_OWS) for value in request.headers.getall(name, [])]


def field_value(request: Request, name: str) -> str | None:
    """A header's (first) value without its optional whitespace; None when absent."""
    return next(iter(_field_values(request, name)), None)


def _version_refusal(request: Request, message_id: Any) -> HTTPResponse | None:  # a JSON-RPC id
    """`MCP-Protocol-Version`, when sent, must be one revision Herald speaks (either era)."""
    versions = _field_values(request, MCP_PROTOCOL_VERSION)
    if len(versions) > 1:
        return unsupported_version(request, message_id, ", ".join(versions))
    if versions and versions[0] not in _SERVED:
        return unsupported_version(request, message_id, versions[0])
    return None


def _carries_modern_meta(message: dict[str, Any]) -> bool:
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and types.PROTOCOL_VERSION_META_KEY in meta


def _modern_exchange(request: Request, message: dict[str, Any], rpc: types.JSONRPCRequest) -> Exchange | HTTPResponse:
    """The 2026-07-28 ladder: routing headers given once and equal to the body, then the version."""
    duplicated = find_duplicated_routing_header(request.headers.items())
    if duplicated is not None:
        return modern_error(request, rpc.id, types.HEADER_MISMATCH, f"the {duplicated} header appears more than once")
    headers = {name.lower(): value.strip(_OWS) for name, value in request.headers.items()}
    verdict = classify_inbound_request(message, headers=headers, supported_modern_versions=MODERN_PROTOCOL_VERSIONS)
    if isinstance(verdict, InboundLadderRejection):
        if verdict.code == types.UNSUPPORTED_PROTOCOL_VERSION:
            return unsupported_version(request, rpc.id, str(verdict.data["requested"]))
        return modern_error(request, rpc.id, verdict.code, verdict.message)
    return Exchange(rpc.id, rpc.method, dict(rpc.params or {}), verdict.protocol_version)


def read_exchange(request: Request) -> Exchange | Notification | HTTPResponse:
    """The request's one JSON-RPC message, checked against its era's transport rules; or the
    refusal to send back."""
    if (refused := _header_refusal(request)) is not None:
        return refused
    try:
        # pydantic-core's parser: invalid Unicode and nesting past 200 levels are parse errors
        # too, not a stack overflow.
        message = from_json(request.body or b"")
    except ValueError as parse_error:
        return error(request, None, types.PARSE_ERROR, f"the body is not valid JSON: {str(parse_error)[:120]}", 400)
    if not isinstance(message, dict):
        return error(request, None, types.INVALID_REQUEST, "send one JSON-RPC message (batches are not supported)", 400)
    if "id" not in message:
        try:
            types.JSONRPCNotification.model_validate(message)
        except ValidationError:
            return error(request, None, types.INVALID_REQUEST, "not a JSON-RPC message", status=400)
        return _version_refusal(request, None) or NOTIFICATION
    try:
        rpc = types.JSONRPCRequest.model_validate(message)
    except ValidationError:
        return error(request, message.get("id"), types.INVALID_REQUEST, "not a JSON-RPC request", status=400)
    if (refused := _version_refusal(request, rpc.id)) is not None:
        return refused
    header = field_value(request, MCP_PROTOCOL_VERSION)
    if _carries_modern_meta(message) or (header is not None and header not in HANDSHAKE_PROTOCOL_VERSIONS):
        return _modern_exchange(request, message, rpc)
    return Exchange(rpc.id, rpc.method, dict(rpc.params or {}), None)


def accepted() -> HTTPResponse:
    return empty(status=202)
