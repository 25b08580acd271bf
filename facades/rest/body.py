"""Reading JSON request bodies: the JSON types of each field, checked before anything reaches the
core (the core checks meaning). Shape errors are answered only after the credential and the plan
were checked (facades/rest/respond.py: reject_after_auth)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sanic import Request

from facades.errors import ApiError


def json_object(request: Request, allowed: frozenset[str]) -> dict[str, Any] | ApiError:
    if not request.body:
        return ApiError("VALIDATION_ERROR", "the request body must be a JSON object")
    try:
        body = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        return ApiError("VALIDATION_ERROR", "the request body is not valid JSON")
    if not isinstance(body, dict):
        return ApiError("VALIDATION_ERROR", "the request body must be a JSON object")
    if not is_valid_unicode(body):
        return ApiError("VALIDATION_ERROR", "strings must be valid Unicode (no lone surrogate escapes)")
    unknown = sorted(set(body) - allowed)
    if unknown:
        return ApiError("VALIDATION_ERROR", f"unknown fields: {', '.join(k[:40] for k in unknown[:10])}")
    return body


def is_valid_unicode(value: Any) -> bool:
    """False when a JSON string holds a lone surrogate (`"\\ud800"` is valid JSON but not text:
    nothing downstream can encode it)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def string(body: Mapping[str, Any], name: str, *, required: bool = False, nullable: bool = True) -> str | None:
    """The field's string value; None when absent (or null, where allowed)."""
    value = body.get(name)
    if value is None:
        if required or (name in body and not nullable):
            raise ApiError("VALIDATION_ERROR", f"{name} is required" if required else f"{name} must be a string")
        return None
    if not isinstance(value, str):
        raise ApiError("VALIDATION_ERROR", f"{name} must be a string")
    return value


def string_list(body: Mapping[str, Any], name: str, *, required: bool = False) -> list[str] | None:
    value = body.get(name)
    if value is None:
        if required:
            raise ApiError("VALIDATION_ERROR", f"{name} is required")
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ApiError("VALIDATION_ERROR", f"{name} must be an array of strings")
    return value


def string_map(body: Mapping[str, Any], name: str) -> dict[str, str] | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ApiError("VALIDATION_ERROR", f"{name} must be an object of strings")
    return value
