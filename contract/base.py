"""The building blocks of the contract's models: strict request models, response models, where a
request field travels over HTTP, constraints taken from the core's catalog, and timestamps."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from google.protobuf.timestamp_pb2 import Timestamp
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.json_schema import GenerateJsonSchema

if TYPE_CHECKING:
    from contract.catalog import Catalog


class Request(BaseModel):
    """The arguments of one operation, wherever they travel (REST path, query, header, JSON
    body; MCP tool arguments). Strict: unknown fields are refused and nothing is coerced (`5`
    is not a string, `"5"` is not an integer)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    # Path or query arguments naming the resource, which a body read from that resource carries
    # too (`profile` of a brand voice): REST accepts such a body field when it names what the
    # argument names (absent and null alike) and refuses it otherwise (VALIDATION_ERROR), as
    # AIP-134 wants a resource's name in an update's body to agree with the request's.
    names_in_body: ClassVar[frozenset[str]] = frozenset()

    def to_proto(self) -> Any:  # each request returns its own message type
        raise NotImplementedError


class Response(BaseModel):
    """A shape Herald answers with: the model is its schema, and its `from_proto(message)`
    classmethod renders a core message straight to that shape's JSON (a dict), without building
    a model instance on the hot path (tests/test_contract_shapes.py checks every rendering
    against its model). Open in its own schema so a response body can add `warning`; the
    documents that need closed shapes close them where they use them."""

    model_config = ConfigDict(frozen=True)


# Where a request field travels over HTTP; a field without a marker is in the JSON body.
@dataclass(frozen=True, slots=True)
class InPath:
    pass


@dataclass(frozen=True, slots=True)
class InQuery:
    pass


@dataclass(frozen=True, slots=True)
class InHeader:
    name: str


@dataclass(frozen=True, slots=True)
class FromCatalog:
    """A constraint whose value the core owns: `resolve(catalog)` returns either pydantic
    `Field(...)` constraints or a type that replaces the field's (e.g. a Literal of platform
    keys). `contract.binding.specialise` applies it."""

    resolve: Callable[[Catalog], Any]


def _unique(values: list[str] | None) -> list[str] | None:
    if values is not None and len(set(values)) != len(values):
        repeated = sorted({v for v in values if values.count(v) > 1})
        raise ValueError(f"names {', '.join(repr(v[:64]) for v in repeated[:5])} more than once")
    return values


# An array of strings without repeats (JSON Schema `uniqueItems`).
UniqueStrings = Annotated[list[str], AfterValidator(_unique), Field(json_schema_extra={"uniqueItems": True})]

TIMESTAMP_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"
# ISO 8601 in UTC with milliseconds, as every response renders times: `2026-11-22T03:39:26.123Z`.
UtcTimestamp = Annotated[str, Field(json_schema_extra={"format": "date-time", "pattern": TIMESTAMP_PATTERN})]
# An ISO 8601 date-time a request sends (with an offset); the core parses and bounds it.
DateTime = Annotated[str, Field(min_length=1, json_schema_extra={"format": "date-time"})]


def timestamp(value: Timestamp) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(value.seconds)) + f".{value.nanos // 1_000_000:03d}Z"


class SchemaGenerator(GenerateJsonSchema):
    """JSON Schema 2020-12 without pydantic's per-field titles (noise for agents), and without
    `"default": null` on fields that may be absent but not null (a PATCH field, a page token)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def default_schema(self, schema: Any) -> dict[str, Any]:
        out = super().default_schema(schema)
        if out.get("default", ...) is None and not _allows_null(out):
            del out["default"]
        return out


def _allows_null(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    return any(_allows_null(option) for option in schema.get("anyOf", ()))
