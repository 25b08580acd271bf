"""Prometheus metrics of the core and the workers (docs/operations.md, "Metrics").

Every label has a bounded set of values: gRPC methods (the services' own), status codes,
platforms, failure reasons (docs/api.md, "States"), job kinds. With PROMETHEUS_MULTIPROC_DIR set
(`herald serve` sets it for every process it starts), each process writes its samples there and
the facade's /metrics (or `herald metrics`) serves the sum over the machine's processes;
without it, a process keeps its own.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from prometheus_client import Counter, Gauge, Histogram

# The conventional names of go-grpc-prometheus / py-grpc-prometheus.
GRPC_STARTED = Counter(
    "grpc_server_started",
    "Total number of RPCs started on the server.",
    ["grpc_type", "grpc_service", "grpc_method"],
)
GRPC_HANDLED = Counter(
    "grpc_server_handled",
    "Total number of RPCs completed on the server, regardless of success or failure.",
    ["grpc_type", "grpc_service", "grpc_method", "grpc_code"],
)
GRPC_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.",
    ["grpc_type", "grpc_service", "grpc_method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)

PUBLISH_OUTCOMES = Counter(
    "herald_publish_outcomes",
    "Publish attempts' outcomes: published, failed (with the post's failure_reason) or retry.",
    ["platform", "outcome", "reason"],
)
PUBLISH_DELAY = Histogram(
    "herald_publish_delay_seconds",
    "From a post's due time (its schedule, or its creation) to its publication.",
    ["platform"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600),
)
CREDIT_REFUSALS = Counter(
    "herald_credit_refusals",
    "Work refused for want of credits: `request` (402 INSUFFICIENT_CREDITS) or `publish` (a post failed "
    "insufficient_credits when it came due).",
    ["where"],
)
NEXT_SLOT_TURNS = Counter(
    "herald_next_slot_turns",
    "next_slot requests on PostgreSQL by how they got their slots (core/posts/slot_lock_turns.py): `led` a turn on "
    "their profiles' locks, `joined` another request's turn, or took one `alone` (not committing at once, or "
    "the turn they joined gave them nothing).",
    ["turn"],
)
QUEUE_DEPTH = Gauge(
    "herald_queue_depth",
    "Work due now and not yet taken, by queue: `publish` (posts) and each job kind.",
    ["queue"],
    multiprocess_mode="mostrecent",
)
QUEUE_LAG = Gauge(
    "herald_queue_lag_seconds",
    "How long the oldest work due now has been waiting, by queue (0 when none).",
    ["queue"],
    multiprocess_mode="mostrecent",
)

_KNOWN_CODES = {code.value[0]: code.name for code in grpc.StatusCode}

Behavior = Callable[[Any, grpc.aio.ServicerContext], Awaitable[Any]]


def split_method(path: str) -> tuple[str, str]:
    """`/herald.posts.v1.PostService/CreatePosts` → (`herald.posts.v1.PostService`, `CreatePosts`)."""
    service, _, method = path.strip("/").rpartition("/")
    return service, method


def code_name(context: grpc.aio.ServicerContext, failed: bool) -> str:
    """The status the call ended with: the one it set (an abort sets it), else OK or UNKNOWN."""
    code = context.code()
    if code is None:
        return "UNKNOWN" if failed else "OK"
    if isinstance(code, grpc.StatusCode):
        return code.name
    return _KNOWN_CODES.get(code, "UNKNOWN")


class MetricsInterceptor(grpc.aio.ServerInterceptor):
    """grpc_server_started/handled_total and grpc_server_handling_seconds for every unary and
    client-streaming method (health and reflection included)."""

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        if handler.unary_unary is not None:
            kind, inner = "unary", handler.unary_unary
        elif handler.stream_unary is not None:
            kind, inner = "client_stream", handler.stream_unary
        else:
            return handler
        service, method = split_method(handler_call_details.method)
        started_total = GRPC_STARTED.labels(kind, service, method)
        seconds = GRPC_SECONDS.labels(kind, service, method)

        async def behavior(request: Any, context: grpc.aio.ServicerContext) -> Any:
            started_total.inc()
            began = time.perf_counter()
            failed = False
            try:
                return await inner(request, context)
            except BaseException:
                failed = True
                raise
            finally:
                seconds.observe(time.perf_counter() - began)
                GRPC_HANDLED.labels(kind, service, method, code_name(context, failed)).inc()

        if kind == "unary":
            return handler._replace(unary_unary=behavior)  # type: ignore[attr-defined]
        return handler._replace(stream_unary=behavior)  # type: ignore[attr-defined]
