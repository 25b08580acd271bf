"""Operations on the organization's webhook endpoints (docs/webhooks.md). No MCP tools: agents do
not manage where the organization's events go (the core refuses their tokens: FORBIDDEN; /v1
takes API keys only)."""

from __future__ import annotations

from herald.webhooks.v1 import webhooks_pb2

from contract import webhooks as wh
from contract.operation import Operation
from contract.requests import rpc_path


def _rpc(name: str) -> str:
    return rpc_path(webhooks_pb2, "WebhookService", name)


ROWS = (
    Operation(
        id="createWebhook",
        method="POST",
        path="/v1/webhooks",
        summary="Register a webhook endpoint",
        tag="webhooks",
        rpc=_rpc("CreateWebhook"),
        request=wh.CreateWebhookRequest,
        responses={201: wh.Webhook},
        errors=("VALIDATION_ERROR",),
        description="The answer carries the endpoint's signing secret (`whsec_…`), shown this once: deliveries "
        "are signed as Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). At most 20 "
        "endpoints per organization.",
    ),
    Operation(
        id="listWebhooks",
        method="GET",
        path="/v1/webhooks",
        summary="List the webhook endpoints, newest first",
        tag="webhooks",
        rpc=_rpc("ListWebhooks"),
        request=wh.ListWebhooksRequest,
        responses={200: wh.WebhookList},
        errors=("VALIDATION_ERROR",),
    ),
    Operation(
        id="getWebhook",
        method="GET",
        path="/v1/webhooks/{webhook_id}",
        summary="One webhook endpoint",
        tag="webhooks",
        rpc=_rpc("GetWebhook"),
        request=wh.GetWebhookRequest,
        responses={200: wh.Webhook},
        errors=("NOT_FOUND",),
    ),
    Operation(
        id="updateWebhook",
        method="PATCH",
        path="/v1/webhooks/{webhook_id}",
        summary="Change a webhook endpoint",
        tag="webhooks",
        rpc=_rpc("UpdateWebhook"),
        request=wh.UpdateWebhookRequest,
        responses={200: wh.Webhook},
        errors=("VALIDATION_ERROR", "NOT_FOUND"),
    ),
    Operation(
        id="deleteWebhook",
        method="DELETE",
        path="/v1/webhooks/{webhook_id}",
        summary="Delete a webhook endpoint",
        tag="webhooks",
        rpc=_rpc("DeleteWebhook"),
        request=wh.DeleteWebhookRequest,
        responses={200: wh.Webhook},
        errors=("NOT_FOUND",),
    ),
    Operation(
        id="rotateWebhookSecret",
        method="POST",
        path="/v1/webhooks/{webhook_id}/rotate-secret",
        summary="Make a new signing secret",
        tag="webhooks",
        rpc=_rpc("RotateWebhookSecret"),
        request=wh.RotateWebhookSecretRequest,
        responses={200: wh.WebhookSecret},
        errors=("NOT_FOUND",),
        description="For 24 hours each delivery carries two signatures, by the new secret and by the old one.",
    ),
    Operation(
        id="testWebhook",
        method="POST",
        path="/v1/webhooks/{webhook_id}/test",
        summary="Send a test event to a webhook endpoint",
        tag="webhooks",
        rpc=_rpc("TestWebhook"),
        request=wh.TestWebhookRequest,
        responses={202: wh.QueuedEvent},
        errors=("NOT_FOUND",),
        description="Queues a `webhook.test` event for this endpoint now, whatever it subscribed to; the workers "
        "deliver it like any other (GET …/deliveries shows the attempts).",
    ),
    Operation(
        id="listWebhookDeliveries",
        method="GET",
        path="/v1/webhooks/{webhook_id}/deliveries",
        summary="A webhook endpoint's delivery attempts, newest first",
        tag="webhooks",
        rpc=_rpc("ListWebhookDeliveries"),
        request=wh.ListWebhookDeliveriesRequest,
        responses={200: wh.WebhookDeliveryList},
        errors=("VALIDATION_ERROR", "NOT_FOUND"),
    ),
    Operation(
        id="replayWebhookDelivery",
        method="POST",
        path="/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay",
        summary="Send a delivery's event again",
        tag="webhooks",
        rpc=_rpc("ReplayWebhookDelivery"),
        request=wh.ReplayWebhookDeliveryRequest,
        responses={202: wh.QueuedEvent},
        errors=("NOT_FOUND",),
        description="A new attempt of the same event: the same body and `webhook-id`.",
    ),
    Operation(
        id="listWebhookEventTypes",
        method="GET",
        path="/v1/webhook-events",
        summary="The webhook event catalogue",
        tag="webhooks",
        rpc=_rpc("ListWebhookEventTypes"),
        request=wh.ListWebhookEventTypesRequest,
        responses={200: wh.WebhookEventTypes},
    ),
)
