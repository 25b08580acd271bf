"""Stock photos added from inside compose (docs/dashboard.md, "Compose", Media): the picker is the
media page's (stock_picker.py, templates/stock_picker.html) and its fields are the compose
form's, so "Add to this post" posts the whole form, the draft with it, to
POST /dashboard/compose/stock. The checked photos are sourced into the library with SourceMedia
(charged per photo delivered, as on the media page) and the form comes back as it was sent, the
delivered photos attached. A refusal is the form again with the picker's alert and the photos
still checked; nothing is lost either way."""

from __future__ import annotations

from herald.stock.v1 import stock_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.compose_form import read_form
from facades.web.compose_pages import compose_page
from facades.web.pages import Route, signed_in
from facades.web.session import Viewer
from facades.web.stock_picker import FAILURE_CODES, PICKER_ERRORS, picker_choices, source_picked


def _outcome(done: stock_pb2.SourceMediaResponse) -> str:
    """What the page says after a sourcing: the photos attached, those that failed (uncharged,
    with their codes), or a sourcing still running."""
    if done.kind == "run":
        return (
            "The photos are still being fetched: they will be in the library in a moment, "
            "listed here after a reload, and are charged once delivered."
        )
    delivered = done.delivered_count
    said = f"{delivered} photo{'s' if delivered != 1 else ''} added to the library and attached to this post."
    if done.failures:
        codes = sorted({f.code for f in done.failures if f.code in FAILURE_CODES})
        failed = len(done.failures)
        said += f" {failed} could not be delivered and {'were' if failed != 1 else 'was'} not charged" + (
            f" ({', '.join(codes)})." if codes else "."
        )
    return said


@signed_in
async def add_stock(request: Request, viewer: Viewer) -> HTTPResponse:
    """Sources the checked photos of the search the form shows (its `searched_…` fields) and
    shows the form again, as sent, with them attached."""
    values = request.form
    form = read_form(values, default_zone=viewer.time_zone)
    searched = picker_choices(values, prefix="searched_")
    sent = values.getlist("source_ref") if values is not None else None
    refs = list(dict.fromkeys(r.strip()[:200] for r in sent or [] if isinstance(r, str) and r.strip()))
    if not refs:
        # The form's own check: the core would refuse it too, in an API's words.
        refused = ApiError("VALIDATION_ERROR", "Choose at least one photo to add to this post.")
        return await compose_page(request, viewer, form=form, status=400, stock_failure=refused)
    try:
        done = await source_picked(request, viewer, refs, searched)
    except ApiError as error:
        if error.code not in PICKER_ERRORS:
            raise
        return await compose_page(
            request, viewer, form=form, status=error.http_status, stock_failure=error, checked=frozenset(refs)
        )
    form.media_ids = list(dict.fromkeys([*form.media_ids, *done.media_ids]))
    return await compose_page(request, viewer, form=form, flash=_outcome(done))


ROUTES = (Route("POST", "/dashboard/compose/stock", add_stock),)
