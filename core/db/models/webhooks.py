"""Webhooks (core/webhooks): the organization's endpoints that receive signed lifecycle events."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime


class Webhook(Base):
    """One endpoint. Its signing secret is sealed (core/platform_accounts/vault.py, bound to the row's
    id); after a rotation the previous one is kept, sealed, until `previous_secret_until`."""

    __tablename__ = "webhooks"
    __table_args__ = (Index("ix_webhooks_org_id_id", "org_id", "id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    url: Mapped[str] = mapped_column(String(2000))
    # The subscribed event types, sorted, comma-separated; "*" for every type.
    events: Mapped[str] = mapped_column(Text)
    description: Mapped[str] = mapped_column(String(500))
    enabled: Mapped[bool] = mapped_column(Boolean)
    disabled_reason: Mapped[str] = mapped_column(String(200))
    secret_sealed: Mapped[str] = mapped_column(Text)
    previous_secret_sealed: Mapped[str] = mapped_column(Text)
    previous_secret_until: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # When the first of an unbroken run of failed attempts happened; None after a delivery.
    failing_since: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class WebhookEvent(Base):
    """One event, written in the transaction of the change it describes: its body exactly as it
    is sent (core/webhooks/signing.py), so every retry and replay sends the same bytes."""

    __tablename__ = "webhook_events"
    __table_args__ = (
        Index("ix_webhook_events_org_id_id", "org_id", "id"),
        # The events the workers have not fanned out to endpoints yet (core/webhooks/fanout.py).
        Index(
            "ix_webhook_events_pending",
            "created_at",
            sqlite_where=text("fanned_out_at IS NULL"),
            postgresql_where=text("fanned_out_at IS NULL"),
        ),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    type: Mapped[str] = mapped_column(String(64))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # When its messages (one per subscribed endpoint) were written; None until then.
    fanned_out_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # The X-Request-Id of the request that caused it, sent with each delivery; None when none did.
    request_id: Mapped[Optional[str]] = mapped_column(String(128))


class WebhookMessage(Base):
    """One event for one endpoint: what the workers deliver (a job of kind webhook.deliver)."""

    __tablename__ = "webhook_messages"
    __table_args__ = (
        Index("ix_webhook_messages_webhook_id_id", "webhook_id", "id"),
        # An event's messages: retention and the cascade from a deleted event read by it.
        Index("ix_webhook_messages_event_id", "event_id"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(ForeignKey("webhook_events.id", ondelete="CASCADE"))
    # pending, delivered, failed
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class WebhookAttempt(Base):
    """One delivery attempt, the log GET /v1/webhooks/{id}/deliveries shows."""

    __tablename__ = "webhook_attempts"
    __table_args__ = (
        Index("ix_webhook_attempts_webhook_id_id", "webhook_id", "id"),
        Index("ix_webhook_attempts_message_id", "message_id"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"))
    message_id: Mapped[str] = mapped_column(ForeignKey("webhook_messages.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(ID)
    type: Mapped[str] = mapped_column(String(64))
    attempt: Mapped[int] = mapped_column(Integer)
    # 0 when no answer came (a refused connection, a timeout).
    status_code: Mapped[int] = mapped_column(Integer)
    duration_ms: Mapped[int] = mapped_column(Integer)
    error: Mapped[str] = mapped_column(String(500))
    # The first 1 KB of the answer.
    response_body: Mapped[str] = mapped_column(Text)
    delivered_at: Mapped[datetime] = mapped_column(UTCDateTime)
    next_attempt_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
