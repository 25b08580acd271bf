"""GET /v1/profiles and GET /v1/profiles/<slug>."""

from __future__ import annotations

from herald.profiles.v1 import profiles_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.rest import render
from facades.rest.auth import api_key_authorization
from facades.rest.respond import int_arg, ok, page, reject_after_auth

bp = Blueprint("profiles", url_prefix="/profiles")


@bp.get("")
async def list_profiles(request: Request) -> HTTPResponse:
    authorization = api_key_authorization(request)
    page_size = int_arg(request, "page_size")
    if isinstance(page_size, ApiError):
        return await reject_after_auth(request, authorization, page_size)
    core = request.app.ctx.core
    result = await core.call(
        core.profiles.ListProfiles,
        profiles_pb2.ListProfilesRequest(
            tag=request.args.get("tag", ""), page_size=page_size, page_token=request.args.get("page_token", "")
        ),
        authorization=authorization,
    )
    return page(result, "profiles", [render.profile(p) for p in result.response.profiles])


@bp.get("/<slug:str>")
async def get_profile(request: Request, slug: str) -> HTTPResponse:
    authorization = api_key_authorization(request)
    core = request.app.ctx.core
    result = await core.call(
        core.profiles.GetProfile, profiles_pb2.GetProfileRequest(slug=slug), authorization=authorization
    )
    return ok(result, render.profile(result.response))
