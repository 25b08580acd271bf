"""herald.webhooks.v1.WebhookService: translates proto to the webhook service and back."""

from __future__ import annotations

import grpc
from herald.webhooks.v1 import webhooks_pb2, webhooks_pb2_grpc

from core.identity.principal import CredentialKind
from core.pagination import page_request
from core.platform_accounts.vault import TokenVault
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy, PageBounds
from core.settings import CoreSettings
from core.webhooks import delivery, fanout, service
from core.webhooks.events import EVENT_TYPES

# Servers (API keys) and humans (the dashboard) manage endpoints; agents (OAuth tokens) do not:
# an agent must not be able to send the organization's events to a URL of its choosing.
_KINDS = frozenset({CredentialKind.API_KEY, CredentialKind.SESSION})
_READ = MethodPolicy(credential_kinds=_KINDS, plan_exempt_for_sessions=True, permission="manage_integrations")
_WRITE = MethodPolicy(
    credential_kinds=_KINDS, plan_exempt_for_sessions=True, writes=True, permission="manage_integrations"
)
POLICIES = {
    "CreateWebhook": _WRITE,
    "ListWebhooks": MethodPolicy(
        permission="manage_integrations",
        credential_kinds=_KINDS,
        plan_exempt_for_sessions=True,
        page=PageBounds(default=20, maximum=100),
    ),
    "GetWebhook": _READ,
    "UpdateWebhook": _WRITE,
    "DeleteWebhook": _WRITE,
    "RotateWebhookSecret": _WRITE,
    "ListWebhookEventTypes": _READ,
    "TestWebhook": _WRITE,
    "ListWebhookDeliveries": MethodPolicy(
        permission="manage_integrations",
        credential_kinds=_KINDS,
        plan_exempt_for_sessions=True,
        page=PageBounds(default=50, maximum=200),
    ),
    "ReplayWebhookDelivery": _WRITE,
}


def webhook_message(e: service.Endpoint) -> webhooks_pb2.Webhook:
    return webhooks_pb2.Webhook(
        id=e.id,
        url=e.url,
        events=list(e.events),
        description=e.description,
        enabled=e.enabled,
        disabled_reason=e.disabled_reason,
        secret=e.secret,
        created_at=timestamp(e.created_at),
    )


class WebhookServicer(webhooks_pb2_grpc.WebhookServiceServicer):
    def __init__(self, settings: CoreSettings) -> None:
        self._settings = settings
        self._vault: TokenVault | None = None

    @property
    def vault(self) -> TokenVault:
        # Made at first use: a core that never sees a webhook never creates the key file.
        if self._vault is None:
            self._vault = TokenVault.from_settings(self._settings)
        return self._vault

    async def CreateWebhook(
        self, request: webhooks_pb2.CreateWebhookRequest, context: grpc.aio.ServicerContext
    ) -> webhooks_pb2.Webhook:
        call = current_call()
        endpoint = await service.create(
            call.conn,
            self.vault,
            call.principal.org_id,
            url=request.url,
            events=list(request.events),
            description=request.description,
            now=call.now,
        )
        return webhook_message(endpoint)

    async def ListWebhooks(
        self, request: webhooks_pb2.ListWebhooksRequest, context: grpc.aio.ServicerContext
    ) -> webhooks_pb2.ListWebhooksResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListWebhooks"].page)
        found, token = await service.list_endpoints(call.conn, call.principal.org_id, page)
        return webhooks_pb2.ListWebhooksResponse(webhooks=[webhook_message(e) for e in found], next_page_token=token)

    async def GetWebhook(
        self, request: webhooks_pb2.GetWebhookRequest, context: grpc.aio.ServicerContext
    ) -> webhooks_pb2.Webhook:
        call = current_call()
        return webhook_message(await service.get(call.conn, call.principal.org_id, request.webhook_id))

    async def UpdateWebhook(
        self, request: webhooks_pb2.UpdateWebhookRequest, context: grpc.aio.ServicerContext
    ) -> webhooks_pb2.Webhook:
        call = current_call()
        endpoint = await service.change(
            call.conn,
            call.principal.org_id,
            request.webhook_id,
            url=request.url if request.HasField("url") else None,
            events=list(request.events) if request.has_events else None,
            description=request.description if request.HasField("description") else None,
            enabled=request.enabled if request.HasField("enabled") else None,
            now=call.now,
        )
        return webhook_message(endpoint)

    async def DeleteWebhook(
        self, request: webhooks_pb2.DeleteWebhookRequest, context: grpc.aio.ServicerContext
    ) -> webhooks_pb2.Webhook:
        call = current_call()
        return webhook_message(await service.remove(call.conn, call.principal.org_id, request.webhook_id))

    async def RotateWebhookSecret(
        self, request: webhooks_pb2.RotateWebhookSecretRequest, context: grpc.aio.ServicerContext
    ) -> webhooks_pb2.WebhookSecret:
        call = current_call()
        secret, until = await service.rotate(call.conn, self.vault, call.principal.org_id, request.webhook_id, call.now)
        return webhooks_pb2.WebhookSecret(secret=secret, previous_valid_until=timestamp(until))

    async def ListWebhookEventTypes(
        self, request: webhooks_pb2.ListWebhookEventTypesRequest, context: grpc.aio.ServicerContext
    ) -> webhooks_pb2.ListWebhookEventTypesResponse:
        return webhooks_pb2.ListWebhookEventTypesResponse(
            event_types=[webhooks_pb2.WebhookEventType(type=t, description=d) for t, d in EVENT_TYPES.items()]
        )

    async def TestWebhook(
        self, request: webhooks_pb2.TestWebhookRequest, context: grpc.aio.ServicerContext
    ) -> webhooks_pb2.TestWebhookResponse:
        call = current_call()
        event_id = await fanout.send_test(
            call.conn, call.principal.org_id, request.webhook_id, call.now, self._settings
        )
        return webhooks_pb2.TestWebhookResponse(event_id=event_id)

    async def ListWebhookDeliveries(
        self, request: webhooks_pb2.ListWebhookDeliveriesRequest, context: grpc.aio.ServicerContext
    ) -> webhooks_pb2.ListWebhookDeliveriesResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListWebhookDeliveries"].page)
        found, token = await delivery.list_attempts(call.conn, call.principal.org_id, request.webhook_id, page)
        return webhooks_pb2.ListWebhookDeliveriesResponse(
            deliveries=[attempt_message(a) for a in found], next_page_token=token
        )

    async def ReplayWebhookDelivery(
        self, request: webhooks_pb2.ReplayWebhookDeliveryRequest, context: grpc.aio.ServicerContext
    ) -> webhooks_pb2.TestWebhookResponse:
        call = current_call()
        event_id = await fanout.replay(
            call.conn, call.principal.org_id, request.webhook_id, request.delivery_id, call.now, self._settings
        )
        return webhooks_pb2.TestWebhookResponse(event_id=event_id)


def attempt_message(a: delivery.Attempt) -> webhooks_pb2.WebhookDelivery:
    return webhooks_pb2.WebhookDelivery(
        id=a.id,
        event_id=a.event_id,
        type=a.type,
        attempt=a.attempt,
        status_code=a.status_code,
        duration_ms=a.duration_ms,
        error=a.error,
        response_body=a.response_body,
        delivered_at=timestamp(a.delivered_at),
        next_attempt_at=timestamp(a.next_attempt_at),
    )
