"""The organization's credits in the dashboard: the balance, the plan and the ledger."""

from __future__ import annotations

from herald.credits.v1 import credits_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, page_token, pager, plan_name, signed_in, when
from facades.web.session import Viewer

LEDGER_PER_PAGE = 25


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


ROUTES = (Route("GET", "/dashboard/credits", show_credits),)
