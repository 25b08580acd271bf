"""Webhooks (core/webhooks): the organization's endpoints that receive signed lifecycle events."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import Boolean, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime


class Webhook(Base):
    """One endpoint. Its signing secret is sealed (core/connections/vault.py, bound to the row's
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
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
