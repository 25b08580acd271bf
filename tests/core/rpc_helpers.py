"""Reading Herald's rich gRPC errors in tests: the ErrorInfo reason is the contract."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2, status_pb2


def error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            assert status.code == error.code().value[0]
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info
    raise AssertionError(f"no ErrorInfo on {error.code()}: {error.details()}")
