"""Success responses at /v1 (SPEC 6.3): `X-Credits-Remaining` always, and a `warning` once the
balance is below the low-credit threshold. Also the auth-first rejection of bad requests."""

from __future__ import annotations

from typing import Any

from herald.identity.v1 import identity_pb2
from sanic import Request
from sanic.response import HTTPResponse, json

from facades.core_client import CoreResult
from facades.errors import ApiError


def ok(result: CoreResult[Any], body: dict[str, Any], status: int = 200) -> HTTPResponse:
    headers = {}
    if result.credits_remaining is not None:
        headers["X-Credits-Remaining"] = str(result.credits_remaining)
        if result.low_credits:
            body["warning"] = {"code": "low_credits", "remaining": result.credits_remaining}
    return json(body, status=status, headers=headers)


def page(result: CoreResult[Any], key: str, items: list[dict[str, Any]]) -> HTTPResponse:
    """A list response: `{key: items}`, plus `next_page_token` only when there is a next page."""
    body: dict[str, Any] = {key: items}
    if result.response.next_page_token:
        body["next_page_token"] = result.response.next_page_token
    return ok(result, body)


async def reject_after_auth(request: Request, authorization: str, error: ApiError) -> HTTPResponse:
    """Answers a malformed request only after the credential and the plan were checked, so the
    order of checks is always credential, plan, request (SPEC 7). Costs a call only on this
    error path."""
    core = request.app.ctx.core
    await core.call(core.identity.GetPrincipal, identity_pb2.GetPrincipalRequest(), authorization=authorization)
    raise error


def int_arg(request: Request, name: str, default: int = 0) -> int | ApiError:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        return ApiError("VALIDATION_ERROR", f"{name} must be an integer")
    if not -(2**31) <= value < 2**31:
        return ApiError("VALIDATION_ERROR", f"{name} is out of range")
    return value
