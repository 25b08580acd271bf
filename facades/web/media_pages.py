"""The organization's media library in the dashboard: thumbnails, where each media is used, its
description and tags edited, unused media deleted, files uploaded from the browser straight to
storage (static/media_upload.js through this module's endpoints), and the stock picker that adds
licensed photos: search, pick, choose a crop, source (issues 16 and 31; docs/dashboard.md,
"Media", docs/media.md, "Uploads from the browser", docs/stock.md)."""

from __future__ import annotations

import ipaddress
import json as jsonlib
import re
from typing import Any
from urllib.parse import urlencode, urlsplit

from herald.credits.v1 import credits_pb2
from herald.media.v1 import media_pb2
from herald.stock.v1 import stock_pb2
from sanic import Request
from sanic.response import HTTPResponse, json, raw

from contract.requests import PresignRequest
from facades.errors import ApiError
from facades.validation import json_object, validate
from facades.web.pages import (
    Route,
    dashboard_page,
    form_value,
    notice,
    page_token,
    pager,
    see_other,
    signed_in,
    when,
)
from facades.web.scripted import json_error, scripted, sign_in_to
from facades.web.session import Viewer, current_viewer, session_token
from facades.web.templating import render

MEDIA_PER_PAGE = 24
SIGN_IN = sign_in_to("/dashboard/media")
RESULTS_SHOWN = 24
PREVIEW_WIDTH = 240  # the previews' width on the page, in CSS pixels
SEARCH = "/herald.stock.v1.StockService/SearchStock"
SOURCE = "/herald.stock.v1.StockService/SourceMedia"
LIST_PROVIDERS = "/herald.stock.v1.StockService/ListStockProviders"
SET_PROVIDERS = "/herald.stock.v1.StockService/SetStockProviders"
PROVIDERS = {"stock_a": "stock_a (Pexels)", "stock_b": "stock_b (Unsplash)"}
PRESETS = {
    "square": "Square, 1:1",
    "portrait": "Portrait, 4:5",
    "landscape": "Landscape, 1.91:1",
    "story": "Story, 9:16",
}
# The codes SourceMedia lists a photo that failed under (docs/stock.md, Sourcing).
FAILURE_CODES = frozenset(
    {
        "NOT_FOUND",
        "FOREIGN_HOST",
        "TOO_LARGE",
        "NOT_AN_IMAGE",
        "FETCH_FAILED",
        "TIMEOUT",
        "PROVIDER_ERROR",
        "RATE_LIMITED",
        "STORAGE_FAILED",
    }
)
# What the picker's searches and sourcing can answer that a human can act on: shown on the page,
# with the error's own status. Anything else is a failure page (pages.page_errors).
PICKER_ERRORS = {
    "VALIDATION_ERROR": "Check the form",
    "UNKNOWN_PROVIDER": "Unknown photo provider",
    "UNKNOWN_PRESET": "Unknown preset",
    "STOCK_NOT_CONFIGURED": "This photo provider is not available here",
    "PRESET_DESTINATION": "This preset cannot be posted there",
    "INSUFFICIENT_CREDITS": "Not enough credits for these photos; nothing was fetched or charged",
    "RATE_LIMITED": "The photo provider asks Herald to slow down",
    "PROVIDER_ERROR": "The photo provider did not answer properly",
    "SOURCE_FAILED": "None of the photos could be delivered; nothing was charged",
    "SUBSCRIPTION_REQUIRED": "The organization needs a plan",
}
_HOST_NAME = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?")
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
USE_STATUS_WORDS = {"scheduled": "scheduled", "queued": "queued", "publishing": "publishing"}
# The placeholder shown for a media without a thumbnail: its type, drawn (docs/dashboard.md).
_PLACEHOLDER = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="120" viewBox="0 0 160 120">'
    '<rect width="160" height="120" fill="#e8ebf0"/>'
    '<text x="80" y="68" text-anchor="middle" font-family="sans-serif" font-size="18" fill="#3a4250">{label}</text>'
    "</svg>"
)
PLACEHOLDER_LABELS = {"image": "Image", "gif": "GIF", "video": "Video"}


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def preview_origin(url: str) -> str | None:
    """The origin to allow in the page's img-src for a result's preview, or None when the preview
    is not shown: https on a plain host name, or plain http only on the loopback (the embedded
    demo provider), the rule the core fetches photos by (core/stock/fetch.py)."""
    if len(url) > 2048:
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname or ""
    if parts.username is not None or parts.password is not None or not _HOST_NAME.fullmatch(host):
        return None
    if parts.scheme == "https" or (parts.scheme == "http" and _loopback(host)):
        return f"{parts.scheme}://{host}" + (f":{port}" if port else "")
    return None


