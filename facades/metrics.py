"""The facade's Prometheus metrics and `GET /metrics` (docs/operations.md, "Metrics").

`herald_http_requests_total{method,route,status}` and `herald_http_request_duration_seconds`
label a request by its route's pattern (`v1/posts/<post_id:str>`), never its path, so label
values stay bounded. With PROMETHEUS_MULTIPROC_DIR set (`herald serve` sets it for each process
it starts), `/metrics` serves the sum over every Herald process of the machine (cores and
workers included: gRPC, publishing, queues); without it, this process's own.

`/metrics` answers a loopback peer, or a request with `Authorization: Bearer
$HERALD_METRICS_TOKEN`; anyone else gets 404, as if it did not exist.
"""

from __future__ import annotations

import hmac
import ipaddress

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from sanic import Request
from sanic.response import HTTPResponse, raw

_METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

HTTP_REQUESTS = Counter(
    "herald_http_requests", "HTTP requests answered by the facade.", ["method", "route", "status"]
)
HTTP_SECONDS = Histogram(
    "herald_http_request_duration_seconds",
    "Time from a request's arrival to its answer.",
    ["method", "route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)


def observe(request: Request, status: int, seconds: float | None) -> None:
    method = request.method if request.method in _METHODS else "other"
    route = request.route.path if request.route is not None else "unmatched"
    HTTP_REQUESTS.labels(method, route, str(status)).inc()
    if seconds is not None:
        HTTP_SECONDS.labels(method, route).observe(seconds)


def _allowed(request: Request, token: str) -> bool:
    if token:
        given = request.headers.get("authorization", "")
        if hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return True
    try:
        return ipaddress.ip_address(request.conn_info.client_ip if request.conn_info else "").is_loopback
    except ValueError:
        return False


def exposition(metrics_dir: str) -> bytes:
    if metrics_dir:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=metrics_dir)
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def metrics_response(request: Request, token: str, metrics_dir: str) -> HTTPResponse | None:
    """The exposition, or None when this caller may not see it (the caller answers 404)."""
    if not _allowed(request, token):
        return None
    return raw(exposition(metrics_dir), content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})
