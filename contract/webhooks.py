"""Webhook endpoints (docs/webhooks.md): register, list, change, delete, rotate the secret, and
the event catalogue."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Annotated, Any

from herald.webhooks.v1 import webhooks_pb2
from pydantic import BaseModel, Field

from contract.base import (
    FromCatalog,
    InPath,
    Request,
    Response,
    SchemaGenerator,
    UniqueStrings,
    UtcTimestamp,
    timestamp,
)
from contract.binding import Contract, inline_refs
from contract.events import EVENT_DATA
from contract.requests import ABSENT, PageToken, _page_size, rpc_path
from contract.resources import NextPageToken, _page

WebhookId = Annotated[str, InPath(), Field(min_length=1, description="The webhook's `id`.")]
Url = Annotated[
    str,
    FromCatalog(lambda c: Field(min_length=1, max_length=c.limits.max_webhook_url_chars)),
    Field(description="Where events are POSTed: an absolute http(s) URL without credentials."),
]
Events = Annotated[
    UniqueStrings,
    Field(
        min_length=1,
        description='Event types from GET /v1/webhook-events, or ["*"] for every type (present and future).',
    ),
]
Description = Annotated[
    str,
    FromCatalog(lambda c: Field(max_length=c.limits.max_webhook_description_chars)),
    Field(description="Free text for your own use."),
]


class CreateWebhookRequest(Request):
    """Register an endpoint; the answer carries its signing secret, shown this once."""

    url: Url
    events: Events
    description: Description = ""

    def to_proto(self) -> webhooks_pb2.CreateWebhookRequest:
        return webhooks_pb2.CreateWebhookRequest(url=self.url, events=self.events, description=self.description)


class ListWebhooksRequest(Request):
    page_size: _page_size(rpc_path(webhooks_pb2, "WebhookService", "ListWebhooks")) = 0  # type: ignore[valid-type]
    page_token: PageToken = None

    def to_proto(self) -> webhooks_pb2.ListWebhooksRequest:
        return webhooks_pb2.ListWebhooksRequest(page_size=self.page_size, page_token=self.page_token or "")


class GetWebhookRequest(Request):
    webhook_id: WebhookId

    def to_proto(self) -> webhooks_pb2.GetWebhookRequest:
        return webhooks_pb2.GetWebhookRequest(webhook_id=self.webhook_id)


class UpdateWebhookRequest(Request):
    """Fields not sent are kept; `enabled: true` also clears `disabled_reason`."""

    webhook_id: WebhookId
    url: Url = ABSENT
    events: Events = ABSENT
    description: Description = ABSENT
    enabled: Annotated[bool, Field(description="Whether events are delivered to it.")] = ABSENT

    def to_proto(self) -> webhooks_pb2.UpdateWebhookRequest:
        message = webhooks_pb2.UpdateWebhookRequest(webhook_id=self.webhook_id)
        if self.url is not None:
            message.url = self.url
        if self.events is not None:
            message.has_events = True
            message.events.extend(self.events)
        if self.description is not None:
            message.description = self.description
        if self.enabled is not None:
            message.enabled = self.enabled
        return message


class DeleteWebhookRequest(Request):
    webhook_id: WebhookId

    def to_proto(self) -> webhooks_pb2.DeleteWebhookRequest:
        return webhooks_pb2.DeleteWebhookRequest(webhook_id=self.webhook_id)


class RotateWebhookSecretRequest(Request):
    webhook_id: WebhookId

    def to_proto(self) -> webhooks_pb2.RotateWebhookSecretRequest:
        return webhooks_pb2.RotateWebhookSecretRequest(webhook_id=self.webhook_id)


class ListWebhookEventTypesRequest(Request):
    def to_proto(self) -> webhooks_pb2.ListWebhookEventTypesRequest:
        return webhooks_pb2.ListWebhookEventTypesRequest()


class Webhook(Response):
    """An endpoint. `secret` is present only in the answer of POST /v1/webhooks."""

    id: str = Field(pattern="^whk_")
    url: str
    events: list[str]
    description: str
    enabled: bool
    disabled_reason: str = Field(description='Why Herald disabled it; "" otherwise.')
    secret: str = Field(
        default=None,
        pattern="^whsec_",
        description="The signing secret (Standard Webhooks): shown in the answer of the registration only.",
    )
    created_at: UtcTimestamp

    @classmethod
    def from_proto(cls, w: webhooks_pb2.Webhook) -> dict[str, Any]:
        body: dict[str, Any] = dict(
            id=w.id,
            url=w.url,
            events=list(w.events),
            description=w.description,
            enabled=w.enabled,
            disabled_reason=w.disabled_reason,
            created_at=timestamp(w.created_at),
        )
        if w.secret:
            body["secret"] = w.secret
        return body


class WebhookList(Response):
    """A page of endpoints, newest first."""

    webhooks: list[Webhook]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: webhooks_pb2.ListWebhooksResponse) -> dict[str, Any]:
        return _page("webhooks", [Webhook.from_proto(w) for w in r.webhooks], r.next_page_token)


class WebhookSecret(Response):
    """A new signing secret; until `previous_valid_until` deliveries carry the old one's signature too."""

    secret: str = Field(pattern="^whsec_")
    previous_valid_until: UtcTimestamp

    @classmethod
    def from_proto(cls, r: webhooks_pb2.WebhookSecret) -> dict[str, Any]:
        return dict(secret=r.secret, previous_valid_until=timestamp(r.previous_valid_until))


