"""herald.credits.v1.CreditsService: translates proto to the credits service and back."""

from __future__ import annotations

import grpc
from herald.credits.v1 import credits_pb2, credits_pb2_grpc

from core.credits import service
from core.pagination import page_request
from core.rpc.context import current_call
from core.rpc.convert import PLAN_TO_PROTO, timestamp
from core.rpc.policy import MethodPolicy, PageBounds

DEFAULT_RECENT_ENTRIES = 20

POLICIES = {
    "GetCreditAccount": MethodPolicy(permission="read", plan_exempt_for_sessions=True),
    "ListLedgerEntries": MethodPolicy(
        permission="read", plan_exempt_for_sessions=True, page=PageBounds(default=50, maximum=100)
    ),
}


def _entry(entry: service.LedgerEntry) -> credits_pb2.LedgerEntry:
    return credits_pb2.LedgerEntry(
        id=entry.id,
        delta=entry.delta,
        balance_after=entry.balance_after,
        reason=entry.reason,
        reference=entry.reference,
        create_time=timestamp(entry.created_at),
    )


class CreditsServicer(credits_pb2_grpc.CreditsServiceServicer):
    async def GetCreditAccount(
        self, request: credits_pb2.GetCreditAccountRequest, context: grpc.aio.ServicerContext
    ) -> credits_pb2.CreditAccount:
        call = current_call()
        recent = request.recent_entries if request.HasField("recent_entries") else DEFAULT_RECENT_ENTRIES
        account = await service.get_account(
            call.conn, call.principal.org_id, recent, call.settings.low_credit_threshold
        )
        call.credits_remaining = account.balance
        return credits_pb2.CreditAccount(
            organization=account.org_slug,
            balance=account.balance,
            plan=PLAN_TO_PROTO[account.plan],
            low_credit_threshold=account.low_credit_threshold,
            recent_entries=[_entry(e) for e in account.recent_entries],
        )

    async def ListLedgerEntries(
        self, request: credits_pb2.ListLedgerEntriesRequest, context: grpc.aio.ServicerContext
    ) -> credits_pb2.ListLedgerEntriesResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListLedgerEntries"].page)
        entries, token = await service.list_entries(call.conn, call.principal.org_id, page)
        return credits_pb2.ListLedgerEntriesResponse(entries=[_entry(e) for e in entries], next_page_token=token)
