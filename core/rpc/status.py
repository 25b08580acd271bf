"""The one mapping from domain errors to rich gRPC statuses (google.rpc.Status + ErrorInfo)."""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from core.errors import DomainError

ERROR_DOMAIN = "herald.api"


def domain_status(error: DomainError) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=error.domain, metadata=error.metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(code=error.grpc_code.value[0], message=error.message, details=[detail])
    return rpc_status.to_status(status)


def internal_status() -> grpc.Status:
    """What an unexpected failure becomes: no detail of it leaves the process."""
    info = error_details_pb2.ErrorInfo(reason="INTERNAL", domain=ERROR_DOMAIN)
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(code=code_pb2.INTERNAL, message="internal error", details=[detail])
    return rpc_status.to_status(status)
