"""POST /mcp: one JSON-RPC message in, one answer out (MCP streamable HTTP, stateless), for
every live revision on the same endpoint: the handshake ones (2024-11-05 to 2025-11-25) and
2026-07-28 (transport.py tells them apart and checks each by its own rules). Messages and
results are the MCP SDK's wire types; the tools are the operation table's (tools.py).

Every request is authenticated (there is no session): the credential gate first, then the
transport's headers, then the message.
"""

from __future__ import annotations

import json as jsonlib
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from herald.identity.v1 import identity_pb2
from mcp.shared.inbound import decode_header_value
from mcp_types.methods import validate_client_request
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import BaseModel, ValidationError
from sanic import Blueprint, Request
from sanic.response import HTTPResponse, json

from contract.operations import TOOLS
from facades.errors import ApiError
from facades.mcp import apps, tasks
from facades.mcp.gate import GateRefusal, access_token_authorization, refusal_response
from facades.mcp.icons import server_info
from facades.mcp.tools import ToolCall, access_failure, list_tools, tool_error
from facades.mcp.transport import (
    SUPPORTED_VERSIONS,
    Exchange,
    Notification,
    accepted,
    error,
    field_value,
    foreign_origin,
    modern_error,
    read_exchange,
    result,
)

CAPABILITIES = types.ServerCapabilities(
    tools=types.ToolsCapability(list_changed=False),
    resources=types.ResourcesCapability(list_changed=False),
    extensions={**apps.capabilities(), tasks.EXTENSION_ID: {}},
)
INSTRUCTIONS = (
    "Herald publishes and schedules posts to the organization's connected social profiles. "
    "Typical flow: list_profiles (pick slugs) → optionally create_media, PUT the bytes, confirm_media → "
    "create_post with the slugs (and media_ids; send an idempotency_key to retry safely) → get_post or "
    "list_posts to follow the status, list_post_events for a post's history (each attempt and why it failed). "
    "Failures come back as tool errors with a stable `code`."
)
# Caching hints (2026-07-28): the tools and the server's description change only with a
# deployment, and are the same for every caller.
TOOLS_TTL_MS = 300_000
# A task whose run cannot be read for a reason of the organization's (e.g. no plan): an
# implementation-defined server error (-32000..-32019), the tool error as its data.
TASK_UNREADABLE = -32000
DISCOVER_TTL_MS = 3_600_000


def _refusal_from(failure: ApiError) -> GateRefusal | None:
    if failure.code in ("UNAUTHORIZED", "FORBIDDEN"):
        return GateRefusal(401, "invalid_token", failure.message)
    if failure.code == "INSUFFICIENT_SCOPE":
        # MCP authorization: one challenge naming every scope the call needs.
        return GateRefusal(403, "insufficient_scope", failure.message, failure.metadata.get("scope", ""))
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
    except ApiError as failure:
        if failure.code == "SUBSCRIPTION_REQUIRED":
            return  # a valid token: its tools will answer SUBSCRIPTION_REQUIRED
        refusal = _refusal_from(failure)
        if refusal is not None:
            raise refusal from None
        raise


async def mcp_post(request: Request) -> HTTPResponse:
    if foreign_origin(request):
        return json({"error": "forbidden_origin", "error_description": "cross-origin requests are refused"}, status=403)
    try:
        authorization = access_token_authorization(request)
        return await _dispatch(request, authorization)
    except GateRefusal as refusal:
        return await refusal_response(request, refusal)


def _dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def _complete(exchange: Exchange, body: dict[str, Any], cache: tuple[int, str] | None = None) -> dict[str, Any]:
    """A result as the exchange's revision wants it: 2026-07-28 tags every result with its
    `resultType` and puts caching hints (`ttlMs`, `cacheScope`) on list results."""
    if exchange.modern is None:
        return body
    body = {**body, "resultType": "complete"}
    if cache is not None:
        body["ttlMs"], body["cacheScope"] = cache
    return body


async def _fault(
    request: Request,
    authorization: str,
    exchange: Exchange,
    code: int,
    message: str,
    data: Any = None,  # the error's data
) -> HTTPResponse:
    """A protocol fault, once the token is known good (access is checked before anything else).
    On 2026-07-28 the code decides the HTTP status (404 for an unknown method, 400 for bad
    params); the handshake revisions answer 200."""
    await _check_token(request, authorization)
    if exchange.modern is not None:
        return modern_error(request, exchange.id, code, message, data)
    return error(request, exchange.id, code, message, data=data)


