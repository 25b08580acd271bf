"""The schema: typed SQLAlchemy 2 models. Hot paths use their Table objects with Core statements."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, MetaData, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from core.db.types import UTCDateTime

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ID = String(32)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


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


class Membership(Base):
    __tablename__ = "memberships"
    __table_args__ = (CheckConstraint("role IN ('owner', 'member')", name="role_known"),)

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


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


users = User.__table__
organizations = Organization.__table__
memberships = Membership.__table__
api_keys = ApiKey.__table__
credit_ledger = CreditLedgerEntry.__table__
profiles = Profile.__table__
profile_tags = ProfileTag.__table__
