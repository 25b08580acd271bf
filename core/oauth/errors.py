"""OAuth protocol errors: the RFC's error code travels as the ErrorInfo reason, in the
`herald.oauth` domain, so the facade answers with RFC 6749 `{error, error_description}`.

The codes and their meaning come from authlib's error classes, which cite the RFCs.
"""

from __future__ import annotations

from typing import ClassVar

import grpc
from authlib.oauth2.rfc6749 import errors as rfc6749
from authlib.oauth2.rfc7591 import errors as rfc7591

from core.errors import DomainError


class OAuthError(DomainError):
    domain: ClassVar[str] = "herald.oauth"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT

    def __init__(self, message: str, *, redirect: bool = False) -> None:
        # `redirect`: an authorization request error the client may receive by redirect,
        # because the redirect URI was already verified (RFC 6749 4.1.2.1).
        super().__init__(message, **({"redirect": "true"} if redirect else {}))


class InvalidRequest(OAuthError):
    """RFC 6749 5.2 / 4.1.2.1: a parameter is missing, repeated, malformed or unsupported."""

    reason = rfc6749.InvalidRequestError.error


class InvalidClient(OAuthError):
    """RFC 6749 5.2: client authentication failed (unknown client, wrong or missing secret)."""

    reason = rfc6749.InvalidClientError.error
    grpc_code = grpc.StatusCode.UNAUTHENTICATED


class InvalidGrant(OAuthError):
    """RFC 6749 5.2: the code or refresh token is invalid, expired, revoked, used, or was issued
    to another client; or the redirect URI or PKCE verifier does not match."""

    reason = rfc6749.InvalidGrantError.error


class UnauthorizedClient(OAuthError):
    """RFC 6749 5.2: the client is not registered for this grant or response type."""

    reason = rfc6749.UnauthorizedClientError.error


class UnsupportedGrantType(OAuthError):
    """RFC 6749 5.2: the grant type is not supported (password, implicit, token exchange, ...)."""

    reason = rfc6749.UnsupportedGrantTypeError.error


class UnsupportedResponseType(OAuthError):
    """RFC 6749 4.1.2.1: only `code` is supported (no implicit flow)."""

    reason = rfc6749.UnsupportedResponseTypeError.error


class InvalidScope(OAuthError):
    """RFC 6749 5.2 / 4.1.2.1: a scope is unknown or beyond what the client may ask for."""

    reason = rfc6749.InvalidScopeError.error


class InvalidTarget(OAuthError):
    """RFC 8707 2: the requested resource is not one this server issues tokens for."""

    reason = "invalid_target"


class InvalidClientMetadata(OAuthError):
    """RFC 7591 3.2.2: a metadata field is invalid or inconsistent."""

    reason = rfc7591.InvalidClientMetadataError.error


class InvalidRedirectUri(OAuthError):
    """RFC 7591 3.2.2: a redirect URI is invalid (not https, not loopback, has a fragment)."""

    reason = rfc7591.InvalidRedirectURIError.error
