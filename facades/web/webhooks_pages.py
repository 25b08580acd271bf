"""Webhooks in the dashboard (docs/webhooks.md): register an endpoint (its secret shown once), see
each one's state (a disabled one says why), send a test, rotate the secret, turn it off and on,
delete it, and read its delivery log with a replay button per attempt."""

from __future__ import annotations

from typing import Any

from herald.webhooks.v1 import webhooks_pb2
from sanic import Request
from sanic.response import HTTPResponse

from contract.requests import rpc_path
from facades.errors import ApiError
from facades.web.pages import Route, dashboard_page, form_value, see_other, signed_in, when
from facades.web.session import Viewer

# What a refused form shows on the page it came from; anything else is a failure page.
_SHOWN = ("VALIDATION_ERROR", "NOT_FOUND")


async def _call(request: Request, viewer: Viewer, method: str, message: Any) -> Any:  # a proto
    """Calls a WebhookService method with the viewer's session; its response."""
    core = request.app.ctx.core
    path = rpc_path(webhooks_pb2, "WebhookService", method)  # a method the service lacks fails here
    return (await core.call(core.method(path), message, authorization=viewer.authorization)).response


def _endpoint(w: webhooks_pb2.Webhook, zone: str) -> dict[str, Any]:
    return {
        "id": w.id,
        "url": w.url,
        "events": list(w.events),
        "description": w.description,
        "enabled": w.enabled,
        "disabled_reason": w.disabled_reason,
        "created": when(w.created_at, zone),
    }


async def webhooks_page(
    request: Request, viewer: Viewer, *, status: int = 200, error: str | None = None, form: dict | None = None
) -> HTTPResponse:
    """The endpoints and the form that adds one (kept as sent when the core refused it)."""
    found = await _call(request, viewer, "ListWebhooks", webhooks_pb2.ListWebhooksRequest(page_size=100))
    catalogue = await _call(request, viewer, "ListWebhookEventTypes", webhooks_pb2.ListWebhookEventTypesRequest())
    return await dashboard_page(
        request,
        viewer,
        "webhooks.html",
        "webhooks",
        status=status,
        error=error,
        endpoints=[_endpoint(w, viewer.time_zone) for w in found.webhooks],
        event_types=[(e.type, e.description) for e in catalogue.event_types],
        form=form or {"url": "", "description": "", "events": ["*"]},
    )


async def endpoint_page(
    request: Request, viewer: Viewer, webhook_id: str, *, status: int = 200, error: str | None = None
) -> HTTPResponse:
    """One endpoint: its state, its actions and its last 50 delivery attempts."""
    endpoint = await _call(request, viewer, "GetWebhook", webhooks_pb2.GetWebhookRequest(webhook_id=webhook_id))
    log = await _call(
        request,
        viewer,
        "ListWebhookDeliveries",
        webhooks_pb2.ListWebhookDeliveriesRequest(webhook_id=webhook_id, page_size=50),
    )
    attempts = [
        {
            "id": d.id,
            "event_id": d.event_id,
            "type": d.type,
            "attempt": d.attempt,
            "status_code": d.status_code,
            "duration_ms": d.duration_ms,
            "error": d.error,
            "response_body": d.response_body,
            "at": when(d.delivered_at, viewer.time_zone),
            "next": when(d.next_attempt_at, viewer.time_zone, empty=""),
        }
        for d in log.deliveries
    ]
    return await dashboard_page(
        request,
        viewer,
        "webhook.html",
        "webhooks",
        status=status,
        error=error,
        endpoint=_endpoint(endpoint, viewer.time_zone),
        attempts=attempts,
    )


@signed_in
async def list_webhooks(request: Request, viewer: Viewer) -> HTTPResponse:
    """The organization's webhook endpoints."""
    return await webhooks_page(request, viewer)


