"""Accounts: users, organizations and their members, API keys, credits, dashboard sessions."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # Sign-in throttling (core/identity/accounts.py): failures in the current window.
    failed_sign_ins: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_failed_sign_in_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # When the address was confirmed (the link sent at sign-up when mail is configured); None
    # while it waits. Accounts made without mail, by the admin CLI or through an invitation count
    # as verified when they are made.
    email_verified_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class SignInThrottle(Base):
    """Failed sign-ins for an email no account has (core/identity/accounts.py), counted like an
    account's own, so being locked out never tells that an account exists. Keyed by a hash of the
    normalized email; rows older than the window are removed by housekeeping."""

    __tablename__ = "sign_in_throttles"

    email_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    failed_sign_ins: Mapped[int] = mapped_column(Integer)
    last_failed_sign_in_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class Organization(Base):
    __tablename__ = "organizations"
    __table_args__ = (
        CheckConstraint("credit_balance >= 0", name="balance_not_negative"),
        CheckConstraint("plan IN ('active', 'trialing', 'none')", name="plan_known"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    plan: Mapped[str] = mapped_column(String(16))
    credit_balance: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # Stock providers turned off for this organization (comma-separated keys; docs/stock.md).
    stock_disabled: Mapped[str] = mapped_column(String(100), default="", server_default="")
    # Where its people live: the IANA zone its pages show times in (docs/dashboard.md).
    time_zone: Mapped[str] = mapped_column(String(64), default="UTC", server_default="UTC")
    # Approvals (docs/teams.md): who must have posts approved (space-separated: agents, api_keys),
    # for profiles with which tags (space-separated; empty: all), and whether self-approval counts.
    approvals_required_for: Mapped[str] = mapped_column(String(64), default="", server_default="")
    approval_profile_tags: Mapped[str] = mapped_column(Text, default="", server_default="")
    self_approval: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Made at sign-up with mail configured: it publishes once its creator's address is verified.
    awaiting_verification: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Membership(Base):
    __tablename__ = "memberships"
    __table_args__ = (
        CheckConstraint("role IN ('owner', 'admin', 'editor', 'contributor', 'viewer')", name="role_known"),
    )

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # Profile limits (docs/teams.md, "Profile limits"): the member reaches only the profiles
    # carrying one of these tags (space-separated, normalized); empty: every profile.
    profile_tags: Mapped[str] = mapped_column(Text, default="", server_default="")


class ApiKey(Base):
    """An API key. `key_id` is the public, indexed part of the secret; only the SHA-256 of the
    whole secret is stored."""

    __tablename__ = "api_keys"
    __table_args__ = (Index("ix_api_keys_user_org_created", "user_id", "org_id", "id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    key_id: Mapped[str] = mapped_column(String(32), unique=True)
    secret_hash: Mapped[str] = mapped_column(String(64))
    display_prefix: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_used_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    revoked_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    replaced_by: Mapped[Optional[str]] = mapped_column(ID)


class CreditLedgerEntry(Base):
    __tablename__ = "credit_ledger"
    __table_args__ = (Index("ix_credit_ledger_org_id_id", "org_id", "id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    delta: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(String(64))
    reference: Mapped[str] = mapped_column(String(128), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Session(Base):
    """A signed-in human's dashboard session. Only the SHA-256 of its token is stored; the
    session acts in one organization of its user at a time (the organization switcher)."""

    __tablename__ = "sessions"
    __table_args__ = (Index("ix_sessions_user_id", "user_id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class Invitation(Base):
    """An invitation to join an organization with a role (docs/teams.md, "Invitations"). Only the
    SHA-256 of its link's token is stored; it is used once (accepted_at), or revoked, or expires."""

    __tablename__ = "invitations"
    __table_args__ = (
        CheckConstraint("role IN ('owner', 'admin', 'editor', 'contributor', 'viewer')", name="role_known"),
        Index("ix_invitations_org_created", "org_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    email: Mapped[str] = mapped_column(String(320))
    role: Mapped[str] = mapped_column(String(16))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    invited_by: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The profile limits the member joins with (as Membership.profile_tags; empty: none).
    profile_tags: Mapped[str] = mapped_column(Text, default="", server_default="")
    accepted_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    accepted_by: Mapped[Optional[str]] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    revoked_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class EmailVerification(Base):
    """A link to confirm a user's address: only the SHA-256 of its token; used once, 48 hours."""

    __tablename__ = "email_verifications"
    __table_args__ = (Index("ix_email_verifications_user", "user_id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
