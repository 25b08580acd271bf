"""The organization's settings in the dashboard: its name and its time zone, the zone every
dashboard page shows times in, and which posts wait for a person's approval (docs/dashboard.md,
"Settings"; docs/teams.md, "Approvals"). Two forms, each saved with UpdateOrganization sending only
its own fields, so saving one never rewrites the other."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from herald.identity.v1 import accounts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.organization import DEFAULT_TIME_ZONE, time_zones
from facades.errors import ApiError
from facades.web.members_pages import in_words
from facades.web.pages import Route, dashboard_page, form_value, notice, see_other, signed_in, when
from facades.web.profiles_pages import tags_of
from facades.web.session import Viewer

OTHER = "Other"  # the group of names without a region (`GB`, `EST5EDT`)
# approvals_required_for's values and their checkboxes' labels (core/identity/organization.py CHANNELS).
CHANNELS = {"agents": "Agents", "api_keys": "API keys"}
APPROVALS_SAVED = "The approval settings are saved: they hold for posts created from now on."
# The approval form's refusals shown in its section in the core's words (FORBIDDEN: a role without
# manage_members); anything else is a failure page.
_APPROVALS_SHOWN = ("VALIDATION_ERROR", "FORBIDDEN")


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
    approvals: dict[str, Any] | None = None,
    approvals_error: ApiError | None = None,
) -> HTTPResponse:
    """The forms, filled with the saved settings, or the one refused with what was sent."""
    core = request.app.ctx.core
    settings = (
        await core.call(
            core.accounts.GetOrganization, accounts_pb2.GetOrganizationRequest(), authorization=viewer.authorization
        )
    ).response
    form = form or {"name": settings.name, "time_zone": settings.time_zone}
    saved = settings.approvals
    approvals = approvals or {
        "required_for": list(saved.required_for),
        "tags": ", ".join(saved.profile_tags),
        "self_approval": saved.self_approval,
    }
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
        approvals=approvals,
        approvals_error=approvals_error and {"code": approvals_error.code, "words": in_words(approvals_error)},
        channels=CHANNELS,
        flash=APPROVALS_SAVED if request.args.get("notice") == "approvals-saved" else notice(request),
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


@signed_in
async def save_approval_settings(request: Request, viewer: Viewer) -> HTTPResponse:
    """Saves which posts wait for approval (approvals_required_for, approval_profile_tags,
    self_approval); a refused form is shown again as it was sent, the refusal in its words."""
    checked = (request.form.getlist("required_for") if request.form else None) or []
    sent = {
        "required_for": [c for c in CHANNELS if c in checked],
        "tags": form_value(request, "approval_profile_tags")[:2000],
        "self_approval": form_value(request, "self_approval") == "true",
    }
    core = request.app.ctx.core
    message = accounts_pb2.UpdateOrganizationRequest(
        approvals_required_for=accounts_pb2.StringList(values=sent["required_for"]),
        approval_profile_tags=accounts_pb2.StringList(values=tags_of(sent["tags"])),
        self_approval=sent["self_approval"],
    )
    try:
        await core.call(core.accounts.UpdateOrganization, message, authorization=viewer.authorization)
    except ApiError as error:
        if error.code not in _APPROVALS_SHOWN:
            raise
        return await settings_page(request, viewer, status=error.http_status, approvals=sent, approvals_error=error)
    return see_other("/dashboard/settings?notice=approvals-saved")


ROUTES = (
    Route("GET", "/dashboard/settings", organization_settings),
    Route("POST", "/dashboard/settings", save_organization_settings),
    Route("POST", "/dashboard/settings/approvals", save_approval_settings),
)
