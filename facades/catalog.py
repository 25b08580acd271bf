"""The contract as this facade serves it: bound to the core's catalog, read from the core once.

The facade keeps no copy of the core's facts (platforms, limits, page sizes, scopes): it asks
CatalogService.GetCatalog when it starts and, should the core not be up yet, again on the next
request that needs it (that request answers 503 SERVICE_UNAVAILABLE meanwhile)."""

from __future__ import annotations

import asyncio
import logging

from herald.catalog.v1 import catalog_pb2

from contract.binding import Contract
from contract.catalog import Catalog
from contract.requests import rpc_path
from facades.core_client import CoreClient
from facades.errors import ApiError

GET_CATALOG = rpc_path(catalog_pb2, "CatalogService", "GetCatalog")

log = logging.getLogger(__name__)


class ContractSource:
    def __init__(self, core: CoreClient) -> None:
        self._core = core
        self._contract: Contract | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> Contract:
        if self._contract is not None:
            return self._contract
        async with self._lock:
            if self._contract is None:
                result = await self._core.call(
                    self._core.method(GET_CATALOG), catalog_pb2.GetCatalogRequest(), authorization=None
                )
                self._contract = Contract(Catalog(result.response))
        return self._contract

    async def warm(self) -> None:
        """Fetches the catalog ahead of the first request; failing is fine (the core may start later)."""
        try:
            await self.get()
        except ApiError as error:
            log.info("catalog not fetched yet (%s); the first request that needs it will", error.code)
