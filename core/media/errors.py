"""The media library's error codes (docs/api.md, "Errors")."""

from __future__ import annotations

import grpc

from core.errors import DomainError


class UnsupportedMediaType(DomainError):
    """The MIME type is not on the allowed list, or the bytes are not of the declared type."""

    reason = "UNSUPPORTED_MEDIA_TYPE"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class FileTooLarge(DomainError):
    """size_bytes exceeds the per-type limit (docs/api.md, "Limits")."""

    reason = "FILE_TOO_LARGE"
    grpc_code = grpc.StatusCode.INVALID_ARGUMENT


class FileNotUploaded(DomainError):
    """Confirmed before the bytes landed in storage."""

    reason = "FILE_NOT_UPLOADED"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


class FileSizeMismatch(DomainError):
    """The stored size differs from the declared size_bytes."""

    reason = "FILE_SIZE_MISMATCH"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


class ContentHashMismatch(DomainError):
    """The stored bytes' SHA-256 differs from the declared content_hash."""

    reason = "CONTENT_HASH_MISMATCH"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


class MediaInUse(DomainError):
    """The media is attached to a post that has not gone out yet (409)."""

    reason = "MEDIA_IN_USE"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION
