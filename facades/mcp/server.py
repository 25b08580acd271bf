"""POST /mcp: one JSON-RPC message in, one JSON answer out (MCP streamable HTTP, stateless,
JSON response mode), for the handshake revisions (2024-11-05 to 2025-11-25). Messages are
checked with the MCP SDK's own wire types; the tools are the operation table's (tools.py).

Every request is authenticated (there is no session): the credential gate first, then the
transport's headers, then the message.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import mcp_types as types
from herald.identity.v1 import identity_pb2
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import ValidationError
from pydantic_core import from_json
from sanic import Blueprint, Request
from sanic.response import HTTPResponse, empty, json

from contract.operations import TOOLS
from facades.errors import ApiError
from facades.mcp.gate import GateRefusal, access_token_authorization, refusal_response
from facades.mcp.tools import ACCESS_CODES, ToolCall, list_tools, tool_error

SERVER_INFO = types.Implementation(name="herald", title="Herald", version="0.1.0")
INSTRUCTIONS = (
    "Herald publishes and schedules posts to the organization's connected social profiles. "
    "Typical flow: list_profiles (pick slugs) → optionally create_media, PUT the bytes, confirm_media → "
    "create_post with the slugs (and media_ids; send an idempotency_key to retry safely) → get_post or "
    "list_posts to follow the status. Failures come back as tool errors with a stable `code`."
)
MCP_PROTOCOL_VERSION = "mcp-protocol-version"
# The transport spec: a request without the header is taken as 2025-03-26.
DEFAULT_PROTOCOL_VERSION = "2025-03-26"


def _result(message_id: Any, result: dict[str, Any]) -> HTTPResponse:  # noqa: ANN401 - a JSON-RPC id
    return json({"jsonrpc": "2.0", "id": message_id, "result": result})


def _error(message_id: Any, code: int, message: str, status: int = 200, data: Any = None) -> HTTPResponse:  # noqa: ANN401
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return json({"jsonrpc": "2.0", "id": message_id, "error": error}, status=status)


def _refusal_from(error: ApiError) -> GateRefusal | None:
    if error.code in ("UNAUTHORIZED", "FORBIDDEN"):
        return GateRefusal(401, "invalid_token", error.message)
    if error.code == "INSUFFICIENT_SCOPE":
        # MCP authorization: one challenge naming every scope the call needs.
        return GateRefusal(403, "insufficient_scope", error.message, error.metadata.get("scope", ""))
    return None


async def _check_token(request: Request, authorization: str) -> None:
    """Authenticates a request that calls no tool (initialize, tools/list, ping)."""
    core = request.app.ctx.core
    try:
        await core.call(
            core.identity.GetPrincipal,
            identity_pb2.GetPrincipalRequest(),
            authorization=authorization,
            audience=request.app.ctx.settings.mcp_resource,
        )
    except ApiError as error:
        if error.code == "SUBSCRIPTION_REQUIRED":
            return  # a valid token: its tools will answer SUBSCRIPTION_REQUIRED
        refusal = _refusal_from(error)
        if refusal is not None:
            raise refusal from None
        raise


def _foreign_origin(request: Request) -> bool:
    """MCP streamable HTTP: servers must check `Origin` (DNS rebinding). Agents send none;
    a browser page may call only from {base_url}'s own origin."""
    origin = request.headers.get("origin")
    if origin is None:
        return False
    base = urlsplit(request.app.ctx.settings.base_url)
    return origin.rstrip("/") != f"{base.scheme}://{base.netloc}"


async def mcp_post(request: Request) -> HTTPResponse:
    if _foreign_origin(request):
        return json({"error": "forbidden_origin", "error_description": "cross-origin requests are refused"}, status=403)
    try:
        authorization = access_token_authorization(request)
        return await _dispatch(request, authorization)
    except GateRefusal as refusal:
        return await refusal_response(request, refusal)


