"""Binds the contract to one core's catalog: models whose constraints the catalog fills in
(`FromCatalog`), and the JSON Schemas (2020-12) generated from them."""

from __future__ import annotations

import copy
import types
from collections.abc import Callable
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, create_model
from pydantic.fields import FieldInfo

from contract.base import FromCatalog, SchemaGenerator
from contract.catalog import Catalog


def _allows_none(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation)


class Contract:
    """The contract as one core's catalog completes it. Specialised models are built once and
    cached; they are subclasses of the contract's models, so `to_proto`/`from_proto` still apply."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._models: dict[type[BaseModel], type[BaseModel]] = {}
        self._cache: dict[str, Any] = {}

    def cached(self, key: str, build: Callable[[], Any]) -> Any:
        """A value derived from this contract (a schema, a document), built once."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def model(self, model: type[BaseModel]) -> type[BaseModel]:
        """`model` with every catalog constraint applied, its nested models too."""
        if model not in self._models:
            self._models[model] = self._specialise(model)
        return self._models[model]

    def _specialise(self, model: type[BaseModel]) -> type[BaseModel]:
        overrides: dict[str, Any] = {}
        for name, field in model.model_fields.items():
            annotation = self._bind(field.annotation)
            marks = [m for m in field.metadata if isinstance(m, FromCatalog)]
            info = field
            for mark in marks:
                resolved = mark.resolve(self.catalog)
                if isinstance(resolved, FieldInfo):
                    info = FieldInfo.merge_field_infos(info, resolved)
                else:
                    replaced = self._bind(resolved)
                    annotation = replaced | None if _allows_none(field.annotation) else replaced
            if annotation is not field.annotation or info is not field:
                overrides[name] = (annotation, info)
        if not overrides:
            return model
        return create_model(
            model.__name__, __base__=model, __module__=model.__module__, __doc__=model.__doc__, **overrides
        )

    def _bind(self, annotation: Any) -> Any:  # a type expression
        """The annotation with catalog constraints applied, also inside unions and containers
        (`Connector | None`: the marker sits on the union's member)."""
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return self.model(annotation)
        origin, args = get_origin(annotation), get_args(annotation)
        if origin is Annotated:
            if not any(isinstance(m, FromCatalog) for m in args[1:]) and self._bind(args[0]) is args[0]:
                return annotation
            base, metadata = args[0], [m for m in args[1:] if not isinstance(m, FromCatalog)]
            for mark in (m for m in args[1:] if isinstance(m, FromCatalog)):
                resolved = mark.resolve(self.catalog)
                if isinstance(resolved, FieldInfo):
                    metadata.append(resolved)
                else:
                    base = resolved
            base = self._bind(base)
            return Annotated[(base, *metadata)] if metadata else base
        if origin is None or not args:
            return annotation
        bound = tuple(self._bind(a) for a in args)
        if bound == args:
            return annotation
        if origin in (Union, types.UnionType):
            return Union[bound]  # built from a tuple
        return origin[bound if len(bound) > 1 else bound[0]]

    def json_schema(self, model: type[BaseModel], *, mode: str = "validation") -> dict[str, Any]:
        """The model's JSON Schema with every `$ref` inlined: one self-contained object, as MCP
        tool schemas are best given (clients differ in how they resolve `$defs`)."""
        schema = self.model(model).model_json_schema(mode=mode, schema_generator=SchemaGenerator)  # type: ignore[arg-type]
        return inline_refs(schema)


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replaces `{"$ref": "#/$defs/X"}` by X's schema (the contract's models are not recursive)."""
    definitions = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node and node["$ref"].startswith("#/$defs/"):
                target = walk(copy.deepcopy(definitions[node["$ref"].removeprefix("#/$defs/")]))
                rest = {k: walk(v) for k, v in node.items() if k != "$ref"}
                return {**target, **rest}
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)
