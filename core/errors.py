"""Typed domain errors. Each declares its stable error code, which must be a value of the
ErrorReason enum (proto/herald/api/v1/errors.proto: the one list of codes, with their HTTP
statuses), and its gRPC status code; `core.rpc.status` turns them into rich gRPC statuses."""

from __future__ import annotations

from typing import ClassVar

import grpc
from herald.api.v1 import errors_pb2

# The codes of the herald.api domain: ErrorReason's values without their prefix.
API_REASONS = frozenset(name.removeprefix("ERROR_REASON_") for name in errors_pb2.ErrorReason.keys()[1:])


class DomainError(Exception):
    """A failure the caller can act on. `reason` is the stable contract (docs/api.md, "Errors");
    the message is for humans and may change. `metadata` travels in google.rpc.ErrorInfo."""

    reason: ClassVar[str] = "INTERNAL"
    grpc_code: ClassVar[grpc.StatusCode] = grpc.StatusCode.INTERNAL
    # The ErrorInfo domain: Herald's own codes, or `herald.oauth` for RFC 6749 error codes.
    domain: ClassVar[str] = "herald.api"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        # A code no surface knows would reach callers as a bare INTERNAL: refuse it at import.
        if cls.domain == "herald.api" and cls.reason not in API_REASONS:
            raise TypeError(f"{cls.__name__}.reason {cls.reason!r} is not an ErrorReason (herald/api/v1/errors.proto)")

    def __init__(self, message: str, **metadata: str) -> None:
        super().__init__(message)
        self.message = message
        self.metadata = metadata


class Unauthorized(DomainError):
    """Missing, malformed, unknown or revoked credential (401)."""

    reason = "UNAUTHORIZED"
    grpc_code = grpc.StatusCode.UNAUTHENTICATED


class SubscriptionRequired(DomainError):
    """The organization has no active or trialing plan (402)."""

    reason = "SUBSCRIPTION_REQUIRED"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


class InsufficientCredits(DomainError):
    """The balance does not cover the cost; nothing was created or charged (402)."""

    reason = "INSUFFICIENT_CREDITS"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


class ValidationError(DomainError):
    """A field is missing or malformed (400)."""

    reason = "VALIDATION_ERROR"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class NotFound(DomainError):
    """The resource does not exist in the caller's organization (404)."""

    reason = "NOT_FOUND"
    grpc_code = grpc.StatusCode.NOT_FOUND


class Forbidden(DomainError):
    """The credential is valid but its kind may not do this (e.g. an API key minting keys)."""

    reason = "FORBIDDEN"
    grpc_code = grpc.StatusCode.PERMISSION_DENIED


class InsufficientScope(DomainError):
    """The credential lacks a scope the method needs; `scope` metadata names it (403)."""

    reason = "INSUFFICIENT_SCOPE"
    grpc_code = grpc.StatusCode.PERMISSION_DENIED


class Conflict(DomainError):
    """The request collides with existing state (a duplicate slug, an existing user)."""

    reason = "CONFLICT"
    grpc_code = grpc.StatusCode.ALREADY_EXISTS


class TooManyAttempts(DomainError):
    """Too many failed sign-ins for this account in a short time; try again later (429)."""

    reason = "TOO_MANY_ATTEMPTS"
    grpc_code = grpc.StatusCode.RESOURCE_EXHAUSTED


class ServiceUnavailable(DomainError):
    """The core cannot do its work now (503), though nothing is wrong with the request: its
    database refuses or drops connections. Nothing was written; the same call may succeed later
    (metadata `retry_after`, seconds)."""

    reason = "SERVICE_UNAVAILABLE"
    grpc_code = grpc.StatusCode.UNAVAILABLE


class RateLimited(DomainError):
    """A rate limit is reached (429): Herald's own (core/ratelimit.py) or a stock provider's.
    Metadata `retry_after` (seconds) when known and, for Herald's own limits, `ratelimit`
    (`limit;window;remaining;reset`, the RateLimit headers' values)."""

    reason = "RATE_LIMITED"
    grpc_code = grpc.StatusCode.RESOURCE_EXHAUSTED
