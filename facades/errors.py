"""The one table that turns error codes (from the core's ErrorInfo or the facade's own surface
checks) into HTTP statuses and `{error, code}` bodies (docs/api.md, "Errors")."""

from __future__ import annotations

import logging
from collections.abc import Mapping

import grpc
from google.rpc import error_details_pb2, status_pb2

from contract.errors import REASONS

log = logging.getLogger(__name__)

# Every code Herald answers with, and its HTTP status: declared once, in the ErrorReason enum
# (proto/herald/api/v1/errors.proto), which the core's errors and every surface share.
HTTP_STATUS: Mapping[str, int] = {code: reason.http_status for code, reason in REASONS.items()}


# When a status carries no ErrorInfo (it did not come from Herald's error mapping), its gRPC
# code decides; nothing else about it is shown.
_FALLBACK: Mapping[grpc.StatusCode, tuple[str, str]] = {
    grpc.StatusCode.UNAVAILABLE: ("SERVICE_UNAVAILABLE", "the service is temporarily unavailable"),
    grpc.StatusCode.DEADLINE_EXCEEDED: ("SERVICE_UNAVAILABLE", "the service did not answer in time"),
    grpc.StatusCode.CANCELLED: ("SERVICE_UNAVAILABLE", "the request was cancelled"),
}


class ApiError(Exception):
    """An error to answer with: a stable code, a human message, and ErrorInfo metadata."""

    def __init__(self, code: str, message: str, metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code if code in HTTP_STATUS else "INTERNAL"
        self.message = message if self.code == code else "internal error"
        self.metadata = dict(metadata or {})

    @property
    def http_status(self) -> int:
        return HTTP_STATUS[self.code]

    @property
    def retryable(self) -> bool:
        """Whether the same request may succeed later unchanged (the ErrorReason enum says)."""
        return REASONS[self.code].retryable

    @property
    def argument(self) -> str | None:
        """For VALIDATION_ERROR raised by the facade's schema check: the argument at fault."""
        return self.metadata.get("argument")

    def body(self) -> dict[str, object]:
        body: dict[str, object] = {"error": self.message, "code": self.code}
        if self.code in ("PRESET_DESTINATION", "UNSUPPORTED_FEATURE") and "valid_for" in self.metadata:
            body["valid_for"] = _listed(self.metadata["valid_for"], ",")
        if self.code == "UNSUPPORTED_FEATURE":
            body["feature"] = self.metadata.get("feature", "")
            body["profiles"] = _listed(self.metadata.get("profiles", ""), ",")
        if self.code == "RECONNECT_REQUIRED":
            body.update({k: self.metadata.get(k, "") for k in ("profile", "feature")})
            body["scopes"] = _listed(self.metadata.get("scopes", ""), " ")
        if self.code == "FORBIDDEN" and "permission" in self.metadata:
            # Refused by the member's role (docs/teams.md): what it lacks, and the role.
            body.update({k: self.metadata.get(k, "") for k in ("permission", "role")})
        if self.code == "INVITATION_CLOSED":
            body["state"] = self.metadata.get("state", "")
        if self.code == "NEVER_PUBLISH_PHRASE":
            body.update({k: self.metadata[k] for k in ("phrase", "profile") if k in self.metadata})
        if (seconds := self.retry_after) is not None:
            body["retry_after"] = seconds
        return body

    @property
    def retry_after(self) -> int | None:
        """Whole seconds to wait before asking again, when the core said (metadata `retry_after`)."""
        value = self.metadata.get("retry_after", "")
        return max(1, int(value)) if value.isdigit() else None


def _listed(value: str, separator: str) -> list[str]:
    return [v for v in value.split(separator) if v]


# OAuth endpoints answer with RFC 6749 5.2 bodies `{error, error_description}`; the core sends
# these codes in the `herald.oauth` ErrorInfo domain. invalid_client is 401 (RFC 6749 5.2).
OAUTH_DOMAIN = "herald.oauth"
OAUTH_STATUS: Mapping[str, int] = {
    "invalid_request": 400,
    "invalid_client": 401,
    "invalid_grant": 400,
    "unauthorized_client": 400,
    "unsupported_grant_type": 400,
    "unsupported_response_type": 400,
    "unsupported_token_type": 400,
    "invalid_scope": 400,
    "invalid_target": 400,
    "access_denied": 403,
    "invalid_client_metadata": 400,
    "invalid_redirect_uri": 400,
}


class OAuthError(ApiError):
    """An OAuth protocol error (RFC 6749 5.2, RFC 7591 3.2.2): `{error, error_description}`."""

    def __init__(self, code: str, message: str, metadata: Mapping[str, str] | None = None) -> None:
        Exception.__init__(self, message)
        self.code = code if code in OAUTH_STATUS else "invalid_request"
        self.message = message
        self.metadata = dict(metadata or {})

    @property
    def http_status(self) -> int:
        return OAUTH_STATUS[self.code]

    @property
    def redirectable(self) -> bool:
        """Whether the core verified the redirect URI, so the error may go back by redirect."""
        return self.metadata.get("redirect") == "true"

    def body(self) -> dict[str, object]:
        return {"error": self.code, "error_description": self.message}


def from_rpc_error(error: grpc.aio.AioRpcError) -> ApiError:
    for key, value in error.trailing_metadata() or ():
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                if info.domain == OAUTH_DOMAIN:
                    return OAuthError(info.reason, status.message, info.metadata)
                return ApiError(info.reason, status.message, info.metadata)
    fallback = _FALLBACK.get(error.code())
    if fallback is None:
        # The core answers its own failures with an ErrorInfo (and logs them): this one came from
        # the transport or a core that is not Herald's, and is logged here or nowhere.
        log.error("core call failed: %s: %s", error.code().name, error.details())
        return ApiError("INTERNAL", "internal error")
    return ApiError(*fallback)
