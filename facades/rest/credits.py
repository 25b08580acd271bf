"""GET /v1/credits and GET /v1/credits/ledger."""

from __future__ import annotations

from herald.credits.v1 import credits_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.rest import render
from facades.rest.auth import api_key_authorization
from facades.rest.respond import int_arg, ok, page, reject_after_auth

bp = Blueprint("credits", url_prefix="/credits")


@bp.get("")
async def get_credits(request: Request) -> HTTPResponse:
    authorization = api_key_authorization(request)
    recent = int_arg(request, "ledger_limit", 20)
    if isinstance(recent, ApiError):
        return await reject_after_auth(request, authorization, recent)
    core = request.app.ctx.core
    result = await core.call(
        core.credits.GetCreditAccount,
        credits_pb2.GetCreditAccountRequest(recent_entries=recent),
        authorization=authorization,
    )
    return ok(result, render.credit_account(result.response))


@bp.get("/ledger")
async def list_ledger(request: Request) -> HTTPResponse:
    authorization = api_key_authorization(request)
    page_size = int_arg(request, "page_size")
    if isinstance(page_size, ApiError):
        return await reject_after_auth(request, authorization, page_size)
    core = request.app.ctx.core
    result = await core.call(
        core.credits.ListLedgerEntries,
        credits_pb2.ListLedgerEntriesRequest(page_size=page_size, page_token=request.args.get("page_token", "")),
        authorization=authorization,
    )
    return page(result, "entries", [render.ledger_entry(e) for e in result.response.entries])
