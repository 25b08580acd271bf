"""Notes: the team's comments on posts and groups, and each member's notifications with their
choice of where each kind goes (docs/teams.md, "Comments and notifications")."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import Boolean, ForeignKey, Index, String, Text, UniqueConstraint, text, true
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime


class PostComment(Base):
    """A comment on a post (post_id) or on its whole group (post_id None); never published."""

    __tablename__ = "post_comments"
    __table_args__ = (Index("ix_post_comments_org_group_created", "org_id", "group_id", "created_at"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    group_id: Mapped[str] = mapped_column(ID)
    post_id: Mapped[Optional[str]] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    author_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    body: Mapped[str] = mapped_column(Text)
    # The mentioned members' user ids, space-separated.
    mentions: Mapped[str] = mapped_column(Text, default="", server_default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Notification(Base):
    """One notification of one member of one organization. `dedupe_key`: the same fact is told once
    (a token's expiry, an event that a worker fanned out twice)."""

    __tablename__ = "notifications"
    __table_args__ = (
        Index("ix_notifications_user_org_created", "user_id", "org_id", "created_at", "id"),
        # The unread count every dashboard page shows (AccountService.GetSessionView): the unread
        # ones only, so counting reads as many entries as are unread, not the member's history.
        Index(
            "ix_notifications_unread",
            "user_id",
            "org_id",
            sqlite_where=text("read_at IS NULL"),
            postgresql_where=text("read_at IS NULL"),
        ),
        UniqueConstraint("user_id", "org_id", "dedupe_key", name="uq_notifications_once"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    subject_id: Mapped[str] = mapped_column(String(64), default="", server_default="")
    link: Mapped[str] = mapped_column(String(300), default="", server_default="")
    dedupe_key: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    read_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # False: kept only so the fact is told once (the member sends this kind to email, not the
    # inbox); the inbox leaves it out.
    inbox: Mapped[bool] = mapped_column(Boolean, server_default=true())


class NotificationSetting(Base):
    """A member's choice for one kind, where it differs from the default (core/notes/kinds.py)."""

    __tablename__ = "notification_settings"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    inbox: Mapped[bool] = mapped_column(Boolean)
    email: Mapped[bool] = mapped_column(Boolean)