@signed_in
async def create_webhook(request: Request, viewer: Viewer) -> HTTPResponse:
    """Adds an endpoint; its signing secret is shown on this page only."""
    events = [e for e in (request.form.getlist("events") if request.form else None) or [] if e]
    form = {"url": form_value(request, "url"), "description": form_value(request, "description"), "events": events}
    try:
        made = await _call(
            request,
            viewer,
            "CreateWebhook",
            webhooks_pb2.CreateWebhookRequest(url=form["url"], events=events, description=form["description"]),
        )
    except ApiError as error:
        if error.code not in _SHOWN:
            raise
        return await webhooks_page(request, viewer, status=error.http_status, error=error.message, form=form)
    # Rendered, not redirected: the secret exists only in this response (no-store).
    return await dashboard_page(
        request,
        viewer,
        "webhook_secret.html",
        "webhooks",
        status=201,
        endpoint=_endpoint(made, viewer.time_zone),
        secret=made.secret,
    )


@signed_in
async def show_webhook(request: Request, viewer: Viewer, webhook_id: str) -> HTTPResponse:
    """One endpoint and its delivery log."""
    return await endpoint_page(request, viewer, webhook_id)


@signed_in
async def rotate_secret(request: Request, viewer: Viewer, webhook_id: str) -> HTTPResponse:
    """A new signing secret, shown on this page only; the previous one stays valid 24 hours."""
    rotated = await _call(
        request, viewer, "RotateWebhookSecret", webhooks_pb2.RotateWebhookSecretRequest(webhook_id=webhook_id)
    )
    endpoint = await _call(request, viewer, "GetWebhook", webhooks_pb2.GetWebhookRequest(webhook_id=webhook_id))
    return await dashboard_page(
        request,
        viewer,
        "webhook_secret.html",
        "webhooks",
        endpoint=_endpoint(endpoint, viewer.time_zone),
        secret=rotated.secret,
        previous_valid_until=when(rotated.previous_valid_until, viewer.time_zone),
    )


@signed_in
async def send_test_event(request: Request, viewer: Viewer, webhook_id: str) -> HTTPResponse:
    """Sends a webhook.test event to the endpoint."""
    await _call(request, viewer, "TestWebhook", webhooks_pb2.TestWebhookRequest(webhook_id=webhook_id))
    return see_other(f"/dashboard/webhooks/{webhook_id}?notice=webhook-test")


@signed_in
async def set_enabled(request: Request, viewer: Viewer, webhook_id: str) -> HTTPResponse:
    """Turns the endpoint on or off (`enabled=true|false`)."""
    enabled = form_value(request, "enabled") == "true"
    message = webhooks_pb2.UpdateWebhookRequest(webhook_id=webhook_id, enabled=enabled)
    await _call(request, viewer, "UpdateWebhook", message)
    return see_other(f"/dashboard/webhooks/{webhook_id}?notice=webhook-{'enabled' if enabled else 'disabled'}")


@signed_in
async def delete_webhook(request: Request, viewer: Viewer, webhook_id: str) -> HTTPResponse:
    """Deletes the endpoint."""
    await _call(request, viewer, "DeleteWebhook", webhooks_pb2.DeleteWebhookRequest(webhook_id=webhook_id))
    return see_other("/dashboard/webhooks?notice=webhook-deleted")


@signed_in
async def replay_delivery(request: Request, viewer: Viewer, webhook_id: str, delivery_id: str) -> HTTPResponse:
    """Sends an attempt's event again, with the same webhook-id."""
    message = webhooks_pb2.ReplayWebhookDeliveryRequest(webhook_id=webhook_id, delivery_id=delivery_id)
    await _call(request, viewer, "ReplayWebhookDelivery", message)
    return see_other(f"/dashboard/webhooks/{webhook_id}?notice=webhook-replayed")


ROUTES = (
    Route("GET", "/dashboard/webhooks", list_webhooks),
    Route("POST", "/dashboard/webhooks", create_webhook),
    Route("GET", "/dashboard/webhooks/<webhook_id:str>", show_webhook),
    Route("POST", "/dashboard/webhooks/<webhook_id:str>/rotate", rotate_secret),
    Route("POST", "/dashboard/webhooks/<webhook_id:str>/test", send_test_event),
    Route("POST", "/dashboard/webhooks/<webhook_id:str>/enabled", set_enabled),
    Route("POST", "/dashboard/webhooks/<webhook_id:str>/delete", delete_webhook),
    Route("POST", "/dashboard/webhooks/<webhook_id:str>/deliveries/<delivery_id:str>/replay", replay_delivery),
)