async def _dispatch(request: Request, authorization: str) -> HTTPResponse:
    exchange = read_exchange(request)
    if isinstance(exchange, HTTPResponse):
        return exchange
    if isinstance(exchange, Notification):
        await _check_token(request, authorization)
        return accepted()
    method = exchange.method[:80]
    if exchange.modern is not None and exchange.method in tasks.METHODS:
        return await _task_method(request, authorization, exchange)  # an extension's: not in the core types
    if exchange.modern is not None:
        # The revision's own request shapes (the SDK's wire types): a method the revision
        # does not have (initialize, ping) is unknown, params it does not allow are invalid.
        try:
            validate_client_request(exchange.method, exchange.modern, exchange.params)
        except KeyError:
            return await _fault(request, authorization, exchange, types.METHOD_NOT_FOUND, f"no method {method!r}")
        except ValidationError as invalid:
            problem = invalid.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            text = f"invalid params for {method!r}: {where}: {problem['msg']}"
            return await _fault(request, authorization, exchange, types.INVALID_PARAMS, text)
    handler = (MODERN_METHODS if exchange.modern else HANDSHAKE_METHODS).get(exchange.method)
    if handler is None:
        return await _fault(
            request, authorization, exchange, types.METHOD_NOT_FOUND, f"method {method!r} is not supported"
        )
    return await handler(request, authorization, exchange)


async def _initialize(request: Request, authorization: str, exchange: Exchange) -> HTTPResponse:
    await _check_token(request, authorization)
    asked = exchange.params.get("protocolVersion")
    version = asked if asked in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    initialized = types.InitializeResult(
        protocol_version=version,
        capabilities=CAPABILITIES,
        server_info=server_info(request.app.ctx.settings.base_url),
        instructions=INSTRUCTIONS,
    )
    return result(request, exchange.id, _dump(initialized))


async def _discover(request: Request, authorization: str, exchange: Exchange) -> HTTPResponse:
    await _check_token(request, authorization)
    discovered = types.DiscoverResult(
        supported_versions=list(SUPPORTED_VERSIONS),
        capabilities=CAPABILITIES,
        instructions=INSTRUCTIONS,
        ttl_ms=DISCOVER_TTL_MS,
        cache_scope="public",
        _meta={types.SERVER_INFO_META_KEY: _dump(server_info(request.app.ctx.settings.base_url))},
    )
    return result(request, exchange.id, _dump(discovered))


async def _ping(request: Request, authorization: str, exchange: Exchange) -> HTTPResponse:
    await _check_token(request, authorization)
    return result(request, exchange.id, {})


async def _list_tools(request: Request, authorization: str, exchange: Exchange) -> HTTPResponse:
    await _check_token(request, authorization)
    # The same list for every caller (the table's tools; scopes are checked per call).
    listed = list_tools(await request.app.ctx.contract.get(), request.app.ctx.settings.base_url)
    return result(request, exchange.id, _complete(exchange, listed, cache=(TOOLS_TTL_MS, "public")))


async def _call_tool(request: Request, authorization: str, exchange: Exchange) -> HTTPResponse:
    name = exchange.params.get("name")
    arguments = exchange.params.get("arguments", {})
    # Protocol faults (JSON-RPC errors): an unknown tool, or params that are not a tools/call's.
    if not isinstance(name, str) or name not in TOOLS:
        unknown = f"unknown tool {str(name)[:80]!r}; see tools/list"
        return await _fault(request, authorization, exchange, types.INVALID_PARAMS, unknown)
    if not isinstance(arguments, dict):
        return await _fault(request, authorization, exchange, types.INVALID_PARAMS, "arguments must be an object")
    called = await _run_tool(request, authorization, name, arguments)
    # A client that takes tasks: a run that outlasted the call's wait is answered as one.
    takes_tasks = exchange.modern is not None and tasks.negotiated(exchange.params, types.CLIENT_CAPABILITIES_META_KEY)
    if takes_tasks and (task := tasks.created(name, called)) is not None:
        return result(request, exchange.id, task)
    return result(request, exchange.id, _complete(exchange, called))


