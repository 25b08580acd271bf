"""Error reasons, declared once in proto/herald/api/v1/errors.proto (ErrorReason, with each
reason's HTTP status and whether it is retryable), and the shapes failures take
(docs/api.md, "Errors")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from herald.api.v1 import errors_pb2
from pydantic import Field

from contract.base import Response

_PREFIX = "ERROR_REASON_"


@dataclass(frozen=True, slots=True)
class Reason:
    code: str
    http_status: int
    retryable: bool


def _reasons() -> dict[str, Reason]:
    reasons = {}
    for value in errors_pb2.ErrorReason.DESCRIPTOR.values:
        if value.number == 0:
            continue
        options = value.GetOptions()
        code = value.name.removeprefix(_PREFIX)
        reasons[code] = Reason(
            code, options.Extensions[errors_pb2.http_status], options.Extensions[errors_pb2.retryable]
        )
    return reasons


# Every stable code, in the enum's order: code → Reason.
REASONS: dict[str, Reason] = _reasons()


class Error(Response):
    """Every failure at /v1: `error` is for humans and may change; branch on `code`."""

    error: str
    code: str = Field(json_schema_extra={"enum": list(REASONS)})
    valid_for: list[str] = Field(
        default=[],
        description="With PRESET_DESTINATION: the destinations the preset reaches; with UNSUPPORTED_FEATURE: the "
        "platforms that can take the feature.",
    )
    phrase: str = Field(default="", description="Only with NEVER_PUBLISH_PHRASE: the phrase found.")
    profile: str = Field(
        default="",
        description="With NEVER_PUBLISH_PHRASE: the profile whose voice forbids it; with RECONNECT_REQUIRED: the "
        "profile to connect again.",
    )
    feature: str = Field(
        default="", description="With UNSUPPORTED_FEATURE and RECONNECT_REQUIRED: `thread` or `first_comment`."
    )
    profiles: list[str] = Field(
        default=[], description="Only with UNSUPPORTED_FEATURE: the profile slugs that cannot take the feature."
    )
    scopes: list[str] = Field(default=[], description="Only with RECONNECT_REQUIRED: the permissions missing.")
    request_id: str = Field(
        default="",
        description="The request's id, as in its X-Request-Id response header: quote it when asking about a failure.",
    )


class CreditWarning(Response):
    """Added to a success body while the balance is below the low-credit threshold."""

    code: Literal["low_credits"]
    remaining: int
