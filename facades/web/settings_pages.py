"""The organization's settings in the dashboard: its name and its time zone, the zone every
dashboard page shows times in (docs/dashboard.md, "Settings")."""

from __future__ import annotations

from itertools import groupby

from herald.identity.v1 import accounts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.organization import DEFAULT_TIME_ZONE, time_zones
from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, form_value, see_other, signed_in, when
from facades.web.session import Viewer

OTHER = "Other"  # the group of names without a region (`GB`, `EST5EDT`)


def zone_groups(current: str) -> list[tuple[str, list[str]]]:
    """The time zones the form offers, grouped by region (`Europe/Paris` under Europe; names
    without a region under Other); UTC, the default, is offered before them. A value the list lacks (one the core
    refused) is offered too, so a refused form keeps what was sent."""
    names = (set(time_zones()) | ({current} if current else set())) - {DEFAULT_TIME_ZONE}
    ordered = sorted(names, key=lambda name: (_region(name) == OTHER, _region(name), name))
    return [(region, list(zones)) for region, zones in groupby(ordered, key=_region)]


def _region(name: str) -> str:
    region, slash, _ = name.partition("/")
    return region if slash else OTHER


async def settings_page(
    request: Request,
    viewer: Viewer,
    *,
    status: int = 200,
    error: str | None = None,
    form: dict[str, str] | None = None,
) -> HTTPResponse:
    """The form, filled with the saved settings, or with what was sent when a save was refused."""
    core = request.app.ctx.core
    settings = (
        await core.call(
            core.accounts.GetOrganization, accounts_pb2.GetOrganizationRequest(), authorization=viewer.authorization
        )
    ).response
    form = form or {"name": settings.name, "time_zone": settings.time_zone}
    return await dashboard_page(
        request,
        viewer,
        "settings.html",
        "settings",
        status=status,
        error=error,
        organization=settings,
        created=when(settings.create_time, viewer.time_zone),
        form=form,
        zone_groups=zone_groups(form["time_zone"]),
    )


@signed_in
async def organization_settings(request: Request, viewer: Viewer) -> HTTPResponse:
    """The organization's name and time zone, in a form."""
    return await settings_page(request, viewer)


@signed_in
async def save_organization_settings(request: Request, viewer: Viewer) -> HTTPResponse:
    """Saves the name and the time zone; a refused form is shown again as it was sent."""
    form = {"name": form_value(request, "name"), "time_zone": form_value(request, "time_zone")}
    core = request.app.ctx.core
    try:
        await core.call(
            core.accounts.UpdateOrganization,
            accounts_pb2.UpdateOrganizationRequest(name=form["name"], time_zone=form["time_zone"]),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code != "VALIDATION_ERROR":
            raise
        return await settings_page(request, viewer, status=error.http_status, error=error.message, form=form)
    return see_other("/dashboard/settings?notice=settings-saved")


ROUTES = (
    Route("GET", "/dashboard/settings", organization_settings),
    Route("POST", "/dashboard/settings", save_organization_settings),
)
