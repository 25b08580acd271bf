"""Success responses at /v1 (docs/api.md, "Resources", Credit warning): `X-Credits-Remaining`
always, and a `warning` once the balance is below the low-credit threshold. Also the auth-first
rejection of bad requests."""

from __future__ import annotations

from typing import Any

from sanic import Request
from sanic.response import HTTPResponse, json

from facades.core_client import CoreResult
from facades.errors import ApiError


def ratelimit_headers(value: str | None) -> dict[str, str]:
    """The IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers): the policy (quota
    `q` per window `w` seconds) and the state (`r` requests left, `t` seconds until the quota
    is whole again), from the core's `limit;window;remaining;reset`."""
    if not value:
        return {}
    try:
        limit, window, remaining, reset = value.split(";")
    except ValueError:
        return {}
    return {"RateLimit-Policy": f'"herald";q={limit};w={window}', "RateLimit": f'"herald";r={remaining};t={reset}'}


def ok(result: CoreResult[Any], body: dict[str, Any], status: int = 200) -> HTTPResponse:
    headers = ratelimit_headers(result.ratelimit)
    if result.credits_remaining is not None:
        headers["X-Credits-Remaining"] = str(result.credits_remaining)
        if result.low_credits:
            body["warning"] = {"code": "low_credits", "remaining": result.credits_remaining}
    return json(body, status=status, headers=headers)


async def reject_after_auth(request: Request, authorization: str, rpc: str, error: ApiError) -> HTTPResponse:
    """Answers a malformed request only after the credential, its scope and the plan were checked
    for the method it was meant for, so the order of checks is always credential, plan, request
    (docs/api.md, "Errors"). Costs a call only on this error path."""
    await request.app.ctx.core.check_access(rpc, authorization=authorization)
    raise error
