"""A gRPC status without Herald's ErrorInfo (from the transport, not from the core's error
mapping): its code decides the answer, and one the facade cannot explain is logged."""

from __future__ import annotations

import logging

import grpc
import pytest

from facades.errors import from_rpc_error


def _status(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details)


def test_a_transport_failure_is_internal_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="facades.errors"):
        error = from_rpc_error(_status(grpc.StatusCode.INTERNAL, "GOAWAY received"))
    assert (error.code, error.message, error.http_status) == ("INTERNAL", "internal error", 500)
    assert [r.getMessage() for r in caplog.records] == ["core call failed: INTERNAL: GOAWAY received"]


@pytest.mark.parametrize("code", [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED])
def test_a_core_out_of_reach_is_503_and_not_an_error_line(caplog: pytest.LogCaptureFixture, code) -> None:
    with caplog.at_level(logging.ERROR, logger="facades.errors"):
        error = from_rpc_error(_status(code, "failed to connect"))
    assert (error.code, error.http_status) == ("SERVICE_UNAVAILABLE", 503)
    assert caplog.records == []
