"""The upload script's endpoints (static/media_upload.js; docs/media.md, "Uploads from the
browser", docs/dashboard.md "Media"): a file registered (presign), confirmed once the browser has
put its bytes in storage, or discarded when that did not go through. JSON in and out, with the
session cookie as the credential (scripted.py); the confirmed media comes back as the library
page renders its item (media_pages.py)."""

from __future__ import annotations

from typing import Any

from herald.media.v1 import media_pb2
from sanic import Request
from sanic.response import HTTPResponse, json

from contract.media_requests import PresignRequest
from facades.errors import ApiError
from facades.validation import json_object, validate
from facades.web.media_pages import checked_media_id, dimensions, media_rows, upload_settings
from facades.web.pages import Route
from facades.web.scripted import scripted, sign_in_to
from facades.web.session import current_viewer
from facades.web.templating import render

SIGN_IN = sign_in_to("/dashboard/media")


def _item_html(request: Request, row: dict[str, Any], uploads: dict[str, Any]) -> str:
    """The library's item for a media, as the page renders it (media_item.html), for the script
    to put at the top of the list."""
    return render(request, "media_item.html", m=row, uploads=uploads).body.decode()


async def _media_answer(request: Request, authorization: str, media: media_pb2.Media, **extra: Any) -> HTTPResponse:
    """A confirmed media for the script: its id, name, type and dimensions, and its item for the
    media page's list (compose shows the rest in its own)."""
    viewer = await current_viewer(request)
    if viewer is None:
        raise ApiError("UNAUTHORIZED", "your session has ended: sign in again")
    rows = await media_rows(request, authorization, [media], viewer.time_zone)
    uploads = await upload_settings(request, authorization)
    return json(
        {
            "media_id": media.media_id,
            "name": media.name,
            "type": media.type,
            "dimensions": dimensions(media),
            "status": media.status,
            "item_html": _item_html(request, rows[0], uploads),
        }
        | extra,
        headers={"Cache-Control": "no-store"},
    )


@scripted(sign_in=SIGN_IN)
async def presign(request: Request, authorization: str) -> HTTPResponse:
    """Registers an upload (CreateUpload, the /v1 presign's checks and answers): 201
    `{media_id, upload_url, expires_in}`, or 200 `{media_id, duplicate: true, name, type,
    dimensions}` when the library holds these bytes already (by content_hash)."""
    contract = await request.app.ctx.contract.get()
    message = validate(contract.model(PresignRequest), json_object(request.body)).to_proto()
    core = request.app.ctx.core
    answer = (await core.call(core.media.CreateUpload, message, authorization=authorization)).response
    if answer.duplicate:
        existing = await core.call(
            core.media.GetMedia, media_pb2.GetMediaRequest(media_id=answer.media_id), authorization=authorization
        )
        held = existing.response
        return json(
            {
                "media_id": answer.media_id,
                "duplicate": True,
                "name": held.name,
                "type": held.type,
                "dimensions": dimensions(held),
            },
            headers={"Cache-Control": "no-store"},
        )
    return json(
        {"media_id": answer.media_id, "upload_url": answer.upload_url, "expires_in": answer.expires_in},
        status=201,
        headers={"Cache-Control": "no-store"},
    )


@scripted(sign_in=SIGN_IN)
async def confirm(request: Request, authorization: str, media_id: str) -> HTTPResponse:
    """Confirms an upload (ConfirmMedia): 200 with the media and its item for the list;
    `duplicate: true` when the library already held the bytes (the answer is that media)."""
    core = request.app.ctx.core
    answer = await core.call(
        core.media.ConfirmMedia,
        media_pb2.ConfirmMediaRequest(media_id=checked_media_id(media_id)),
        authorization=authorization,
    )
    media = answer.response
    return await _media_answer(request, authorization, media, duplicate=media.media_id != media_id)


@scripted(sign_in=SIGN_IN)
async def discard(request: Request, authorization: str, media_id: str) -> HTTPResponse:
    """Deletes an upload that did not go through (the PUT or confirm failed) while it is still
    pending: `{discarded: true}`; a confirmed media is left alone (`{discarded: false}`), so the
    script can never delete a library's file. Housekeeping removes what this misses."""
    core = request.app.ctx.core
    found = await core.call(
        core.media.GetMedia, media_pb2.GetMediaRequest(media_id=checked_media_id(media_id)), authorization=authorization
    )
    if found.response.status != "pending":
        return json({"discarded": False}, headers={"Cache-Control": "no-store"})
    await core.call(
        core.media.DeleteMedia, media_pb2.DeleteMediaRequest(media_id=media_id), authorization=authorization
    )
    return json({"discarded": True}, headers={"Cache-Control": "no-store"})


ROUTES = (
    Route("POST", "/dashboard/media/uploads", presign),
    Route("POST", "/dashboard/media/<media_id:str>/confirm", confirm),
    Route("POST", "/dashboard/media/<media_id:str>/discard", discard),
)
