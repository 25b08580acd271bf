"""The errors of connecting accounts (docs/live-publishing.md)."""

from __future__ import annotations

import grpc

from core.errors import DomainError


class PlatformNotConfigured(DomainError):
    """The operator has no app on this platform (HERALD_<PLATFORM>_CLIENT_ID/_SECRET)."""

    reason = "PLATFORM_NOT_CONFIGURED"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


class ConnectionFailed(DomainError):
    """The platform refused the connection or did not answer usably; metadata `refused`
    ("true"/"false") says whether it said no, and `return_to` where the user came from."""

    reason = "CONNECTION_FAILED"
    grpc_code = grpc.StatusCode.UNAVAILABLE


class ConnectStateInvalid(DomainError):
    """The callback's state is unknown, used, expired or from another session."""

    reason = "CONNECT_STATE_INVALID"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class ProfileNotConnected(DomainError):
    """Live publishing to a profile without a connected account; metadata `profile` and
    `connection_status`."""

    reason = "PROFILE_NOT_CONNECTED"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION
