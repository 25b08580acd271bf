"""Where each argument of an operation travels over HTTP (path, query, header, JSON body, as the
contract's model marks it), and reading them into one dict for the model to check."""

from __future__ import annotations

import types
from dataclasses import dataclass
from functools import cache
from typing import Any, Union, get_args, get_origin

from sanic import Request as HttpRequest

from contract.base import InHeader, InPath, InQuery, Request
from facades.errors import ApiError
from facades.validation import json_object


@dataclass(frozen=True, slots=True)
class HttpFields:
    path: tuple[str, ...]
    query: dict[str, str]  # name → "int", "list" (the parameter repeated) or "str"
    headers: dict[str, str]  # argument → header name
    body: frozenset[str]
    names_in_body: frozenset[str]  # path or query arguments a body may repeat (Request.names_in_body)
    # Every body field has a default: no body at all means `{}` (e.g. approving a post).
    body_optional: bool = False


def _query_kind(annotation: Any) -> str:
    if get_origin(annotation) in (Union, types.UnionType):
        kinds = {_query_kind(a) for a in get_args(annotation) if a is not type(None)}
        return next(iter(kinds)) if len(kinds) == 1 else "str"
    if annotation is int:
        return "int"
    return "list" if get_origin(annotation) is list else "str"


@cache
def http_fields(model: type[Request]) -> HttpFields:
    path, query, headers, body = [], {}, {}, []
    for name, field in model.model_fields.items():
        marks = field.metadata
        if any(isinstance(m, InPath) for m in marks):
            path.append(name)
        elif any(isinstance(m, InQuery) for m in marks):
            # Sent under its alias where it has one (`from`, which Python cannot name a field).
            query[field.alias or name] = _query_kind(field.annotation)
        elif header := next((m for m in marks if isinstance(m, InHeader)), None):
            headers[name] = header.name
        else:
            body.append(name)
    optional = bool(body) and not any(model.model_fields[name].is_required() for name in body)
    return HttpFields(tuple(path), query, headers, frozenset(body), model.names_in_body, optional)


def read_arguments(request: HttpRequest, fields: HttpFields, path_params: dict[str, str]) -> dict[str, Any]:
    """The operation's arguments as sent; the model checks them. Unknown query parameters are
    ignored (as HTTP APIs commonly do); unknown body fields and repeated parameters are refused; a
    body field repeating an argument that names the resource must agree with it."""
    arguments: dict[str, Any] = {}
    repeated: dict[str, Any] = {}
    if fields.body:
        body = {} if fields.body_optional and not request.body else json_object(request.body)
        repeated = {name: body.pop(name) for name in fields.names_in_body & body.keys()}
        unknown = sorted(set(body) - fields.body)
        if unknown:
            names = ", ".join(k[:40] for k in unknown[:10])
            raise ApiError("VALIDATION_ERROR", f"unknown fields: {names}", {"argument": unknown[0][:40]})
        arguments.update(body)
    # Blank values kept: `?tag=` is an empty tag (refused), not an absent one.
    query = request.get_args(keep_blank_values=True) if fields.query else None
    for name, kind in fields.query.items():
        values = query.getlist(name, [])
        if not values:
            continue
        if kind == "list":
            arguments[name] = values  # ?profiles=a&profiles=b
            continue
        if len(values) > 1:
            raise ApiError("VALIDATION_ERROR", f"{name} must be sent once", {"argument": name})
        arguments[name] = _integer(name, values[0]) if kind == "int" else values[0]
    for name, header in fields.headers.items():
        values = request.headers.getall(header, [])
        if len(values) > 1:
            raise ApiError("VALIDATION_ERROR", f"send one {header} header", {"argument": name})
        if values:
            arguments[name] = values[0]
    for name in fields.path:
        arguments[name] = path_params[name]
    for name, value in repeated.items():
        if value != arguments.get(name):
            message = f"the body's {name} is not the request's: send the same one in both, or leave it out of the body"
            raise ApiError("VALIDATION_ERROR", message, {"argument": name})
    return arguments


def _integer(name: str, raw: str) -> int:
    text = raw.strip()
    if not text or not (text.isascii() and text.lstrip("-").isdigit()) or len(text) > 20:
        raise ApiError("VALIDATION_ERROR", f"{name} must be an integer", {"argument": name})
    return int(text)
