"""The organization's media library in the dashboard (issues 16 and 31; docs/dashboard.md,
"Media", docs/media.md): the page, with thumbnails, where each media is used and its upload area;
a media's description and tags edited, unused media deleted; its thumbnail served. The page also
shows the stock picker (stock_picker.py; its forms: stock_picker_pages.py); the upload script's
endpoints are media_uploads.py."""

from __future__ import annotations

import json as jsonlib
import re
from typing import Any

from herald.media.v1 import media_pb2
from sanic import Request
from sanic.response import HTTPResponse, json, raw

from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, form_value, page_token, pager, see_other, signed_in, when
from facades.web.scripted import json_error
from facades.web.session import Viewer, session_token
from facades.web.stock_picker import kept_search, picker_choices, picker_section, sourced_notices

MEDIA_PER_PAGE = 24
# What an id of a media looks like (core/ids.py: a prefix and a base32 body). Anything else is a
# media no organization has: 404, without asking the core.
MEDIA_ID = re.compile(r"med_[0-9a-z]{1,64}")
# The upload origin the core names, as the page's connect-src may carry it.
_ORIGIN = re.compile(r"https?://(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")
# The library's form outcomes (`?notice=`), read from this fixed table only.
MEDIA_NOTICES = {
    "media-saved": "The description and tags are saved.",
    "media-deleted": "The media is deleted from the library, its bytes with it.",
}
# Refusals of the library's forms shown on the page; anything else (NOT_FOUND: another
# organization's media) is a failure page with its status.
LIBRARY_ERRORS = {
    "VALIDATION_ERROR": "Check the form",
    "MEDIA_IN_USE": "This media is in use",
    "SUBSCRIPTION_REQUIRED": "The organization needs a plan",
}
# The placeholder shown for a media without a thumbnail: its type, drawn (docs/dashboard.md).
_PLACEHOLDER = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="120" viewBox="0 0 160 120">'
    '<rect width="160" height="120" fill="#e8ebf0"/>'
    '<text x="80" y="68" text-anchor="middle" font-family="sans-serif" font-size="18" fill="#3a4250">{label}</text>'
    "</svg>"
)
PLACEHOLDER_LABELS = {"image": "Image", "gif": "GIF", "video": "Video"}


def _size(size_bytes: int) -> str:
    if size_bytes < 1024:
        return f"{size_bytes} B"
    if size_bytes < 1024 * 1024:
        return f"{size_bytes / 1024:.0f} KB"
    return f"{size_bytes / (1024 * 1024):.1f} MB"


def dimensions(media: media_pb2.Media) -> str:
    """ "800 × 600", or "" for a media whose dimensions are not known (a pending one)."""
    return f"{media.width} × {media.height}" if media.width and media.height else ""


def thumbnail_path(media_id: str) -> str:
    """Where a signed-in page shows a media's thumbnail (`thumbnail` below)."""
    return f"/dashboard/media/{media_id}/thumbnail"


def _media_row(media: media_pb2.Media, zone: str, details: media_pb2.MediaDetails | None = None) -> dict[str, Any]:
    # The bytes sit in private storage: the page shows the thumbnail through its own route
    # (thumbnail below), and where the media is used from ListMediaDetails.
    uses = list(details.uses) if details is not None else []
    return {
        "id": media.media_id,
        "name": media.name,
        "description": media.description,
        "type": media.type,
        "mime_type": media.mime_type,
        "size": _size(media.size_bytes),
        "dimensions": dimensions(media),
        "tags": [t.strip() for t in media.tags.split(",") if t.strip()],
        "tags_value": media.tags,
        "added": when(media.create_time, zone),
        "thumbnail": thumbnail_path(media.media_id),
        "has_thumbnail": bool(details and details.has_thumbnail),
        "uses": [{"post_id": u.post_id, "status": u.status} for u in uses],
        "use_count": details.use_count if details is not None else 0,
        "more_uses": (details.use_count - len(uses)) if details is not None else 0,
        "blocking_post_id": details.blocking_post_id if details is not None else "",
    }


async def media_rows(
    request: Request, authorization: str, media: list[media_pb2.Media], zone: str
) -> list[dict[str, Any]]:
    """The library's rows, each with its thumbnail state and the posts using it (one call)."""
    if not media:
        return []
    core = request.app.ctx.core
    described = await core.call(
        core.media.ListMediaDetails,
        media_pb2.ListMediaDetailsRequest(media_ids=[m.media_id for m in media]),
        authorization=authorization,
    )
    details = {d.media_id: d for d in described.response.details}
    return [_media_row(m, zone, details.get(m.media_id)) for m in media]


