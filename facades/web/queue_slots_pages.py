"""The profile page's two queue-slot forms (docs/dashboard.md, "Profiles", Queue slots): "Suggest
from best times" draws the page again with the slots proposed (nothing is written), and "Use these
slots" saves those slots as the profile's table and comes back to the page with a notice. What the
core refuses (VALIDATION_ERROR, FORBIDDEN for a role without `publish`) is the page again with
the refusal in the section; another organization's profile is the 404 page."""

from __future__ import annotations

from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web import queue_slots
from facades.web.pages import Route, form_value, see_other, signed_in
from facades.web.profiles_pages import PROFILES, checked_slug, profile_page, profile_path
from facades.web.session import Viewer

# Refusals shown in the page's Queue slots section; anything else (NOT_FOUND) is a failure page.
_SHOWN = ("VALIDATION_ERROR", "FORBIDDEN", "INSUFFICIENT_SCOPE")


async def _refused(request: Request, viewer: Viewer, slug: str, error: ApiError, count: str = "") -> HTTPResponse:
    if error.code not in _SHOWN:
        raise error
    return await profile_page(request, viewer, slug, status=error.http_status, slots_failure=error, count=count)


@signed_in
async def suggest_slots(request: Request, viewer: Viewer, slug: str) -> HTTPResponse:
    """The profile's page with the slots its best times propose, `count` a week; saves nothing."""
    slug = checked_slug(slug)
    count = form_value(request, "count")[:8]
    try:
        proposal = await queue_slots.propose(request, viewer, slug, queue_slots.count_of(count))
    except ApiError as error:
        return await _refused(request, viewer, slug, error, count)
    return await profile_page(request, viewer, slug, suggestion=proposal, count=count)


@signed_in
async def use_slots(request: Request, viewer: Viewer, slug: str) -> HTTPResponse:
    """Saves the proposal's slots (the form carries them as shown) as the profile's slot table."""
    slug = checked_slug(slug)
    try:
        slots = queue_slots.slots_sent((request.form or {}).getlist("slot") or [])
        await queue_slots.save(request, viewer, slug, form_value(request, "timezone"), slots)
    except ApiError as error:
        return await _refused(request, viewer, slug, error)
    return see_other(f"{profile_path(slug)}?notice={queue_slots.SAVED}")


ROUTES = (
    Route("POST", f"{PROFILES}/<slug:str>/slots/suggest", suggest_slots),
    Route("POST", f"{PROFILES}/<slug:str>/slots", use_slots),
)
