"""Profiles: the destination accounts an organization connects."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
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
        CheckConstraint(
            "connection_status IN ('connected', 'needs_reauth', 'disconnected')", name="connection_status_known"
        ),
        # Reconnecting an account updates its profile: one profile per account per organization.
        Index(
            "ix_profiles_account",
            "org_id",
            "connector",
            "instance_url",
            "platform_account_id",
            unique=True,
            sqlite_where=text("platform_account_id <> ''"),
            postgresql_where=text("platform_account_id <> ''"),
        ),
        # The workers' sweep for tokens to refresh ahead of expiry.
        Index("ix_profiles_connection_status_token_expires_at", "connection_status", "token_expires_at"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    slug: Mapped[str] = mapped_column(String(64))
    connector: Mapped[str] = mapped_column(String(16))
    display_name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The platform account behind the profile (core/platform_accounts); empty for a sandbox profile.
    platform_account_id: Mapped[str] = mapped_column(String(255), default="", server_default="")
    handle: Mapped[str] = mapped_column(String(255), default="", server_default="")
    avatar_url: Mapped[str] = mapped_column(String(1000), default="", server_default="")
    # The Mastodon instance or the Bluesky PDS the account lives on; empty for the others.
    instance_url: Mapped[str] = mapped_column(String(500), default="", server_default="")
    granted_scopes: Mapped[str] = mapped_column(String(1000), default="", server_default="")
    # The publishing time slots `next_slot` posts take (core/posts/slot_table.py JSON; "" when none).
    slot_table: Mapped[str] = mapped_column(Text, default="", server_default="")
    # Every slot up to this instant is known taken (core/posts/slot_assignment.py); None: not known.
    slot_watermark: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    connection_status: Mapped[str] = mapped_column(String(16), default="disconnected", server_default="disconnected")
    # Why the profile needs a human (the platform's refusal, a revoked token), when it does.
    connection_error: Mapped[str] = mapped_column(Text, default="", server_default="")
    connected_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # Sealed by core/platform_accounts/vault.py, bound to this row; never leave the core.
    access_token: Mapped[Optional[str]] = mapped_column(Text)
    refresh_token: Mapped[Optional[str]] = mapped_column(Text)
    token_expires_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # Bumped by every token change: a refresh applies only over the version it started from.
    token_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # A worker refreshing the token holds it until then (refreshes are serialised per profile:
    # platforms that rotate refresh tokens accept each one once).
    refresh_lease_until: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # The platform asked us to wait (429, an exhausted rate-limit window) until then.
    throttled_until: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # Metrics (docs/analytics.md, "Each platform"): why its posts' metrics cannot be read and how
    # to fix it ("" when they can), the metrics concerned (comma-separated; "" for all), and until
    # when the platform's metrics reads asked us to wait. Connecting the account again clears them.
    metrics_error: Mapped[str] = mapped_column(Text, default="", server_default="")
    metrics_unavailable: Mapped[str] = mapped_column(String(300), default="", server_default="")
    metrics_throttled_until: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # The language of its posts when a post names none (a normalized BCP 47 tag; None: unset).
    default_language: Mapped[Optional[str]] = mapped_column(String(35))


class SlotHold(Base):
    """A time slot promised to a `next_slot` request still writing its post (core/posts/slot_lock_turns.py):
    taken like a post's slot until that post is committed (which deletes the hold in its
    transaction) or until `expires_at` (a request that died on the way)."""

    __tablename__ = "slot_holds"
    __table_args__ = (Index("ix_slot_holds_token", "token"),)

    # No foreign key: a hold lives minutes at most, and checking the key would lock the profile's
    # row (KEY SHARE) on every hold written; a deleted profile's holds expire like any other.
    profile_id: Mapped[str] = mapped_column(ID, primary_key=True)
    # The slot's minute, as minutes since the epoch (what herald_slot_state returns).
    minute: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    # The request's: it deletes its holds with it.
    token: Mapped[str] = mapped_column(String(32))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ProfileTag(Base):
    __tablename__ = "profile_tags"
    __table_args__ = (Index("ix_profile_tags_org_id_tag", "org_id", "tag"),)

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(64), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))


class ConnectAttempt(Base):
    """A started connection: the user was sent to the platform's sign-in page with `state`, and
    comes back to Herald's callback with a code. Only the SHA-256 of the state is stored; the PKCE
    verifier is sealed. A dashboard attempt is bound to the session that started it."""

    __tablename__ = "connect_attempts"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    state_hash: Mapped[str] = mapped_column(String(64), unique=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    # The dashboard session that started it (None for a server's /v1 call).
    session_id: Mapped[Optional[str]] = mapped_column(ID)
    connector: Mapped[str] = mapped_column(String(16))
    instance_url: Mapped[str] = mapped_column(String(500), default="")
    app_id: Mapped[Optional[str]] = mapped_column(ForeignKey("platform_apps.id", ondelete="CASCADE"))
    code_verifier: Mapped[str] = mapped_column(Text)
    redirect_uri: Mapped[str] = mapped_column(String(2000))
    return_to: Mapped[str] = mapped_column(String(2000))
    # What the resulting profile is called (empty: derived from the account's handle).
    slug: Mapped[str] = mapped_column(String(64), default="")
    display_name: Mapped[str] = mapped_column(String(200), default="")
    tags: Mapped[str] = mapped_column(String(1400), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class PlatformApp(Base):
    """Herald's own app registration on a platform that has one per server (a Mastodon
    instance): registered on first use, then reused for every account of that instance."""

    __tablename__ = "platform_apps"
    __table_args__ = (UniqueConstraint("connector", "instance_url", "redirect_uri"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    connector: Mapped[str] = mapped_column(String(16))
    instance_url: Mapped[str] = mapped_column(String(500))
    redirect_uri: Mapped[str] = mapped_column(String(2000))
    client_id: Mapped[str] = mapped_column(String(255))
    # Sealed, bound to this row.
    client_secret: Mapped[str] = mapped_column(Text)
    scopes: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
