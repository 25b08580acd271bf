"""The core's catalog (herald.catalog.v1.Catalog) as the contract reads it."""

from __future__ import annotations

from functools import cached_property

from herald.catalog.v1 import catalog_pb2
from pydantic import Field
from pydantic.fields import FieldInfo


class Catalog:
    """Read-only views over one catalog message, served by the core's CatalogService."""

    def __init__(self, message: catalog_pb2.Catalog) -> None:
        self.message = message
        self.limits = message.field_limits
        self._methods = {m.name: m for m in message.methods}

    @cached_property
    def connectors(self) -> tuple[str, ...]:
        """The platform keys, in the catalog's order."""
        return tuple(p.key for p in self.message.platforms)

    @cached_property
    def post_types(self) -> dict[str, tuple[str, ...]]:
        """Platform key → its post types, the default first."""
        return {p.key: tuple(t.name for t in p.post_types) for p in self.message.platforms}

    @cached_property
    def mime_types(self) -> tuple[str, ...]:
        return tuple(t.mime_type for t in self.message.media_types)

    @cached_property
    def media_kinds(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t.kind for t in self.message.media_types))

    @cached_property
    def advertised_scopes(self) -> list[str]:
        return [s.name for s in self.message.scopes if s.advertised]

    @cached_property
    def scope_descriptions(self) -> dict[str, str]:
        return {s.name: s.description for s in self.message.scopes}

    def method(self, full_name: str) -> catalog_pb2.Method:
        """Facts of one core method by its gRPC path (`/herald.posts.v1.PostService/CreatePosts`)."""
        try:
            return self._methods[full_name]
        except KeyError:
            raise LookupError(f"the core's catalog has no method {full_name}") from None

    def page_size(self, full_name: str) -> FieldInfo:
        """A list method's page_size field: 0 (the default) to its maximum."""
        bounds = self.method(full_name).page
        if not bounds.max_size:
            raise LookupError(f"{full_name} does not page")
        return Field(
            ge=0,
            le=bounds.max_size,
            description=f"Items per page, 1 to {bounds.max_size}; 0 or absent: {bounds.default_size}.",
        )
