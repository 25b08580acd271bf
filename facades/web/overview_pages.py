"""The overview (`/dashboard`): the signed-in human, the organization's plan and balance, and
the organization switcher every page's header carries."""

from __future__ import annotations

from herald.credits.v1 import credits_pb2
from herald.identity.v1 import accounts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, form_value, plan_name, see_other, signed_in
from facades.web.session import Viewer


@signed_in
async def overview(request: Request, viewer: Viewer) -> HTTPResponse:
    """Who is signed in, to which organization, on which plan, with what balance."""
    core = request.app.ctx.core
    account = await core.call(
        core.credits.GetCreditAccount,
        credits_pb2.GetCreditAccountRequest(recent_entries=0),
        authorization=viewer.authorization,
    )
    return await dashboard_page(
        request,
        viewer,
        "overview.html",
        "overview",
        email=viewer.principal.email,
        plan=plan_name(viewer.principal.plan),
        balance=account.response.balance,
        low_credit_threshold=account.response.low_credit_threshold,
    )


@signed_in
async def switch_organization(request: Request, viewer: Viewer) -> HTTPResponse:
    """Makes another organization of the user's the session's current one."""
    core = request.app.ctx.core
    try:
        await core.call(
            core.accounts.SwitchOrganization,
            accounts_pb2.SwitchOrganizationRequest(organization=form_value(request, "organization")),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in ("NOT_FOUND", "VALIDATION_ERROR"):
            raise
        return await dashboard_page(
            request,
            viewer,
            "message.html",
            "overview",
            status=error.http_status,
            heading="Organization not switched",
            message=error.message,
            role_alert=True,
            link="/dashboard",
            link_text="Back to the overview",
        )
    return see_other("/dashboard?notice=switched")


ROUTES = (
    Route("GET", "/dashboard", overview),
    Route("POST", "/dashboard/organization", switch_organization),
)
