"""The stock picker's forms on the media page (issue 16; docs/dashboard.md, "The stock
picker", docs/stock.md): the checked photos sourced into the library, and the stock providers
the organization uses. A refusal shows the media page again with the picker's alert and its
choices kept (media_pages.media_page); what the picker shows is stock_picker.py."""

from __future__ import annotations

from urllib.parse import urlencode

from herald.stock.v1 import stock_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.media_pages import media_page
from facades.web.pages import Route, see_other, signed_in
from facades.web.session import Viewer
from facades.web.stock_picker import (
    FAILURE_CODES,
    PICKER_ERRORS,
    PROVIDERS,
    SET_PROVIDERS,
    picker_choices,
    source_picked,
)


@signed_in
async def source_photos(request: Request, viewer: Viewer) -> HTTPResponse:
    """Sources the checked photos into the library, then shows the outcome and the search again."""
    picker = picker_choices(request.form)
    sent = request.form.getlist("source_ref") if request.form is not None else None
    refs = [r.strip()[:200] for r in sent or [] if r.strip()]
    if not refs:
        # The form's own check: the core would refuse it too, in an API's words.
        refused = ApiError("VALIDATION_ERROR", "Choose at least one photo to add to the library.")
        return await media_page(request, viewer, status=400, failure=refused, picker=picker)
    try:
        done = await source_picked(request, viewer, refs, picker)
    except ApiError as error:
        if error.code not in PICKER_ERRORS:
            raise
        return await media_page(
            request, viewer, status=error.http_status, failure=error, picker=picker, checked=frozenset(refs)
        )
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
    Route("POST", "/dashboard/media/source", source_photos),
    Route("POST", "/dashboard/media/providers", save_providers),
)
