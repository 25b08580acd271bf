"""Operations on licensed stock photos (docs/stock.md)."""

from __future__ import annotations

from herald.stock.v1 import stock_pb2

from contract import stock as st
from contract.operation import Operation, Tool
from contract.requests import rpc_path

ROWS = (
    Operation(
        id="searchStock",
        method="POST",
        path="/v1/media/stock/search",
        summary="Search licensed stock photos (free; creates nothing)",
        tag="media",
        rpc=rpc_path(stock_pb2, "StockService", "SearchStock"),
        request=st.SearchStockRequest,
        responses={200: st.StockSearch},
        errors=("UNKNOWN_PRESET", "UNKNOWN_PROVIDER", "STOCK_NOT_CONFIGURED", "RATE_LIMITED", "PROVIDER_ERROR"),
        description="RATE_LIMITED carries `retry_after` (seconds) and a Retry-After header when the provider said.",
        tool=Tool(
            name="search_stock",
            title="Search stock photos",
            description="Search licensed stock photos for a post; free, creates nothing. Pick results by "
            "source_ref and turn them into media with source_media. stock_b results carry an attribution the "
            "post must credit.",
            read_only=True,
            idempotent=True,
            open_world=True,
        ),
    ),
    Operation(
        id="sourceMedia",
        method="POST",
        path="/v1/media/source",
        summary="Turn chosen stock photos into library media, cropped to a preset",
        tag="media",
        rpc=rpc_path(stock_pb2, "StockService", "SourceMedia"),
        request=st.SourceMediaRequest,
        responses={200: st.Sourcing},
        errors=(
            "UNKNOWN_PRESET",
            "UNKNOWN_PROVIDER",
            "PRESET_DESTINATION",
            "STOCK_NOT_CONFIGURED",
            "INSUFFICIENT_CREDITS",
            "SOURCE_FAILED",
        ),
        links=("run_id", "$response.body#/run_id", ("getSourcingRun",)),
        description="Answers kind media; when the photos take longer than the call may wait "
        "(HERALD_STOCK_SOURCE_WAIT_SECONDS), kind run with run_id, to read with getSourcingRun. "
        "Charged per image delivered, never per image requested: a photo that fails to save is listed "
        "under failures and not charged; when every photo fails, SOURCE_FAILED and nothing is charged. "
        "INSUFFICIENT_CREDITS when the balance cannot pay for every photo asked for (nothing fetched).",
        tool=Tool(
            name="source_media",
            title="Source stock photos as media",
            description="Turn photos picked from search_stock into media_ids (with alt text and, for stock_b, the "
            "attribution to credit), cropped to the preset; costs credits per image delivered. Give destination "
            "to be told before anything is charged when the preset cannot be posted there.",
            open_world=True,
        ),
    ),
    Operation(
        id="getSourcingRun",
        method="GET",
        path="/v1/media/source/runs/{run_id}",
        summary="Read a sourcing that outlasted its call",
        tag="media",
        rpc=rpc_path(stock_pb2, "StockService", "GetSourcingRun"),
        request=st.GetSourcingRunRequest,
        responses={200: st.Sourcing},
        errors=("NOT_FOUND",),
        description="`running` until the photos are in; then `ready` with the media (charged per image delivered), "
        "or `failed` with `error` (nothing charged).",
        tool=Tool(
            name="get_sourcing_run",
            title="Read a sourcing run",
            description="Collect the media of a source_media call that answered kind run (it outlasted the call): "
            "status running, then ready with media_ids, or failed with the error.",
            read_only=True,
            idempotent=True,
        ),
    ),
)
