"""Error codes are declared once (the ErrorReason enum): every code the core can raise is in it,
each has an HTTP status, and both surfaces render each of them (REST `{error, code}`, MCP a
tool error or, for the token's own failures, an HTTP challenge). Pure: no process is started."""

from __future__ import annotations

import json

import pytest

import core.server  # noqa: F401 - imports every service, so every DomainError subclass exists
from contract.errors import REASONS
from core.errors import DomainError
from core.oauth.errors import OAuthError as CoreOAuthError
from facades.errors import HTTP_STATUS, OAUTH_STATUS, ApiError
from facades.mcp.server import _refusal_from
from facades.mcp.tools import ACCESS_CODES, tool_error


def _subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return found


def test_every_reason_the_core_raises_is_declared_with_a_status() -> None:
    api = {c.reason for c in _subclasses(DomainError) if c.domain == "herald.api"}
    assert len(api) >= 19
    assert api <= set(REASONS), api - set(REASONS)
    oauth = {c.reason for c in _subclasses(CoreOAuthError) if c is not CoreOAuthError}
    assert oauth <= set(OAUTH_STATUS), oauth - set(OAUTH_STATUS)


def test_a_reason_outside_the_enum_cannot_be_defined() -> None:
    with pytest.raises(TypeError, match="ErrorReason"):

        class Invented(DomainError):  # defining it is the test
            reason = "SOMETHING_NEW"


def test_spec_codes_keep_their_statuses() -> None:
    spec = {
        "VALIDATION_ERROR": 400,
        "INVALID_MEDIA": 400,
        "INVALID_MEDIA_COMBINATION": 400,
        "UNSUPPORTED_MEDIA_TYPE": 400,
        "FILE_TOO_LARGE": 400,
        "FILE_NOT_UPLOADED": 400,
        "FILE_SIZE_MISMATCH": 400,
        "UNKNOWN_PRESET": 400,
        "UNKNOWN_PROVIDER": 400,
        "PRESET_DESTINATION": 400,
        "STOCK_NOT_CONFIGURED": 400,
        "UNAUTHORIZED": 401,
        "SUBSCRIPTION_REQUIRED": 402,
        "INSUFFICIENT_CREDITS": 402,
        "NOT_FOUND": 404,
        "RATE_LIMITED": 429,
        "PROVIDER_ERROR": 502,
        "SOURCE_FAILED": 502,
    }
    assert {code: HTTP_STATUS[code] for code in spec} == spec
    assert all(400 <= reason.http_status < 600 for reason in REASONS.values())
    assert {c for c, r in REASONS.items() if r.retryable} == {
        "RATE_LIMITED",
        "TOO_MANY_ATTEMPTS",
        "INTERNAL",
        "PROVIDER_ERROR",
        "SOURCE_FAILED",
        "SERVICE_UNAVAILABLE",
        "GENERATION_FAILED",
        "GENERATION_TIMEOUT",
        "CONNECTION_FAILED",
    }


@pytest.mark.parametrize("code", list(REASONS))
def test_every_reason_renders_on_both_surfaces(code: str) -> None:
    error = ApiError(code, "message", {"valid_for": "x,bluesky"} if code == "PRESET_DESTINATION" else None)
    assert error.code == code and error.http_status == REASONS[code].http_status
    body = error.body()
    assert body["code"] == code and body["error"] == "message"
    if code in ACCESS_CODES:
        refusal = _refusal_from(error)
        assert refusal is not None and refusal.status in (401, 403)
        return
    result = tool_error(error)
    assert result["isError"] is True and "structuredContent" not in result
    failure = json.loads(result["content"][0]["text"])
    assert failure["code"] == code and failure["retryable"] is REASONS[code].retryable
    if code == "PRESET_DESTINATION":
        assert failure["valid_for"] == body["valid_for"] == ["x", "bluesky"]