async def _run_tool(request: Request, authorization: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One tool's CallToolResult as the token's principal. A bad token or a missing scope is not
    a result: it is the HTTP challenge (401 / 403) a client re-authorizes from."""
    call = ToolCall(request.app.ctx.core, authorization, request.app.ctx.settings.mcp_resource)
    try:
        return await call.run(TOOLS[name], await request.app.ctx.contract.get(), arguments)
    except ApiError as failure:
        refusal = _refusal_from(failure) if access_failure(failure) else None
        if refusal is not None:
            raise refusal from None
        return tool_error(failure)


async def _task_method(request: Request, authorization: str, exchange: Exchange) -> HTTPResponse:
    """tasks/get, tasks/update, tasks/cancel (2026-07-28, the tasks extension): the task is the
    run, read with the tool that collects it, as the caller (its scopes, its organization)."""
    if not tasks.negotiated(exchange.params, types.CLIENT_CAPABILITIES_META_KEY):
        # The extension's methods are for clients that declare it (SEP-2663: -32021, naming it).
        await _check_token(request, authorization)
        required = types.MissingRequiredClientCapabilityErrorData(
            required_capabilities=types.ClientCapabilities(extensions={tasks.EXTENSION_ID: {}})
        ).model_dump(by_alias=True, exclude_none=True, mode="json")
        missing = f"{exchange.method} needs the {tasks.EXTENSION_ID} extension in the client capabilities"
        return modern_error(request, exchange.id, types.MISSING_REQUIRED_CLIENT_CAPABILITY, missing, required)
    task_id = exchange.params.get("taskId")
    if not isinstance(task_id, str) or not task_id:
        return await _fault(request, authorization, exchange, types.INVALID_PARAMS, "taskId must be a string")
    if decode_header_value(field_value(request, "mcp-name")) != task_id:
        # The extension's routing header: Mcp-Name mirrors params.taskId.
        return modern_error(request, exchange.id, types.HEADER_MISMATCH, "mcp-name header does not match taskId")
    kind = tasks.kind_of(task_id)
    if kind is None:
        return await _fault(request, authorization, exchange, types.INVALID_PARAMS, f"no task {task_id[:80]!r}")
    read = await _run_tool(request, authorization, kind.reader, {"run_id": task_id})
    if read.get("isError"):
        failure = jsonlib.loads(read["content"][0]["text"])
        if failure["code"] in ("NOT_FOUND", "VALIDATION_ERROR"):
            return modern_error(request, exchange.id, types.INVALID_PARAMS, f"no task {task_id[:80]!r}")
        return modern_error(request, exchange.id, TASK_UNREADABLE, failure["error"], data=failure)
    if exchange.method != "tasks/get":
        # tasks/update: nothing of Herald's asks for input. tasks/cancel: acknowledged, not
        # honoured (cooperative in the extension; a run keeps its charge unless it fails).
        return result(request, exchange.id, {"resultType": "complete"})
    return result(request, exchange.id, tasks.detailed(task_id, kind, read))


async def _list_resources(request: Request, authorization: str, exchange: Exchange) -> HTTPResponse:
    await _check_token(request, authorization)
    return result(request, exchange.id, _complete(exchange, apps.list_resources(), cache=(TOOLS_TTL_MS, "public")))


async def _read_resource(request: Request, authorization: str, exchange: Exchange) -> HTTPResponse:
    uri = exchange.params.get("uri")
    read = apps.read_resource(uri) if isinstance(uri, str) else None
    if read is None:
        # Resources spec: an unknown resource is -32602 (invalid params), naming the uri.
        missing = f"no resource {str(uri)[:120]!r}"
        return await _fault(request, authorization, exchange, types.INVALID_PARAMS, missing, {"uri": uri})
    await _check_token(request, authorization)
    return result(request, exchange.id, _complete(exchange, read, cache=(TOOLS_TTL_MS, "public")))


async def _list_resource_templates(request: Request, authorization: str, exchange: Exchange) -> HTTPResponse:
    """Herald's one resource has a fixed URI: no templates."""
    await _check_token(request, authorization)
    return result(request, exchange.id, _complete(exchange, {"resourceTemplates": []}, cache=(TOOLS_TTL_MS, "public")))


Handler = Callable[[Request, str, Exchange], Awaitable[HTTPResponse]]
HANDSHAKE_METHODS: dict[str, Handler] = {
    "initialize": _initialize,
    "ping": _ping,
    "tools/list": _list_tools,
    "tools/call": _call_tool,
    "resources/list": _list_resources,
    "resources/read": _read_resource,
    "resources/templates/list": _list_resource_templates,
}
# 2026-07-28: no initialize and no ping; server/discover is mandatory.
MODERN_METHODS: dict[str, Handler] = {
    "server/discover": _discover,
    "tools/list": _list_tools,
    "tools/call": _call_tool,
    "resources/list": _list_resources,
    "resources/read": _read_resource,
    "resources/templates/list": _list_resource_templates,
}


async def mcp_not_allowed(request: Request) -> HTTPResponse:
    """The endpoint is stateless and POST-only (docs/mcp.md, "Protocol"); every other method (GET:
    no server stream; DELETE: no session; HEAD, OPTIONS, PUT, PATCH) answers 405 with `Allow: POST`."""
    return json({"error": "use POST", "code": "METHOD_NOT_ALLOWED"}, status=405, headers={"Allow": "POST"})


def mcp_blueprint() -> Blueprint:
    bp = Blueprint("mcp")
    bp.add_route(mcp_post, "/mcp", methods=["POST"], name="post")
    bp.add_route(
        mcp_not_allowed, "/mcp", methods=["GET", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"], name="not_allowed"
    )
    return bp
