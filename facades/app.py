"""The Sanic facade: HTTP/JSON surfaces translated to gRPC calls on the core."""

from __future__ import annotations

import logging
from pathlib import Path

from sanic import Blueprint, Request, Sanic
from sanic.exceptions import MethodNotAllowed, NotFound, PayloadTooLarge, SanicException
from sanic.response import HTTPResponse, json

from facades import client_address, metrics, request_ids
from facades.catalog import ContractSource
from facades.core_client import CoreClient
from facades.discovery import discovery_blueprint
from facades.errors import ApiError
from facades.mcp.server import mcp_blueprint
from facades.oauth.authorize import register_authorize
from facades.oauth.endpoints import register_endpoints
from facades.request_ids import request_id
from facades.rest.operations import rest_blueprint
from facades.rest.respond import ratelimit_headers
from facades.settings import FacadeSettings
from facades.web.csrf import CsrfRejected
from facades.web.dashboard import dashboard_blueprint
from facades.web.templating import render

STATIC_DIR = Path(__file__).resolve().parent / "web" / "static"


def oauth_blueprint() -> Blueprint:
    """The authorization server's endpoints at {auth_url} = {base_url}/api/auth (docs/oauth.md)."""
    bp = Blueprint("oauth", url_prefix="/api/auth")
    register_endpoints(bp)
    register_authorize(bp)
    return bp


log = logging.getLogger(__name__)


def create_app(settings: FacadeSettings, name: str = "herald_facade") -> Sanic:
    app = Sanic(name, configure_logging=False)
    app.config.update({"MOTD": False, "ACCESS_LOG": False, "REQUEST_MAX_SIZE": 10 * 1024 * 1024})
    app.ctx.settings = settings
    app.blueprint(rest_blueprint())
    app.blueprint(oauth_blueprint())
    app.blueprint(discovery_blueprint())
    app.blueprint(mcp_blueprint())
    app.blueprint(dashboard_blueprint())
    app.static("/static", STATIC_DIR, name="static")
    request_ids.install(app)
    client_address.install(app, client_address.parse_networks(settings.trusted_proxies))

    @app.before_server_start
    async def _connect(app: Sanic) -> None:
        app.ctx.core = CoreClient(
            settings.core_target, settings.core_timeout, settings.core_channels, wait=settings.core_wait_seconds
        )
        app.ctx.contract = ContractSource(app.ctx.core)
        app.add_task(app.ctx.contract.warm(), name="catalog")

    @app.after_server_stop
    async def _disconnect(app: Sanic) -> None:
        await app.ctx.core.close()

    @app.get("/healthz")
    async def healthz(request: Request) -> HTTPResponse:
        """Liveness: this process answers (restart it if not)."""
        return json({"status": "ok"})

    @app.get("/metrics")
    async def metrics_endpoint(request: Request) -> HTTPResponse:
        """Prometheus metrics (facades/metrics.py): a loopback peer or the token's bearer only."""
        response = metrics.metrics_response(request, settings.metrics_token, settings.metrics_dir)
        if response is None:
            raise ApiError("NOT_FOUND", "not found")
        return response

    @app.get("/readyz")
    async def readyz(request: Request) -> HTTPResponse:
        """Readiness: a core answers and its database does (send traffic here, or not yet)."""
        failed = await app.ctx.core.ready(settings.ready_timeout_seconds)
        if failed is None:
            return json({"status": "ready"})
        check, reason = failed
        body = {"status": "unavailable", "failed": check, "reason": reason}
        return json(body, status=503, headers={"Retry-After": "1"})

    @app.exception(ApiError)
    async def _api_error(request: Request, error: ApiError) -> HTTPResponse:
        return error_response(settings, request, error)

    @app.exception(CsrfRejected)
    async def _csrf_rejected(request: Request, error: CsrfRejected) -> HTTPResponse:
        return render(request, "message.html", status=403, heading="Form expired", message=str(error), viewer=None)

    @app.exception(NotFound, MethodNotAllowed, PayloadTooLarge)
    async def _routing_error(request: Request, error: SanicException) -> HTTPResponse:
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE"}[error.status_code]
        headers = dict(getattr(error, "headers", None) or {})
        if error.status_code == 405 and not any(k.lower() == "allow" for k in headers):
            # Sanic names the allowed methods only for some routes; RFC 9110 15.5.6 wants them always.
            headers["Allow"] = ", ".join(_allowed_methods(app, request))
        response = error_response(settings, request, ApiError(code, str(error) or code.lower()))
        response.headers.update(headers)
        return response

    @app.exception(Exception)
    async def _unexpected(request: Request, error: Exception) -> HTTPResponse:
        if isinstance(error, UnicodeError):
            # Text that is not valid Unicode (a lone surrogate escape in JSON, undecodable header
            # bytes) reached a place that needed real text: the request is invalid, not the server.
            return error_response(settings, request, ApiError("VALIDATION_ERROR", "text must be valid Unicode"))
        if isinstance(error, SanicException) and error.status_code < 500:
            # Sanic's own 4xx (a malformed request line, a bad header): the request is invalid.
            return error_response(settings, request, ApiError("VALIDATION_ERROR", str(error) or "invalid request"))
        log.exception("unexpected failure on %s %s", request.method, request.path)
        return error_response(settings, request, ApiError("INTERNAL", "internal error"))

    return app


def _allowed_methods(app: Sanic, request: Request) -> list[str]:
    allowed = []
    for method in ("DELETE", "GET", "PATCH", "POST", "PUT"):
        try:
            app.router.get(request.path, method, request.host)
        except SanicException:
            continue
        allowed.append(method)
    return allowed


def error_response(settings: FacadeSettings, request: Request, error: ApiError) -> HTTPResponse:
    headers = {}
    body = error.body()
    if (rid := request_id(request)) is not None:
        body["request_id"] = rid
    if error.retry_after is not None:
        headers["Retry-After"] = str(error.retry_after)
    headers.update(ratelimit_headers(error.metadata.get("ratelimit")))
    if error.code == "UNAUTHORIZED":
        # Every 401 names the resource metadata (docs/api.md, "Authentication"). The body tells a
        # server caller what /v1 wants, since the metadata describes the agents' door (/mcp).
        challenge = f'Bearer resource_metadata="{settings.resource_metadata_url}"'
        if request.headers.get("authorization"):
            challenge = f'Bearer error="invalid_token", resource_metadata="{settings.resource_metadata_url}"'
        headers["WWW-Authenticate"] = challenge
        if request.path.startswith("/v1"):
            body["error"] = (
                f"{error.message}. /v1 takes an API key beginning svc_, created by a signed-in human at "
                f"{settings.base_url}/dashboard/keys, as Authorization: Bearer svc_…; "
                f"the API is described at {settings.base_url}/openapi.json"
            )
    return json(body, status=error.http_status, headers=headers)
