"""The /v1 routes, registered from the operation table (contract/operations.py): one generic
handler per operation reads its arguments from path, query, headers and body, checks them
against the catalog-bound model, calls the core method and renders the response model."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from contract.operation import Operation
from contract.operations import OPERATIONS
from facades.errors import ApiError
from facades.rest.arguments import http_fields, read_arguments
from facades.rest.auth import api_key_authorization
from facades.rest.media_upload import upload
from facades.rest.respond import ok, reject_after_auth
from facades.validation import validate

# Operations served by a handler of their own (streamed request bodies).
CUSTOM_HANDLERS: dict[str, Callable[..., Awaitable[HTTPResponse]]] = {"uploadMediaLegacy": upload}


def sanic_path(path: str) -> str:
    """`/v1/posts/{post_id}` → `/v1/posts/<post_id:str>`. A segment holding a custom method
    (`/v1/posts:validate`, AIP-136) becomes a one-value pattern: Sanic's router percent-encodes
    the `:` of a static segment and would never match the request's literal `:`."""
    parts = []
    for part in path.split("/"):
        if ":" in part and not part.startswith("{"):
            part = "<custom_method:" + re.escape(part).replace(":", r"\:") + ">"
        parts.append(re.sub(r"\{(\w+)\}", r"<\1:str>", part))
    return "/".join(parts)


def _handler(op: Operation) -> Callable[..., Awaitable[HTTPResponse]]:
    fields = http_fields(op.request)

    async def handle(request: Request, **path_params: str) -> HTTPResponse:
        authorization = api_key_authorization(request)
        contract = await request.app.ctx.contract.get()
        try:
            arguments = read_arguments(request, fields, path_params)
            message = validate(contract.model(op.request), arguments).to_proto()
        except ApiError as error:
            return await reject_after_auth(request, authorization, op.rpc, error)
        core = request.app.ctx.core
        result = await core.call(core.method(op.rpc), message, authorization=authorization)
        status, body = op.render(result.response, contract)
        return ok(result, body, status)

    handle.__name__ = op.id
    return handle


def rest_blueprint() -> Blueprint:
    bp = Blueprint("rest_v1")
    for op in OPERATIONS:
        custom = CUSTOM_HANDLERS.get(op.id)
        bp.add_route(
            custom or _handler(op), sanic_path(op.path), methods=[op.method], name=op.id, stream=custom is not None
        )
    return bp
