"""The `data` of each webhook event type (docs/webhooks.md): the resource exactly as its own /v1
route renders it (the same models, so there is one renderer), or a small event-only shape.
GET /v1/webhook-events publishes each type's JSON Schema from this table; the core renders
events with the same models (contract/ is the package the core's workers may import)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from contract.base import Response
from contract.generate import GenerateRun
from contract.media_resources import Media
from contract.post_resources import Post
from contract.resources import Profile


class CreditsEvent(Response):
    """`credits.low` and `credits.depleted`: the debit that crossed the line."""

    balance: int = Field(ge=0, description="The balance after the debit.")
    low_credit_threshold: int = Field(ge=0)
    reason: str = Field(description="What the debit paid for: post_delivery, generation or stock_image.")
    reference: str = Field(description="The post id, generation run id or sourced media ids it paid for.")

    @classmethod
    def of(cls, balance: int, threshold: int, *, reason: str, reference: str) -> dict[str, Any]:
        return {"balance": balance, "low_credit_threshold": threshold, "reason": reason, "reference": reference}


class WebhookTestEvent(Response):
    """`webhook.test`: sent on request to one endpoint."""

    webhook_id: str


# Every type of core/webhooks/events.py (tests/core/test_webhook_events.py checks they agree).
EVENT_DATA: dict[str, type[BaseModel]] = {
    "post.created": Post,
    "post.updated": Post,
    "post.published": Post,
    "post.partially_published": Post,
    "post.failed": Post,
    "post.canceled": Post,
    "post.approval_requested": Post,
    "post.approved": Post,
    "post.rejected": Post,
    "media.confirmed": Media,
    "credits.low": CreditsEvent,
    "credits.depleted": CreditsEvent,
    "profile.connected": Profile,
    "profile.disconnected": Profile,
    "profile.needs_reauth": Profile,
    "profile.deleted": Profile,
    "generate.run.completed": GenerateRun,
    "generate.run.failed": GenerateRun,
    "webhook.test": WebhookTestEvent,
}
