"""The organization's media library in the dashboard, and the stock picker that adds licensed
photos to it: search, pick, choose a crop, source (issue 16, docs/stock.md)."""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import urlencode, urlsplit

from herald.credits.v1 import credits_pb2
from herald.media.v1 import media_pb2
from herald.stock.v1 import stock_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, notice, page_token, pager, see_other, signed_in, when
from facades.web.session import Viewer

MEDIA_PER_PAGE = 24
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


def _media_row(media: media_pb2.Media, zone: str) -> dict[str, Any]:
    # The Media message carries no viewable URL (the bytes sit in private storage) and no stock
    # origin: the page shows what it carries.
    return {
        "id": media.media_id,
        "name": media.name,
        "description": media.description,
        "type": media.type,
        "mime_type": media.mime_type,
        "size": _size(media.size_bytes),
        "dimensions": f"{media.width} × {media.height}" if media.width and media.height else "",
        "tags": [t.strip() for t in media.tags.split(",") if t.strip()],
        "added": when(media.create_time, zone),
    }


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
) -> HTTPResponse:
    """The library (newest first, 24 a page) and the stock picker, with its search's results
    when it has a query; `failure`, when given, is shown as the page's alert."""
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
            [_media_row(m, viewer.time_zone) for m in listed.response.media],
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


ROUTES = (
    Route("GET", "/dashboard/media", list_media),
    Route("POST", "/dashboard/media/source", source_photos),
    Route("POST", "/dashboard/media/providers", save_providers),
)
