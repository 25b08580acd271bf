"""POST /mcp: one JSON-RPC message in, one JSON answer out (MCP streamable HTTP, stateless,
JSON response mode). Messages are (de)serialized with the MCP SDK's own wire types.

The tools arrive with their own issue; this module holds the transport, the handshake, the
credential gate (every request is authenticated, there is no session) and `list_profiles`,
the first tool, which also shows how a tool maps core errors: a missing scope is an HTTP 403
challenge (so the client can re-authorize), anything else a tool result with `isError` and the
stable `code`.
"""

from __future__ import annotations

import json as jsonlib
from typing import Any
from urllib.parse import urlsplit

import mcp_types as types
from herald.identity.v1 import identity_pb2
from herald.profiles.v1 import profiles_pb2
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import ValidationError
from sanic import Blueprint, Request
from sanic.response import HTTPResponse, empty, json

from facades.errors import ApiError
from facades.mcp.gate import GateRefusal, access_token_authorization, refusal_response

SERVER_INFO = types.Implementation(name="herald", version="0.1.0")
INSTRUCTIONS = "Herald publishes and schedules posts to connected social profiles. Tools: tools/list."

LIST_PROFILES = types.Tool(
    name="list_profiles",
    description="List the organization's connected profiles, optionally filtered by tag.",
    input_schema={
        "type": "object",
        "properties": {
            "tag": {"type": "string", "description": "only profiles with this tag"},
            "page_size": {"type": "integer", "minimum": 1, "maximum": 100},
            "page_token": {"type": "string"},
        },
        "additionalProperties": False,
    },
)


def _dump(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def _result(message_id: Any, result: Any) -> HTTPResponse:
    body = result if isinstance(result, dict) else _dump(result)
    return json({"jsonrpc": "2.0", "id": message_id, "result": body})


def _error(message_id: Any, code: int, message: str, status: int = 200) -> HTTPResponse:
    return json({"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": message}}, status=status)


class _Call:
    """What one request needs to call the core as its token's principal."""

    def __init__(self, request: Request, authorization: str) -> None:
        self.core = request.app.ctx.core
        self.authorization = authorization
        self.audience = request.app.ctx.settings.mcp_resource

    async def __call__(self, method: Any, message: Any) -> Any:
        return (
            await self.core.call(method, message, authorization=self.authorization, audience=self.audience)
        ).response


def _refusal_from(error: ApiError, scope_hint: str = "") -> GateRefusal | None:
    if error.code == "UNAUTHORIZED":
        return GateRefusal(401, "invalid_token", error.message)
    if error.code == "INSUFFICIENT_SCOPE":
        return GateRefusal(403, "insufficient_scope", error.message, error.metadata.get("scope", scope_hint))
    if error.code == "FORBIDDEN":
        return GateRefusal(401, "invalid_token", error.message)
    return None


async def _list_profiles(call: _Call, arguments: dict[str, Any]) -> dict[str, Any]:
    request = profiles_pb2.ListProfilesRequest(
        tag=str(arguments.get("tag", "")),
        page_size=int(arguments.get("page_size", 0) or 0),
        page_token=str(arguments.get("page_token", "")),
    )
    response = await call(call.core.profiles.ListProfiles, request)
    profiles = [{"slug": p.slug, "connector": p.connector, "tags": list(p.tags)} for p in response.profiles]
    out: dict[str, Any] = {"profiles": profiles}
    if response.next_page_token:
        out["next_page_token"] = response.next_page_token
    return out


TOOLS = {"list_profiles": (LIST_PROFILES, _list_profiles, "posts:read")}


async def _call_tool(call: _Call, message_id: Any, params: dict[str, Any]) -> HTTPResponse:
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if name not in TOOLS or not isinstance(arguments, dict):
        return _error(
            message_id,
            types.INVALID_PARAMS,
            f"unknown tool {name!r}" if name not in TOOLS else "arguments must be an object",
        )
    _tool, handler, scope = TOOLS[name]
    try:
        output = await handler(call, arguments)
    except (ValueError, TypeError) as error:
        return _error(message_id, types.INVALID_PARAMS, f"invalid arguments: {error}")
    except ApiError as error:
        refusal = _refusal_from(error, scope)
        if refusal is not None:
            raise refusal from None
        failed = {"error": error.message, "code": error.code}
        content = [types.TextContent(type="text", text=jsonlib.dumps(failed))]
        return _result(message_id, types.CallToolResult(content=content, structured_content=failed, is_error=True))
    content = [types.TextContent(type="text", text=jsonlib.dumps(output))]
    return _result(message_id, types.CallToolResult(content=content, structured_content=output))


async def _check_token(call: _Call) -> None:
    """Authenticates a request that calls no tool (initialize, tools/list, ping)."""
    try:
        await call(call.core.identity.GetPrincipal, identity_pb2.GetPrincipalRequest())
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
        call = _Call(request, authorization)
        return await _dispatch(request, call)
    except GateRefusal as refusal:
        return refusal_response(request, refusal)


async def _dispatch(request: Request, call: _Call) -> HTTPResponse:
    accept = request.headers.get("accept", "")
    if "application/json" not in accept and "*/*" not in accept:
        return _error(None, types.INVALID_REQUEST, "Accept must include application/json", status=406)
    if (request.headers.get("content-type") or "").split(";")[0].strip().lower() != "application/json":
        return _error(None, types.INVALID_REQUEST, "Content-Type must be application/json", status=415)
    try:
        message = jsonlib.loads(request.body or b"")
    except (ValueError, UnicodeDecodeError):
        return _error(None, types.PARSE_ERROR, "the body is not JSON", status=400)
    if not isinstance(message, dict):
        return _error(None, types.INVALID_REQUEST, "send one JSON-RPC message (batches are not supported)", status=400)
    if "id" not in message:
        try:
            types.JSONRPCNotification.model_validate(message)
        except ValidationError:
            return _error(None, types.INVALID_REQUEST, "not a JSON-RPC message", status=400)
        await _check_token(call)
        return empty(status=202)
    try:
        rpc = types.JSONRPCRequest.model_validate(message)
    except ValidationError:
        return _error(message.get("id"), types.INVALID_REQUEST, "not a JSON-RPC request", status=400)
    params = rpc.params or {}
    if rpc.method == "tools/call":
        return await _call_tool(call, rpc.id, params)
    await _check_token(call)
    if rpc.method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
        result = types.InitializeResult(
            protocol_version=version,
            capabilities=types.ServerCapabilities(tools=types.ToolsCapability(list_changed=False)),
            server_info=SERVER_INFO,
            instructions=INSTRUCTIONS,
        )
        return _result(rpc.id, result)
    if rpc.method == "ping":
        return _result(rpc.id, {})
    if rpc.method == "tools/list":
        return _result(rpc.id, types.ListToolsResult(tools=[tool for tool, _, _ in TOOLS.values()]))
    return _error(rpc.id, types.METHOD_NOT_FOUND, f"method {rpc.method!r} is not supported")


async def mcp_not_allowed(request: Request) -> HTTPResponse:
    """SPEC 4: the endpoint is stateless and POST-only; GET (no server stream) and DELETE (no
    session) answer 405 with `Allow: POST`."""
    return json({"error": "use POST", "code": "METHOD_NOT_ALLOWED"}, status=405, headers={"Allow": "POST"})


def mcp_blueprint() -> Blueprint:
    bp = Blueprint("mcp")
    bp.add_route(mcp_post, "/mcp", methods=["POST"], name="post")
    bp.add_route(mcp_not_allowed, "/mcp", methods=["GET", "DELETE", "PUT", "PATCH"], name="not_allowed")
    return bp