def _transport_error(request: Request) -> HTTPResponse | None:
    """The streamable HTTP transport's header rules, before the message is read."""
    accept = request.headers.get("accept", "")
    if "application/json" not in accept and "*/*" not in accept:
        return _error(None, types.INVALID_REQUEST, "Accept must include application/json", status=406)
    if (request.headers.get("content-type") or "").split(";")[0].strip().lower() != "application/json":
        return _error(None, types.INVALID_REQUEST, "Content-Type must be application/json", status=415)
    versions = request.headers.getall(MCP_PROTOCOL_VERSION, [])
    if len(versions) > 1 or (versions and versions[0] not in HANDSHAKE_PROTOCOL_VERSIONS):
        # 2025-06-18 transport: an invalid or unsupported version is 400 Bad Request.
        requested = versions[0] if len(versions) == 1 else ", ".join(versions)
        return _error(
            None,
            types.UNSUPPORTED_PROTOCOL_VERSION,
            f"unsupported MCP-Protocol-Version {requested[:40]!r}",
            status=400,
            data={"supported": list(HANDSHAKE_PROTOCOL_VERSIONS), "requested": requested[:40]},
        )
    return None


async def _dispatch(request: Request, authorization: str) -> HTTPResponse:
    if (refused := _transport_error(request)) is not None:
        return refused
    try:
        # pydantic-core's parser: invalid Unicode and nesting past 200 levels are parse errors
        # too, not a stack overflow.
        message = from_json(request.body or b"")
    except ValueError as error:
        return _error(None, types.PARSE_ERROR, f"the body is not valid JSON: {str(error)[:120]}", status=400)
    if not isinstance(message, dict):
        return _error(None, types.INVALID_REQUEST, "send one JSON-RPC message (batches are not supported)", 400)
    if "id" not in message:
        try:
            types.JSONRPCNotification.model_validate(message)
        except ValidationError:
            return _error(None, types.INVALID_REQUEST, "not a JSON-RPC message", status=400)
        await _check_token(request, authorization)
        return empty(status=202)
    try:
        rpc = types.JSONRPCRequest.model_validate(message)
    except ValidationError:
        return _error(message.get("id"), types.INVALID_REQUEST, "not a JSON-RPC request", status=400)
    params = rpc.params or {}
    if rpc.method == "tools/call":
        return await _call_tool(request, authorization, rpc.id, params)
    await _check_token(request, authorization)
    if rpc.method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
        result = types.InitializeResult(
            protocol_version=version,
            capabilities=types.ServerCapabilities(tools=types.ToolsCapability(list_changed=False)),
            server_info=SERVER_INFO,
            instructions=INSTRUCTIONS,
        )
        return _result(rpc.id, result.model_dump(by_alias=True, exclude_none=True, mode="json"))
    if rpc.method == "ping":
        return _result(rpc.id, {})
    if rpc.method == "tools/list":
        return _result(rpc.id, list_tools(await request.app.ctx.contract.get()))
    return _error(rpc.id, types.METHOD_NOT_FOUND, f"method {rpc.method[:80]!r} is not supported")


async def _call_tool(request: Request, authorization: str, message_id: Any, params: dict[str, Any]) -> HTTPResponse:  # noqa: ANN401
    name = params.get("name")
    arguments = params.get("arguments", {})
    # Protocol faults (JSON-RPC errors): an unknown tool, or params that are not a tools/call's.
    if not isinstance(name, str) or name not in TOOLS:
        await _check_token(request, authorization)
        return _error(message_id, types.INVALID_PARAMS, f"unknown tool {str(name)[:80]!r}; see tools/list")
    if not isinstance(arguments, dict):
        await _check_token(request, authorization)
        return _error(message_id, types.INVALID_PARAMS, "arguments must be an object")
    settings = request.app.ctx.settings
    call = ToolCall(request.app.ctx.core, authorization, settings.mcp_resource)
    try:
        result = await call.run(TOOLS[name], await request.app.ctx.contract.get(), arguments)
    except ApiError as error:
        refusal = _refusal_from(error) if error.code in ACCESS_CODES else None
        if refusal is not None:
            raise refusal from None
        result = tool_error(error)
    return _result(message_id, result)


async def mcp_not_allowed(request: Request) -> HTTPResponse:
    """SPEC 4: the endpoint is stateless and POST-only; every other method (GET: no server
    stream; DELETE: no session; HEAD, OPTIONS, PUT, PATCH) answers 405 with `Allow: POST`."""
    return json({"error": "use POST", "code": "METHOD_NOT_ALLOWED"}, status=405, headers={"Allow": "POST"})


def mcp_blueprint() -> Blueprint:
    bp = Blueprint("mcp")
    bp.add_route(mcp_post, "/mcp", methods=["POST"], name="post")
    bp.add_route(
        mcp_not_allowed, "/mcp", methods=["GET", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"], name="not_allowed"
    )
    return bp
