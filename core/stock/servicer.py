"""herald.stock.v1.StockService: translates proto to the stock service and back."""

from __future__ import annotations

import grpc
from herald.stock.v1 import stock_pb2, stock_pb2_grpc

from core.identity.principal import CredentialKind
from core.rpc.context import current_call
from core.rpc.policy import MethodPolicy
from core.settings import CoreSettings
from core.stock import runs
from core.stock.config import stock_service
from core.stock.providers import Attribution, StockPhoto
from core.stock.results import Sourced
from core.storage.base import ObjectStorage

# Searching creates nothing: reading media is enough. Sourcing writes media and charges for it.
# Both call the provider over HTTP: no transaction stays open meanwhile.
POLICIES = {
    "SearchStock": MethodPolicy(permission="read", scopes=frozenset({"posts:read"}), transactional=False),
    "SourceMedia": MethodPolicy(
        permission="compose", scopes=frozenset({"media:write"}), writes=True, transactional=False
    ),
    "GetSourcingRun": MethodPolicy(permission="read", scopes=frozenset({"posts:read"}), transactional=False),
    # Which providers an organization uses is its humans' call (the dashboard), and servers' reading.
    "ListStockProviders": MethodPolicy(
        permission="read",
        credential_kinds=frozenset({CredentialKind.API_KEY, CredentialKind.SESSION}),
        plan_exempt_for_sessions=True,
    ),
    "SetStockProviders": MethodPolicy(
        permission="manage_integrations",
        credential_kinds=frozenset({CredentialKind.SESSION}),
        plan_exempt_for_sessions=True,
        writes=True,
    ),
}


def attribution_message(attribution: Attribution | None) -> stock_pb2.Attribution | None:
    if attribution is None:
        return None
    return stock_pb2.Attribution(
        photographer=attribution.photographer,
        photographer_url=attribution.photographer_url,
        source=attribution.source,
        source_url=attribution.source_url,
    )


def result_message(photo: StockPhoto) -> stock_pb2.StockResult:
    return stock_pb2.StockResult(
        source_ref=photo.source_ref,
        provider=photo.provider,
        preview_url=photo.preview_url,
        mime_type=photo.mime_type,
        width=photo.width,
        height=photo.height,
        alt_text=photo.alt_text,
        attribution=attribution_message(photo.attribution),
    )


class StockServicer(stock_pb2_grpc.StockServiceServicer):
    def __init__(self, settings: CoreSettings, storage: ObjectStorage) -> None:
        self.stock = stock_service(settings, storage)

    async def SearchStock(
        self, request: stock_pb2.SearchStockRequest, context: grpc.aio.ServicerContext
    ) -> stock_pb2.SearchStockResponse:
        call = current_call()
        found = await self.stock.search(
            call.transaction,
            call.principal.org_id,
            query=request.query,
            preset=request.preset,
            count=request.count,
            provider=request.provider,
        )
        return stock_pb2.SearchStockResponse(
            provider=found.provider,
            preset=found.preset,
            query=found.query,
            results=[result_message(p) for p in found.results],
        )

    async def SourceMedia(
        self, request: stock_pb2.SourceMediaRequest, context: grpc.aio.ServicerContext
    ) -> stock_pb2.SourceMediaResponse:
        call = current_call()
        done = await self.stock.source(
            call.transaction,
            call.principal.org_id,
            source_refs=list(request.source_refs),
            preset=request.preset,
            destination=request.destination,
            provider=request.provider,
            query=request.query,
            now=call.now,
        )
        call.credits_remaining = done.balance
        return sourced_message(done)

    async def ListStockProviders(
        self, request: stock_pb2.ListStockProvidersRequest, context: grpc.aio.ServicerContext
    ) -> stock_pb2.ListStockProvidersResponse:
        call = current_call()
        return _providers(await self.stock.list_providers(call.conn, call.principal.org_id))

    async def SetStockProviders(
        self, request: stock_pb2.SetStockProvidersRequest, context: grpc.aio.ServicerContext
    ) -> stock_pb2.ListStockProvidersResponse:
        call = current_call()
        await self.stock.set_disabled(call.conn, call.principal.org_id, list(request.disabled))
        return _providers(await self.stock.list_providers(call.conn, call.principal.org_id))

    async def GetSourcingRun(
        self, request: stock_pb2.GetSourcingRunRequest, context: grpc.aio.ServicerContext
    ) -> stock_pb2.SourceMediaResponse:
        call = current_call()
        done = await runs.read(call.transaction, call.principal.org_id, request.run_id, call.now)
        call.credits_remaining = done.balance
        return sourced_message(done)


def _providers(found: list[tuple[str, bool, bool]]) -> stock_pb2.ListStockProvidersResponse:
    return stock_pb2.ListStockProvidersResponse(
        providers=[stock_pb2.StockProvider(provider=p, configured=c, enabled=e) for p, c, e in found]
    )


def sourced_message(done: Sourced) -> stock_pb2.SourceMediaResponse:
    return stock_pb2.SourceMediaResponse(
        kind="run" if done.run_id else "media",
        run_id=done.run_id,
        status=done.status,
        requested_count=done.requested,
        delivered_count=len(done.delivered),
        media_ids=[d.media_id for d in done.delivered],
        media=[
            stock_pb2.SourcedMedia(
                media_id=d.media_id,
                alt_text=d.photo.alt_text,
                provider=d.photo.provider,
                source_ref=d.photo.source_ref,
                attribution=attribution_message(d.photo.attribution),
            )
            for d in done.delivered
        ],
        failures=[
            stock_pb2.SourceFailure(source_ref=f.source_ref, code=f.code, message=f.message) for f in done.failures
        ],
        error=stock_pb2.SourcingError(code=done.error[0], message=done.error[1]) if done.error else None,
    )
