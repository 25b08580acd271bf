"""/v1/media: presign (SPEC 4), confirm, list, get, edit, delete."""

from __future__ import annotations

from herald.media.v1 import media_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.rest import render
from facades.rest.auth import api_key_authorization
from facades.rest.body import json_object, string
from facades.rest.media_upload import upload
from facades.rest.respond import int_arg, ok, page, reject_after_auth

bp = Blueprint("media", url_prefix="/media")

PRESIGN_FIELDS = frozenset({"filename", "mime_type", "size_bytes", "content_hash"})
PATCH_FIELDS = frozenset({"description", "tags"})


def _presign_request(request: Request) -> media_pb2.CreateUploadRequest:
    body = json_object(request, PRESIGN_FIELDS)
    if isinstance(body, ApiError):
        raise body
    size = body.get("size_bytes")
    if size is None:
        raise ApiError("VALIDATION_ERROR", "size_bytes is required")
    if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size < 2**63:
        raise ApiError("VALIDATION_ERROR", "size_bytes must be a non-negative integer")
    return media_pb2.CreateUploadRequest(
        filename=string(body, "filename", required=True) or "",
        mime_type=string(body, "mime_type", required=True) or "",
        size_bytes=size,
        content_hash=string(body, "content_hash") or "",
    )


bp.add_route(upload, "", methods=["POST"], stream=True, name="upload")


@bp.post("/presign")
async def presign(request: Request) -> HTTPResponse:
    authorization = api_key_authorization(request)
    try:
        message = _presign_request(request)
    except ApiError as error:
        return await reject_after_auth(request, authorization, error)
    core = request.app.ctx.core
    result = await core.call(core.media.CreateUpload, message, authorization=authorization)
    upload = result.response
    if upload.duplicate:
        # Nothing was created: 200, not 201 (docs/media.md).
        return ok(result, {"media_id": upload.media_id, "duplicate": True})
    body = {"media_id": upload.media_id, "upload_url": upload.upload_url, "expires_in": upload.expires_in}
    return ok(result, body, status=201)


@bp.post("/<media_id:str>/confirm")
async def confirm(request: Request, media_id: str) -> HTTPResponse:
    authorization = api_key_authorization(request)
    core = request.app.ctx.core
    result = await core.call(
        core.media.ConfirmMedia, media_pb2.ConfirmMediaRequest(media_id=media_id), authorization=authorization
    )
    return ok(result, render.media(result.response))


@bp.get("")
async def list_media(request: Request) -> HTTPResponse:
    authorization = api_key_authorization(request)
    page_size = int_arg(request, "page_size")
    if isinstance(page_size, ApiError):
        return await reject_after_auth(request, authorization, page_size)
    core = request.app.ctx.core
    result = await core.call(
        core.media.ListMedia,
        media_pb2.ListMediaRequest(
            tag=request.args.get("tag", ""), page_size=page_size, page_token=request.args.get("page_token", "")
        ),
        authorization=authorization,
    )
    return page(result, "media", [render.media(m) for m in result.response.media])


@bp.get("/<media_id:str>")
async def get_media(request: Request, media_id: str) -> HTTPResponse:
    authorization = api_key_authorization(request)
    core = request.app.ctx.core
    result = await core.call(
        core.media.GetMedia, media_pb2.GetMediaRequest(media_id=media_id), authorization=authorization
    )
    return ok(result, render.media(result.response))


@bp.patch("/<media_id:str>")
async def update_media(request: Request, media_id: str) -> HTTPResponse:
    authorization = api_key_authorization(request)
    try:
        body = json_object(request, PATCH_FIELDS)
        if isinstance(body, ApiError):
            raise body
        message = media_pb2.UpdateMediaRequest(media_id=media_id)
        description = string(body, "description", nullable=False)
        if description is not None:
            message.description = description
        tags = string(body, "tags", nullable=False)
        if tags is not None:
            message.tags = tags
    except ApiError as error:
        return await reject_after_auth(request, authorization, error)
    core = request.app.ctx.core
    result = await core.call(core.media.UpdateMedia, message, authorization=authorization)
    return ok(result, render.media(result.response))


@bp.delete("/<media_id:str>")
async def delete_media(request: Request, media_id: str) -> HTTPResponse:
    authorization = api_key_authorization(request)
    core = request.app.ctx.core
    result = await core.call(
        core.media.DeleteMedia, media_pb2.DeleteMediaRequest(media_id=media_id), authorization=authorization
    )
    return ok(result, render.media(result.response))