def _size(size_bytes: int) -> str:
    if size_bytes < 1024:
        return f"{size_bytes} B"
    if size_bytes < 1024 * 1024:
        return f"{size_bytes / 1024:.0f} KB"
    return f"{size_bytes / (1024 * 1024):.1f} MB"


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
        "dimensions": f"{media.width} × {media.height}" if media.width and media.height else "",
        "tags": [t.strip() for t in media.tags.split(",") if t.strip()],
        "tags_value": media.tags,
        "added": when(media.create_time, zone),
        "thumbnail": f"/dashboard/media/{media.media_id}/thumbnail",
        "has_thumbnail": bool(details and details.has_thumbnail),
        "uses": [{"post_id": u.post_id, "status": u.status} for u in uses],
        "use_count": details.use_count if details is not None else 0,
        "more_uses": (details.use_count - len(uses)) if details is not None else 0,
        "blocking_post_id": details.blocking_post_id if details is not None else "",
    }


async def _rows(request: Request, authorization: str, media: list[media_pb2.Media], zone: str) -> list[dict[str, Any]]:
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
    URLs point at, which the page's connect-src names (docs/dashboard.md, "Media")."""
    catalog = (await request.app.ctx.contract.get()).catalog
    core = request.app.ctx.core
    answer = await core.call(
        core.media.GetUploadOrigin, media_pb2.GetUploadOriginRequest(), authorization=authorization
    )
    origin = answer.response.origin
    types = {t.mime_type: {"kind": t.kind, "max_bytes": t.presign_max_bytes} for t in catalog.message.media_types}
    return {
        "types": types,
        "types_json": jsonlib.dumps(types, separators=(",", ":")),
        "accept": ",".join(types),
        "limits": _limits_text(types),
        "origin": origin if _ORIGIN.fullmatch(origin) else "",
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


def _https(url: str) -> str:
    return url if url.startswith("https://") else ""


def _result(result: stock_pb2.StockResult, origin: str | None) -> dict[str, Any]:
    credit = None
    if result.HasField("attribution"):
        a = result.attribution
        credit = {
            "photographer": a.photographer,
            "photographer_url": _https(a.photographer_url),
            "source": a.source,
            "source_url": _https(a.source_url),
        }
    ratio = result.height / result.width if result.width > 0 and result.height > 0 else 1.0
    return {
        "source_ref": result.source_ref,
        "preview_url": result.preview_url if origin else "",
        "alt_text": result.alt_text or "A stock photo",
        "width": result.width,
        "height": result.height,
        "preview_height": max(1, min(round(PREVIEW_WIDTH * ratio), 3 * PREVIEW_WIDTH)),
        "attribution": credit,
    }


def _failure(error: ApiError) -> dict[str, Any]:
    valid_for = error.metadata.get("valid_for", "") if error.code == "PRESET_DESTINATION" else ""
    return {
        "code": error.code,
        "heading": PICKER_ERRORS.get(error.code, "That did not work"),
        "message": error.message[:1].upper() + error.message[1:],
        "valid_for": [v for v in valid_for.split(",") if v],
        "retry_after": error.retry_after,
    }


def _picker(values: Any) -> dict[str, str]:  # request.args or request.form
    def value(name: str, limit: int) -> str:
        return ((values.get(name) or "") if values is not None else "").strip()[:limit]

    return {
        "query": value("q", 200) or value("query", 200),
        "provider": value("provider", 40) or "stock_a",
        "preset": value("preset", 40) or "square",
        "destination": value("destination", 40),
    }


def _count(request: Request, name: str) -> int:
    value = request.args.get(name, "")
    return int(value) if value.isdigit() and len(value) <= 3 else 0


def _sourced_notices(request: Request) -> tuple[str | None, str | None]:
    """The outcome of a sourcing, from the redirect's query: numbers and known codes only, so
    nothing a link carries is echoed."""
    if request.args.get("notice") != "sourced":
        return notice(request), None
    delivered, failed = _count(request, "count"), _count(request, "failed")
    flash = (
        f"{delivered} photo{'s' if delivered != 1 else ''} added to the library, ready for a post."
        if delivered
        else notice(request)
    )
    if not failed:
        return flash, None
    codes = sorted({c for c in request.args.get("reasons", "").split(",") if c in FAILURE_CODES})
    partial = (
        f"{failed} photo{'s' if failed != 1 else ''} could not be delivered and "
        f"{'were' if failed != 1 else 'was'} not charged" + (f" ({', '.join(codes)})." if codes else ".")
    )
    return flash, partial


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
    picker = picker or _picker(request.args)
    token = page_token(request)
    library_error = None
    try:
        listed = await core.call(
            core.media.ListMedia,
            media_pb2.ListMediaRequest(page_size=MEDIA_PER_PAGE, page_token=token),
            authorization=viewer.authorization,
        )
        media, next_token = (
            await _rows(request, viewer.authorization, list(listed.response.media), viewer.time_zone),
            listed.response.next_page_token,
        )
    except ApiError as error:
        if error.code not in ("VALIDATION_ERROR", "SUBSCRIPTION_REQUIRED"):  # a bad page token; no plan
            raise
        media, next_token, library_error = [], "", error.message
        status = status if status != 200 else error.http_status

    results: list[dict[str, Any]] = []
    origins: set[str] = set()
    if picker["query"]:
        try:
            found = await core.call(
                core.method(SEARCH),
                stock_pb2.SearchStockRequest(
                    query=picker["query"], preset=picker["preset"], provider=picker["provider"], count=RESULTS_SHOWN
                ),
                authorization=viewer.authorization,
            )
        except ApiError as error:
            if error.code not in PICKER_ERRORS:
                raise
            if failure is None:
                failure, status = error, error.http_status
        else:
            for result in found.response.results:
                origin = preview_origin(result.preview_url)
                if origin:
                    origins.add(origin)
                results.append(_result(result, origin))

    switches = await core.call(
        core.method(LIST_PROVIDERS), stock_pb2.ListStockProvidersRequest(), authorization=viewer.authorization
    )
    account = await core.call(
        core.credits.GetCreditAccount,
        credits_pb2.GetCreditAccountRequest(recent_entries=0),
        authorization=viewer.authorization,
    )
    flash, partial = _sourced_notices(request)
    flash = MEDIA_NOTICES.get(request.args.get("notice", "")) or flash
    uploads = await upload_settings(request, viewer.authorization)
    # The next page keeps the picker's search.
    search = (
        {"q": picker["query"], "provider": picker["provider"], "preset": picker["preset"]} if picker["query"] else {}
    )
    return await dashboard_page(
        request,
        viewer,
        "media.html",
        "media",
        status=status,
        # The previews' origins, and only while they are on the page (docs/dashboard.md).
        image_origins=origins,
        # The upload script reaches the dashboard's endpoints and the storage's origin, nothing else.
        connect_self=True,
        connect_origins=[uploads["origin"]] if uploads["origin"] else [],
        uploads=uploads,
        refused=_refusal(refused) if refused else None,
        refused_media=refused_media,
        typed=typed or {},
        flash=flash,
        partial=partial,
        media=media,
        library_error=library_error,
        **pager("/dashboard/media", token, next_token, **search),
        picker=picker,
        providers=PROVIDERS,
        presets=PRESETS,
        destinations=(await request.app.ctx.contract.get()).catalog.connectors,
        results=results,
        checked=checked,
        failure=_failure(failure) if failure else None,
        balance=account.response.balance,
        switches=[
            {
                "key": p.provider,
                "name": PROVIDERS.get(p.provider, p.provider),
                "configured": p.configured,
                "enabled": p.enabled,
            }
            for p in switches.response.providers
        ],
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


@signed_in
async def source_photos(request: Request, viewer: Viewer) -> HTTPResponse:
    """Sources the checked photos into the library, then shows the outcome and the search again."""
    picker = _picker(request.form)
    sent = request.form.getlist("source_ref") if request.form is not None else None
    refs = [r.strip()[:200] for r in sent or [] if r.strip()]
    if not refs:
        # The form's own check: the core would refuse it too, in an API's words.
        refused = ApiError("VALIDATION_ERROR", "Choose at least one photo to add to the library.")
        return await media_page(request, viewer, status=400, failure=refused, picker=picker)
    core = request.app.ctx.core
    try:
        result = await core.call(
            core.method(SOURCE),
            stock_pb2.SourceMediaRequest(
                source_refs=refs,
                preset=picker["preset"],
                destination=picker["destination"],
                provider=picker["provider"],
                query=picker["query"],
            ),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in PICKER_ERRORS:
            raise
        return await media_page(
            request, viewer, status=error.http_status, failure=error, picker=picker, checked=frozenset(refs)
        )
    done = result.response
    outcome = {
        "notice": "sourced",
        "count": done.delivered_count,
        "failed": len(done.failures),
        "reasons": ",".join(sorted({f.code for f in done.failures if f.code in FAILURE_CODES})),
        "q": picker["query"],
        "provider": picker["provider"],
        "preset": picker["preset"],
        "destination": picker["destination"],
    }
    # Post/Redirect/Get: the outcome travels as numbers and known codes, the search is run
    # again (free, and answered from the core's cache) so the picker stays as it was.
    return see_other("/dashboard/media?" + urlencode({k: v for k, v in outcome.items() if v}))


@signed_in
async def save_providers(request: Request, viewer: Viewer) -> HTTPResponse:
    """Which stock providers the organization uses: the unchecked ones are turned off."""
    on = set(request.form.getlist("enabled") or []) if request.form is not None else set()
    core = request.app.ctx.core
    try:
        await core.call(
            core.method(SET_PROVIDERS),
            stock_pb2.SetStockProvidersRequest(disabled=[p for p in PROVIDERS if p not in on]),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in PICKER_ERRORS:
            raise
        return await media_page(request, viewer, status=error.http_status, failure=error)
    return see_other("/dashboard/media?notice=providers")


def _checked(media_id: str) -> str:
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
            media_pb2.UpdateMediaRequest(media_id=_checked(media_id), **typed),
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
            media_pb2.DeleteMediaRequest(media_id=_checked(media_id)),
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


# -- the upload script's endpoints (static/media_upload.js) -----------------------------------


def _item_html(request: Request, row: dict[str, Any], uploads: dict[str, Any]) -> str:
    """The library's item for a media, as the page renders it (media_item.html), for the script
    to put at the top of the list."""
    return render(request, "media_item.html", m=row, uploads=uploads).body.decode()


async def _media_answer(request: Request, authorization: str, media: media_pb2.Media, **extra: Any) -> HTTPResponse:
    """A confirmed media for the script: its id, name and type, and its item for the list."""
    viewer = await current_viewer(request)
    if viewer is None:
        raise ApiError("UNAUTHORIZED", "your session has ended: sign in again")
    rows = await _rows(request, authorization, [media], viewer.time_zone)
    uploads = await upload_settings(request, authorization)
    return json(
        {
            "media_id": media.media_id,
            "name": media.name,
            "type": media.type,
            "status": media.status,
            "item_html": _item_html(request, rows[0], uploads),
        }
        | extra,
        headers={"Cache-Control": "no-store"},
    )


@scripted(sign_in=SIGN_IN)
async def presign(request: Request, authorization: str) -> HTTPResponse:
    """Registers an upload (CreateUpload, the /v1 presign's checks and answers): 201
    `{media_id, upload_url, expires_in}`, or 200 `{media_id, duplicate: true, name}` when the
    library holds these bytes already (by content_hash)."""
    contract = await request.app.ctx.contract.get()
    message = validate(contract.model(PresignRequest), json_object(request.body)).to_proto()
    core = request.app.ctx.core
    answer = (await core.call(core.media.CreateUpload, message, authorization=authorization)).response
    if answer.duplicate:
        existing = await core.call(
            core.media.GetMedia, media_pb2.GetMediaRequest(media_id=answer.media_id), authorization=authorization
        )
        return json(
            {"media_id": answer.media_id, "duplicate": True, "name": existing.response.name},
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
        media_pb2.ConfirmMediaRequest(media_id=_checked(media_id)),
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
        core.media.GetMedia, media_pb2.GetMediaRequest(media_id=_checked(media_id)), authorization=authorization
    )
    if found.response.status != "pending":
        return json({"discarded": False}, headers={"Cache-Control": "no-store"})
    await core.call(
        core.media.DeleteMedia, media_pb2.DeleteMediaRequest(media_id=media_id), authorization=authorization
    )
    return json({"discarded": True}, headers={"Cache-Control": "no-store"})


ROUTES = (
    Route("GET", "/dashboard/media", list_media),
    Route("POST", "/dashboard/media/source", source_photos),
    Route("POST", "/dashboard/media/providers", save_providers),
    Route("POST", "/dashboard/media/<media_id:str>/edit", edit_media),
    Route("POST", "/dashboard/media/<media_id:str>/delete", delete_media),
    Route("GET", "/dashboard/media/<media_id:str>/thumbnail", thumbnail),
    Route("POST", "/dashboard/media/uploads", presign),
    Route("POST", "/dashboard/media/<media_id:str>/confirm", confirm),
    Route("POST", "/dashboard/media/<media_id:str>/discard", discard),
)
