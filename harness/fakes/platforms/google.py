"""Google's JSON error answer, as the YouTube Data API sends it (`errors[].reason` names what
happened)."""

from __future__ import annotations

from typing import Any

from harness.fakes.platforms.base import Answer, answer

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def google_error(status: int, reason: str, message: str, *, domain: str = "global", location: str = "") -> Answer:
    """Google's JSON error (the Data API's `errors[].reason` names what happened)."""
    item: dict[str, Any] = {"message": message, "domain": domain, "reason": reason}
    if location:
        item |= {"location": location, "locationType": "header"}
    body = {"error": {"code": status, "message": message, "errors": [item], "status": _STATUS_NAMES.get(status, "")}}
    return answer(status, body)
