"""herald.catalog.v1.CatalogService: serves the catalog built once at start-up."""

from __future__ import annotations

import grpc
from herald.catalog.v1 import catalog_pb2, catalog_pb2_grpc

from core.rpc.policy import MethodPolicy

POLICIES = {
    # Public facts, as openapi.json is: no credential is read and no transaction is opened.
    "GetCatalog": MethodPolicy(anonymous=True, transactional=False),
}


class CatalogServicer(catalog_pb2_grpc.CatalogServiceServicer):
    def __init__(self, catalog: catalog_pb2.Catalog) -> None:
        self.catalog = catalog

    async def GetCatalog(
        self, request: catalog_pb2.GetCatalogRequest, context: grpc.aio.ServicerContext
    ) -> catalog_pb2.Catalog:
        return self.catalog
