"""API keys in the dashboard: list, create, rotate and revoke the organization's keys. A new
secret is shown once, in the response that made it."""

from __future__ import annotations

from herald.identity.v1 import identity_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, see_other, signed_in, when
from facades.web.session import Viewer

KEYS_SHOWN = 100


async def keys_page(request: Request, viewer: Viewer, *, status: int = 200, error: str | None = None) -> HTTPResponse:
    """The keys page: each key's display prefix, creation, last use and revocation."""
    core = request.app.ctx.core
    result = await core.call(
        core.identity.ListApiKeys,
        identity_pb2.ListApiKeysRequest(page_size=KEYS_SHOWN),
        authorization=viewer.authorization,
    )
    keys = [
        {
            "id": key.id,
            "prefix": key.display_prefix,
            "created": when(key.create_time, viewer.time_zone),
            "last_used": when(key.last_use_time, viewer.time_zone),
            "revoked": when(key.revoke_time, viewer.time_zone, empty=""),
        }
        for key in result.response.api_keys
    ]
    return await dashboard_page(request, viewer, "keys.html", "keys", status=status, keys=keys, error=error)


@signed_in
async def list_keys(request: Request, viewer: Viewer) -> HTTPResponse:
    """The organization's API keys."""
    return await keys_page(request, viewer)


@signed_in
async def create_key(request: Request, viewer: Viewer) -> HTTPResponse:
    """A new key, its secret shown on this page only."""
    core = request.app.ctx.core
    result = await core.call(
        core.identity.CreateApiKey, identity_pb2.CreateApiKeyRequest(), authorization=viewer.authorization
    )
    # Rendered, not redirected: the secret exists only in this response (no-store).
    return await dashboard_page(
        request, viewer, "key_created.html", "keys", status=201, created=result.response, rotated=False
    )


@signed_in
async def rotate_key(request: Request, viewer: Viewer, key_id: str) -> HTTPResponse:
    """A new secret for a key, shown on this page only; the old one stops working."""
    core = request.app.ctx.core
    try:
        result = await core.call(
            core.identity.RotateApiKey,
            identity_pb2.RotateApiKeyRequest(api_key_id=key_id),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in ("NOT_FOUND", "VALIDATION_ERROR"):
            raise
        return await keys_page(request, viewer, status=error.http_status, error=error.message)
    return await dashboard_page(
        request, viewer, "key_created.html", "keys", status=200, created=result.response, rotated=True
    )


@signed_in
async def revoke_key(request: Request, viewer: Viewer, key_id: str) -> HTTPResponse:
    """Revokes a key: requests made with it are refused from then on."""
    core = request.app.ctx.core
    try:
        await core.call(
            core.identity.RevokeApiKey,
            identity_pb2.RevokeApiKeyRequest(api_key_id=key_id),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in ("NOT_FOUND", "VALIDATION_ERROR"):
            raise
        return await keys_page(request, viewer, status=error.http_status, error=error.message)
    return see_other("/dashboard/keys?notice=key-revoked")


ROUTES = (
    Route("GET", "/dashboard/keys", list_keys),
    Route("POST", "/dashboard/keys", create_key),
    Route("POST", "/dashboard/keys/<key_id:str>/rotate", rotate_key),
    Route("POST", "/dashboard/keys/<key_id:str>/revoke", revoke_key),
)
