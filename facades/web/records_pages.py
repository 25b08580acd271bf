"""The organization's records in the dashboard: its profiles and its credits (balance, ledger)."""

from __future__ import annotations

from herald.connections.v1 import connections_pb2
from herald.credits.v1 import credits_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.pages import (
    Route,
    dashboard_page,
    form_value,
    page_token,
    pager,
    plan_name,
    see_other,
    signed_in,
    when,
)
from facades.web.session import Viewer

PROFILES_PER_PAGE = 50
LEDGER_PER_PAGE = 25

CONNECT_METHODS = "/herald.connections.v1.ConnectionService/ListPlatforms"


async def profiles_page(
    request: Request,
    viewer: Viewer,
    *,
    status: int = 200,
    error: str | None = None,
    form: dict[str, str] | None = None,
    connect: dict[str, str] | None = None,
) -> HTTPResponse:
    """The profiles page: the organization's profiles with their accounts, connecting an
    account of each platform, and adding a sandbox profile."""
    core = request.app.ctx.core
    token = page_token(request)
    # The platform keys (a profile's `connector`), in the order of the core's catalog.
    platforms = (await request.app.ctx.contract.get()).catalog.connectors
    connectable = await core.call(
        core.method(CONNECT_METHODS), connections_pb2.ListPlatformsRequest(), authorization=viewer.authorization
    )
    context = {
        "platforms": platforms,
        "connectable": [
            {"platform": p.platform, "method": p.method, "available": p.available}
            for p in connectable.response.platforms
        ],
        "publish_mode": connectable.response.publish_mode,
        "form": form or {"platform": platforms[0]},
        "connect": connect or {},
        "error": error,
        "connected": request.args.get("connection") == "connected" and request.args.get("profile", "")[:64],
        "connect_error": request.args.get("error", "")[:64],
    }
    try:
        result = await core.call(
            core.profiles.ListProfiles,
            profiles_pb2.ListProfilesRequest(page_size=PROFILES_PER_PAGE, page_token=token),
            authorization=viewer.authorization,
        )
    except ApiError as failure:
        if failure.code != "VALIDATION_ERROR":  # a malformed page token in the URL
            raise
        context["error"] = error or failure.message
        return await dashboard_page(
            request,
            viewer,
            "profiles.html",
            "profiles",
            status=status if error else failure.http_status,
            profiles=[],
            **context,
        )
    rows = [
        {
            "slug": p.slug,
            "platform": p.connector,
            "display_name": p.display_name,
            "tags": list(p.tags),
            "created": when(p.create_time, viewer.time_zone),
            "status": p.connection.status or "disconnected",
            "handle": p.connection.handle,
            "instance": p.connection.instance_url,
            "connection_error": p.connection.error,
        }
        for p in result.response.profiles
    ]
    return await dashboard_page(
        request,
        viewer,
        "profiles.html",
        "profiles",
        status=status,
        profiles=rows,
        **pager("/dashboard/profiles", token, result.response.next_page_token),
        **context,
    )


@signed_in
async def list_profiles(request: Request, viewer: Viewer) -> HTTPResponse:
    """The organization's profiles, 50 a page, with the forms that connect and add them."""
    return await profiles_page(request, viewer)


@signed_in
async def add_profile(request: Request, viewer: Viewer) -> HTTPResponse:
    """Adds a sandbox profile: no platform account, only the sandbox delivers to it."""
    form = {name: form_value(request, name) for name in ("slug", "platform", "display_name", "tags")}
    tags = [t.strip() for t in form["tags"].split(",") if t.strip()]
    core = request.app.ctx.core
    try:
        await core.call(
            core.profiles.CreateProfile,
            profiles_pb2.CreateProfileRequest(
                profile=profiles_pb2.Profile(
                    slug=form["slug"], connector=form["platform"], display_name=form["display_name"], tags=tags
                )
            ),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in ("VALIDATION_ERROR", "CONFLICT"):
            raise
        return await profiles_page(request, viewer, status=error.http_status, error=error.message, form=form)
    return see_other("/dashboard/profiles?notice=profile-added")


@signed_in
async def show_credits(request: Request, viewer: Viewer) -> HTTPResponse:
    """The balance, the plan and the ledger, 25 entries a page, newest first."""
    core = request.app.ctx.core
    token = page_token(request)
    account = await core.call(
        core.credits.GetCreditAccount,
        credits_pb2.GetCreditAccountRequest(recent_entries=0),
        authorization=viewer.authorization,
    )
    try:
        ledger = await core.call(
            core.credits.ListLedgerEntries,
            credits_pb2.ListLedgerEntriesRequest(page_size=LEDGER_PER_PAGE, page_token=token),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code != "VALIDATION_ERROR":
            raise
        return await dashboard_page(
            request,
            viewer,
            "credits.html",
            "credits",
            status=400,
            account=account.response,
            plan=plan_name(account.response.plan),
            entries=[],
            error=error.message,
        )
    entries = [
        {
            "time": when(e.create_time, viewer.time_zone),
            "delta": e.delta,
            "balance_after": e.balance_after,
            "reason": e.reason,
            "reference": e.reference,
        }
        for e in ledger.response.entries
    ]
    return await dashboard_page(
        request,
        viewer,
        "credits.html",
        "credits",
        account=account.response,
        plan=plan_name(account.response.plan),
        entries=entries,
        **pager("/dashboard/credits", token, ledger.response.next_page_token),
    )


ROUTES = (
    Route("GET", "/dashboard/profiles", list_profiles),
    Route("POST", "/dashboard/profiles", add_profile),
    Route("GET", "/dashboard/credits", show_credits),
)
