"""Profiles: the destination accounts an organization connects."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime


class Profile(Base):
    __tablename__ = "profiles"
    __table_args__ = (
        UniqueConstraint("org_id", "slug"),
        CheckConstraint(
            "connector IN ('x', 'bluesky', 'mastodon', 'threads', 'instagram', 'tiktok', 'youtube', 'linkedin')",
            name="connector_known",
        ),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    slug: Mapped[str] = mapped_column(String(64))
    connector: Mapped[str] = mapped_column(String(16))
    display_name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ProfileTag(Base):
    __tablename__ = "profile_tags"
    __table_args__ = (Index("ix_profile_tags_org_id_tag", "org_id", "tag"),)

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(64), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
