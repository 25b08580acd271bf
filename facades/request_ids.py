"""Request ids, the access log and the HTTP metrics (docs/operations.md).

Every request gets an id: the caller's `X-Request-Id` when it is an acceptable token (a proxy's
or a client's), else a new `req_…`. It is answered in the `X-Request-Id` header of every
response and in the `request_id` field of every /v1 error body, sent to the core in the gRPC
metadata of each call (core/rpc/interceptors.py), written in every log line while the request is
served (contract/logs.py) and carried by the webhook events the request causes, to the receiver
(docs/webhooks.md). One access log line per request (logger `facades.access`, INFO): method, path
without its query (which may hold codes and state), status and duration.
"""

from __future__ import annotations

import logging
import time

from sanic import Request, Sanic
from sanic.response import BaseHTTPResponse

from contract.logs import REQUEST_ID, REQUEST_ID_HEADER, request_id_from
from facades import metrics

access = logging.getLogger("facades.access")


def request_id(request: Request) -> str | None:
    return getattr(request.ctx, "request_id", None)


def install(app: Sanic) -> None:
    @app.on_request(priority=1000)
    async def _identify(request: Request) -> None:
        request.ctx.request_id = request_id_from(request.headers.get(REQUEST_ID_HEADER))
        request.ctx.started = time.perf_counter()
        REQUEST_ID.set(request.ctx.request_id)

    @app.on_response(priority=1000)
    async def _answer(request: Request, response: BaseHTTPResponse) -> None:
        rid = request_id(request)
        if rid is None:  # refused before the request middleware ran (a malformed request)
            rid = request_id_from(None)
        response.headers[REQUEST_ID_HEADER] = rid
        started = getattr(request.ctx, "started", None)
        seconds = time.perf_counter() - started if started is not None else None
        metrics.observe(request, response.status, seconds)
        if access.isEnabledFor(logging.INFO):
            duration = round(seconds * 1000, 1) if seconds is not None else None
            access.info(
                "%s %s %s",
                request.method,
                request.path,
                response.status,
                extra={"method": request.method, "path": request.path, "status": response.status, "duration_ms": duration},
            )