class WebhookEventType(Response):
    type: str
    description: str
    data_schema: dict[str, Any] = Field(
        description="JSON Schema (2020-12) of the event's `data`: the resource as its own route renders it."
    )


class WebhookEventTypes(Response):
    """Every event type an endpoint may subscribe to, with the schema of its `data`."""

    event_types: list[WebhookEventType]

    @classmethod
    def from_proto(cls, r: webhooks_pb2.ListWebhookEventTypesResponse) -> dict[str, Any]:
        """Without a catalog: the schemas of the contract's models as they are."""
        return cls._render(r, _unbound_schema)

    @classmethod
    def from_proto_bound(cls, r: webhooks_pb2.ListWebhookEventTypesResponse, contract: Contract) -> dict[str, Any]:
        """The schemas of the models this core's catalog completes (its connectors, limits), as
        openapi.json publishes them; built once per contract."""

        def schema(model: type[BaseModel]) -> dict[str, Any]:
            key = f"webhook-data:{model.__name__}"
            return contract.cached(key, lambda: contract.json_schema(model, mode="serialization"))

        return cls._render(r, schema)

    @staticmethod
    def _render(
        r: webhooks_pb2.ListWebhookEventTypesResponse, schema: Callable[[type[BaseModel]], dict[str, Any]]
    ) -> dict[str, Any]:
        return dict(
            event_types=[
                dict(type=e.type, description=e.description, data_schema=schema(EVENT_DATA[e.type]))
                for e in r.event_types
            ]
        )


@functools.cache
def _unbound(model: type[BaseModel]) -> dict[str, Any]:
    return inline_refs(model.model_json_schema(mode="serialization", schema_generator=SchemaGenerator))


def _unbound_schema(model: type[BaseModel]) -> dict[str, Any]:
    return copy.deepcopy(_unbound(model))


class TestWebhookRequest(Request):
    webhook_id: WebhookId

    def to_proto(self) -> webhooks_pb2.TestWebhookRequest:
        return webhooks_pb2.TestWebhookRequest(webhook_id=self.webhook_id)


class QueuedEvent(Response):
    """The event queued for delivery; its id is the deliveries' `webhook-id` header."""

    event_id: str = Field(pattern="^evt_")

    @classmethod
    def from_proto(cls, r: webhooks_pb2.TestWebhookResponse) -> dict[str, Any]:
        return dict(event_id=r.event_id)


class ListWebhookDeliveriesRequest(Request):
    webhook_id: WebhookId
    page_size: _page_size(rpc_path(webhooks_pb2, "WebhookService", "ListWebhookDeliveries")) = 0  # type: ignore[valid-type]
    page_token: PageToken = None

    def to_proto(self) -> webhooks_pb2.ListWebhookDeliveriesRequest:
        return webhooks_pb2.ListWebhookDeliveriesRequest(
            webhook_id=self.webhook_id, page_size=self.page_size, page_token=self.page_token or ""
        )


class ReplayWebhookDeliveryRequest(Request):
    webhook_id: WebhookId
    delivery_id: Annotated[str, InPath(), Field(min_length=1, description="The delivery attempt's `id`.")]

    def to_proto(self) -> webhooks_pb2.ReplayWebhookDeliveryRequest:
        return webhooks_pb2.ReplayWebhookDeliveryRequest(webhook_id=self.webhook_id, delivery_id=self.delivery_id)


class WebhookDelivery(Response):
    """One delivery attempt."""

    id: str = Field(pattern="^wat_")
    event_id: str = Field(pattern="^evt_")
    type: str
    attempt: int = Field(ge=1)
    status_code: int = Field(ge=0, description="The endpoint's HTTP status; 0 when no answer came.")
    duration_ms: int = Field(ge=0)
    error: str = Field(description='Why it failed; "" when delivered.')
    response_body: str = Field(description="The first 1 KB of the endpoint's answer.")
    delivered_at: UtcTimestamp
    next_attempt_at: UtcTimestamp | None = Field(description="When the next attempt is due; null when none follows.")

    @classmethod
    def from_proto(cls, d: webhooks_pb2.WebhookDelivery) -> dict[str, Any]:
        return dict(
            id=d.id,
            event_id=d.event_id,
            type=d.type,
            attempt=d.attempt,
            status_code=d.status_code,
            duration_ms=d.duration_ms,
            error=d.error,
            response_body=d.response_body,
            delivered_at=timestamp(d.delivered_at),
            next_attempt_at=timestamp(d.next_attempt_at) if d.HasField("next_attempt_at") else None,
        )


class WebhookDeliveryList(Response):
    """A page of delivery attempts, newest first."""

    deliveries: list[WebhookDelivery]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: webhooks_pb2.ListWebhookDeliveriesResponse) -> dict[str, Any]:
        return _page("deliveries", [WebhookDelivery.from_proto(d) for d in r.deliveries], r.next_page_token)
