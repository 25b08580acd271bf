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
