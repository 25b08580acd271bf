"""Outgoing mail (core/mail; docs/mail.md): each message Herald sends, written in the transaction of
what it is about (an invitation) and sent by the workers as a job of the lease queue."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime

MAIL_KINDS = ("invitation", "email_verification", "notification")


class OutgoingMail(Base):
    """One message to one recipient. Its body is kept only while it waits: it may carry a link
    that is a secret (an invitation's), so it is emptied once the message is sent or failed."""

    __tablename__ = "outgoing_mail"
    __table_args__ = (
        CheckConstraint("status IN ('queued', 'sent', 'failed')", name="status_known"),
        CheckConstraint(f"kind IN ({', '.join(repr(k) for k in MAIL_KINDS)})", name="kind_known"),
        Index("ix_outgoing_mail_recipient_id", "recipient", "id"),
        Index("ix_outgoing_mail_org_id_id", "org_id", "id"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    # None for mail about no organization (an address's verification).
    org_id: Mapped[Optional[str]] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(32))
    # One address, as given (`ann@example.com` or `Ann <ann@example.com>`).
    recipient: Mapped[str] = mapped_column(String(400))
    subject: Mapped[str] = mapped_column(String(500))
    body: Mapped[str] = mapped_column(Text)
    # queued (until a worker sends it), sent (the server accepted it), failed (for good)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer)
    last_error: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    sent_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
