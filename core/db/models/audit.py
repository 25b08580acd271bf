"""The audit log (core/audit; docs/teams.md, "Audit log"): one row per change a person made,
written in the transaction of the change by the unit of work (core/rpc/interceptors.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import CheckConstraint, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime

VIAS = ("dashboard", "api_key", "agent")


class AuditEvent(Base):
    """Who (the member, and which credential acted for them), what (the core method and the
    resource it named), when, and from which request. Only calls that succeeded have one.

    No foreign keys: a record outlives what it names (the actor's account; its email is read from
    `users` when the log is), and the row is written on the create path, where the organization's
    key check was a third of its PostgreSQL time (docs/performance.md, "The audit log on the create
    path"); the organization is always the caller's own."""

    __tablename__ = "audit_events"
    __table_args__ = (
        CheckConstraint(f"via IN ({', '.join(repr(v) for v in VIAS)})", name="via_known"),
        # The log is read newest first, a keyset walk of (at, id) within the organization.
        Index("ix_audit_events_org_id_at_id", "org_id", "at", "id"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ID)
    # When the call began (the unit of work's clock).
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    actor_user_id: Mapped[str] = mapped_column(ID)
    via: Mapped[str] = mapped_column(String(16))
    # The API key's id, the agent's OAuth client id or the session's id.
    credential_id: Mapped[str] = mapped_column(ID)
    # `<package>.<Method>`, e.g. posts.CreatePosts.
    method: Mapped[str] = mapped_column(String(80))
    resource_kind: Mapped[Optional[str]] = mapped_column(String(32))
    resource_id: Mapped[Optional[str]] = mapped_column(String(200))
    request_id: Mapped[Optional[str]] = mapped_column(String(128))