async def upload_settings(request: Request, authorization: str) -> dict[str, Any]:
    """What the upload script needs, rendered into the page as data: the types and size limits
    the core publishes in its catalog (no second table in the script), and the origin its upload
    URLs point at, which the page's connect-src names (`connect_origins`, for `dashboard_page`:
    the media page's and compose's; docs/dashboard.md, "Media")."""
    catalog = (await request.app.ctx.contract.get()).catalog
    core = request.app.ctx.core
    answer = await core.call(
        core.media.GetUploadOrigin, media_pb2.GetUploadOriginRequest(), authorization=authorization
    )
    origin = answer.response.origin
    origin = origin if _ORIGIN.fullmatch(origin) else ""
    types = {t.mime_type: {"kind": t.kind, "max_bytes": t.presign_max_bytes} for t in catalog.message.media_types}
    return {
        "types": types,
        "types_json": jsonlib.dumps(types, separators=(",", ":")),
        "accept": ",".join(types),
        "limits": _limits_text(types),
        "origin": origin,
        "connect_origins": [origin] if origin else [],
        "max_filename": catalog.limits.max_filename_chars,
        "max_description": catalog.limits.max_description_chars,
    }


def _limits_text(types: dict[str, dict[str, Any]]) -> list[str]:
    """ "image: JPEG, PNG, WebP up to 50 MB", one line per kind, in the catalog's order."""
    kinds: dict[str, list[str]] = {}
    limits: dict[str, int] = {}
    for mime_type, fact in types.items():
        kinds.setdefault(fact["kind"], []).append(mime_type.partition("/")[2].upper().replace("QUICKTIME", "MOV"))
        limits[fact["kind"]] = fact["max_bytes"]
    return [f"{kind}: {', '.join(names)}, up to {_decimal(limits[kind])}" for kind, names in kinds.items()]


def _decimal(size_bytes: int) -> str:
    """A limit as the contract writes it: decimal units (docs/api.md, "Limits")."""
    if size_bytes % 1_000_000_000 == 0:
        return f"{size_bytes // 1_000_000_000} GB"
    if size_bytes % 1_000_000 == 0:
        return f"{size_bytes // 1_000_000} MB"
    return f"{size_bytes:,} bytes"


async def media_page(
    request: Request,
    viewer: Viewer,
    *,
    status: int = 200,
    failure: ApiError | None = None,
    picker: dict[str, str] | None = None,
    checked: frozenset[str] = frozenset(),
    refused: ApiError | None = None,
    refused_media: str = "",
    typed: dict[str, str] | None = None,
) -> HTTPResponse:
    """The library (newest first, 24 a page) with its upload area, and the stock picker, with
    its search's results when it has a query; `failure`, when given, is the picker's alert,
    `refused` a library form's (the media `refused_media`, with what was `typed` kept)."""
    core = request.app.ctx.core
    picker = picker or picker_choices(request.args)
    token = page_token(request)
    library_error = None
    try:
        listed = await core.call(
            core.media.ListMedia,
            media_pb2.ListMediaRequest(page_size=MEDIA_PER_PAGE, page_token=token),
            authorization=viewer.authorization,
        )
        media, next_token = (
            await media_rows(request, viewer.authorization, list(listed.response.media), viewer.time_zone),
            listed.response.next_page_token,
        )
    except ApiError as error:
        if error.code not in ("VALIDATION_ERROR", "SUBSCRIPTION_REQUIRED"):  # a bad page token; no plan
            raise
        media, next_token, library_error = [], "", error.message
        status = status if status != 200 else error.http_status

    stock = await picker_section(request, viewer, picker, failure=failure, checked=checked)
    if stock.refused is not None:
        status = stock.refused.http_status
    flash, partial = sourced_notices(request)
    flash = MEDIA_NOTICES.get(request.args.get("notice", "")) or flash
    uploads = await upload_settings(request, viewer.authorization)
    return await dashboard_page(
        request,
        viewer,
        "media.html",
        "media",
        status=status,
        # The previews' origins, and only while they are on the page (docs/dashboard.md).
        image_origins=stock.image_origins,
        # The upload script reaches the dashboard's endpoints and the storage's origin, nothing else.
        connect_self=True,
        connect_origins=uploads["connect_origins"],
        uploads=uploads,
        refused=_refusal(refused) if refused else None,
        refused_media=refused_media,
        typed=typed or {},
        flash=flash,
        partial=partial,
        media=media,
        library_error=library_error,
        # The next page keeps the picker's search.
        **pager("/dashboard/media", token, next_token, **kept_search(picker)),
        **stock.context,
    )


