"""The stock photo errors (docs/api.md, "Errors"; docs/stock.md)."""

from __future__ import annotations

import grpc

from core.errors import DomainError


class UnknownPreset(DomainError):
    """The preset is not offered; the message lists the ones that are."""

    reason = "UNKNOWN_PRESET"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class UnknownProvider(DomainError):
    reason = "UNKNOWN_PROVIDER"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class PresetDestination(DomainError):
    """The preset cannot reach the destination; metadata `valid_for` lists the destinations it
    can reach (comma-separated)."""

    reason = "PRESET_DESTINATION"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class StockNotConfigured(DomainError):
    """The provider has no key on this deployment, or is turned off for the organization."""

    reason = "STOCK_NOT_CONFIGURED"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


class ProviderError(DomainError):
    """The provider did not answer, or answered something unusable; nothing saved or charged."""

    reason = "PROVIDER_ERROR"
    grpc_code = grpc.StatusCode.UNAVAILABLE


class SourceFailed(DomainError):
    """Every chosen photo failed to save; nothing charged."""

    reason = "SOURCE_FAILED"
    grpc_code = grpc.StatusCode.UNAVAILABLE
