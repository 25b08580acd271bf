"""The organization's records in the dashboard: its profiles and its credits (balance, ledger)."""

from __future__ import annotations

from urllib.parse import urlencode

from herald.credits.v1 import credits_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.pages import dashboard_page, page_token, plan_name, signed_in, when
from facades.web.session import Viewer

PROFILES_PER_PAGE = 50
LEDGER_PER_PAGE = 25


def _next_link(path: str, token: str) -> str | None:
    return f"{path}?{urlencode({'page': token})}" if token else None


def records_blueprint() -> Blueprint:
    bp = Blueprint("dashboard_records", url_prefix="/dashboard")

    @bp.get("/profiles")
    @signed_in
    async def profiles(request: Request, viewer: Viewer) -> HTTPResponse:
        core = request.app.ctx.core
        token = page_token(request)
        try:
            result = await core.call(
                core.profiles.ListProfiles,
                profiles_pb2.ListProfilesRequest(page_size=PROFILES_PER_PAGE, page_token=token),
                authorization=viewer.authorization,
            )
        except ApiError as error:
            # Reading profiles needs a plan even for a session; say so instead of failing.
            if error.code not in ("SUBSCRIPTION_REQUIRED", "VALIDATION_ERROR"):
                raise
            return await dashboard_page(
                request,
                viewer,
                "profiles.html",
                "profiles",
                status=error.http_status,
                profiles=[],
                needs_plan=error.code == "SUBSCRIPTION_REQUIRED",
                error=None if error.code == "SUBSCRIPTION_REQUIRED" else error.message,
            )
        rows = [
            {
                "slug": p.slug,
                "platform": p.connector,
                "display_name": p.display_name,
                "tags": list(p.tags),
                "created": when(p.create_time),
            }
            for p in result.response.profiles
        ]
        return await dashboard_page(
            request,
            viewer,
            "profiles.html",
            "profiles",
            profiles=rows,
            needs_plan=False,
            first_page=bool(token),
            next_link=_next_link("/dashboard/profiles", result.response.next_page_token),
        )

    @bp.get("/credits")
    @signed_in
    async def credits(request: Request, viewer: Viewer) -> HTTPResponse:
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
                "time": when(e.create_time),
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
            first_page=bool(token),
            next_link=_next_link("/dashboard/credits", ledger.response.next_page_token),
        )

    return bp