def _refusal(error: ApiError) -> dict[str, Any]:
    return {
        "code": error.code,
        "heading": LIBRARY_ERRORS.get(error.code, "That did not work"),
        "message": error.message[:1].upper() + error.message[1:],
    }


@signed_in
async def list_media(request: Request, viewer: Viewer) -> HTTPResponse:
    """The library and the stock picker (with `?q=&provider=&preset=`, the search's results)."""
    return await media_page(request, viewer)


def checked_media_id(media_id: str) -> str:
    """`media_id` when it looks like a media's id, else NOT_FOUND (the core is not asked)."""
    if not MEDIA_ID.fullmatch(media_id):
        raise ApiError("NOT_FOUND", "no such media in this library")
    return media_id


@signed_in
async def edit_media(request: Request, viewer: Viewer, media_id: str) -> HTTPResponse:
    """Saves a media's description (its alt text) and tags; a refusal is shown on the page with
    what was typed."""
    core = request.app.ctx.core
    typed = {"description": form_value(request, "description"), "tags": form_value(request, "tags")}
    try:
        await core.call(
            core.media.UpdateMedia,
            media_pb2.UpdateMediaRequest(media_id=checked_media_id(media_id), **typed),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in LIBRARY_ERRORS:
            raise
        return await media_page(
            request, viewer, status=error.http_status, refused=error, refused_media=media_id, typed=typed
        )
    return see_other(f"/dashboard/media?notice=media-saved#media-{media_id}")


@signed_in
async def delete_media(request: Request, viewer: Viewer, media_id: str) -> HTTPResponse:
    """Deletes a media and its bytes; refused (MEDIA_IN_USE, on the page) while a post that has
    not gone out uses it."""
    core = request.app.ctx.core
    try:
        await core.call(
            core.media.DeleteMedia,
            media_pb2.DeleteMediaRequest(media_id=checked_media_id(media_id)),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in LIBRARY_ERRORS:
            raise
        return await media_page(request, viewer, status=error.http_status, refused=error, refused_media=media_id)
    return see_other("/dashboard/media?notice=media-deleted")


def _placeholder(kind: str, status: int = 200) -> HTTPResponse:
    label = PLACEHOLDER_LABELS.get(kind, "File")
    return raw(
        _PLACEHOLDER.format(label=label).encode(),
        status=status,
        content_type="image/svg+xml",
        headers={
            "Cache-Control": "private, no-cache",
            "Content-Security-Policy": "default-src 'none'",
            "X-Content-Type-Options": "nosniff",
        },
    )


async def thumbnail(request: Request, media_id: str) -> HTTPResponse:
    """A media's thumbnail for the signed-in organization's pages (the session cookie is the
    credential, checked by the core in the one call): the WebP confirm made, or a placeholder of
    the media's type when it has none. Another organization's media, an unknown or malformed id:
    404; no session: 401 (an image request is not sent to sign-in)."""
    token = session_token(request)
    if token is None:
        return json({"error": "sign in first", "code": "UNAUTHORIZED"}, status=401)
    if not MEDIA_ID.fullmatch(media_id):
        return json({"error": "no such media in this library", "code": "NOT_FOUND"}, status=404)
    core = request.app.ctx.core
    try:
        found = await core.call(
            core.media.GetMediaThumbnail,
            media_pb2.GetMediaThumbnailRequest(media_id=media_id),
            authorization=f"Bearer {token}",
        )
    except ApiError as error:
        return json_error(error)
    picture = found.response
    if not picture.data or picture.mime_type != "image/webp":
        return _placeholder(picture.type)
    return raw(
        picture.data,
        content_type=picture.mime_type,
        # A media's thumbnail never changes: the browser keeps it for the session's pages.
        headers={"Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff"},
    )


ROUTES = (
    Route("GET", "/dashboard/media", list_media),
    Route("POST", "/dashboard/media/<media_id:str>/edit", edit_media),
    Route("POST", "/dashboard/media/<media_id:str>/delete", delete_media),
    Route("GET", "/dashboard/media/<media_id:str>/thumbnail", thumbnail),
)
