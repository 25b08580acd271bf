"""Checking arguments against the contract's models, for every surface: a failure is one
VALIDATION_ERROR naming the argument at fault (REST answers it after the access checks; MCP as
a tool error carrying `argument`)."""

from __future__ import annotations

import re
from typing import Any, TypeVar

import pydantic
from pydantic_core import ErrorDetails, from_json

from facades.errors import ApiError

T = TypeVar("T", bound=pydantic.BaseModel)

# pydantic's error types, in the words a caller acts on; the rest keep pydantic's message.
_MESSAGES = {
    "missing": "is required",
    "extra_forbidden": "is not an argument of this operation",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "bool_type": "must be true or false",
    "list_type": "must be an array",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "string_too_short": "must not be empty",
}


_SHOULD = re.compile(r"^(?:Input|String|List|Dictionary|Object|Tuple|Set) should")


def _where(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "arguments"


def _describe(error: ErrorDetails) -> str:
    message = _MESSAGES.get(error["type"]) or _SHOULD.sub("must", error["msg"].removeprefix("Value error, "))
    return f"{_where(error['loc'])} {message}"


def validate(model: type[T], arguments: dict[str, Any]) -> T:
    try:
        return model.model_validate(arguments)
    except pydantic.ValidationError as error:
        problems = error.errors(include_url=False, include_context=False, include_input=False)
        text = "; ".join(_describe(p) for p in problems[:5])
        if len(problems) > 5:
            text += f"; and {len(problems) - 5} more"
        argument = _where(problems[0]["loc"][:1]) if problems else "arguments"
        raise ApiError("VALIDATION_ERROR", text, {"argument": argument}) from None


def json_object(body: bytes | str, what: str = "the request body") -> dict[str, Any]:
    """A JSON object, or VALIDATION_ERROR: for malformed JSON, JSON that is not an object, text
    that is not valid Unicode (a lone surrogate escape) and nesting too deep to be a request
    (pydantic-core's parser stops at 200 levels instead of exhausting the stack)."""
    if not body:
        raise ApiError("VALIDATION_ERROR", f"{what} must be a JSON object")
    try:
        value = from_json(body)
    except ValueError as error:
        raise ApiError("VALIDATION_ERROR", f"{what} is not valid JSON: {str(error)[:120]}") from None
    if not isinstance(value, dict):
        raise ApiError("VALIDATION_ERROR", f"{what} must be a JSON object")
    return value
