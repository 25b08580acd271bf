"""The schema: typed SQLAlchemy 2 models. Hot paths use their Table objects with Core statements."""

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
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
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
    # Sign-in throttling (core/identity/accounts.py): failures in the current window.
    failed_sign_ins: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_failed_sign_in_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


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


class Media(Base):
    """A file of an organization's media library. Usable in posts once `status` is `confirmed`.
    (The upload flows that fill it arrive with the media library issue.)"""

    __tablename__ = "media"
    __table_args__ = (
        CheckConstraint("kind IN ('image', 'gif', 'video')", name="kind_known"),
        CheckConstraint("status IN ('pending', 'confirmed')", name="status_known"),
        Index("ix_media_org_id_id", "org_id", "id"),
        Index("ix_media_org_id_content_hash", "org_id", "content_hash"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))
    mime_type: Mapped[str] = mapped_column(String(100))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str] = mapped_column(Text, default="")
    tags: Mapped[str] = mapped_column(String(1000), default="")
    status: Mapped[str] = mapped_column(String(16))
    content_hash: Mapped[Optional[str]] = mapped_column(String(64))
    width: Mapped[Optional[int]] = mapped_column(Integer)
    height: Mapped[Optional[int]] = mapped_column(Integer)
    storage_key: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    confirmed_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class Post(Base):
    """A post to one profile. The table is also the publish queue: `due_at` is when a worker may
    claim it (its schedule, its next retry, or the end of the lease of the worker holding it)."""

    __tablename__ = "posts"
    __table_args__ = (
        CheckConstraint(
            "status IN ('scheduled', 'queued', 'publishing', 'published', 'failed', 'canceled')", name="status_known"
        ),
        Index("ix_posts_status_due_at", "status", "due_at"),
        Index("ix_posts_org_id_id", "org_id", "id"),
        Index("ix_posts_org_id_schedule_at", "org_id", "schedule_at"),
        # get_recent_posts: an organization's published posts, newest first.
        Index("ix_posts_org_id_published_at", "org_id", "published_at"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    profile_slug: Mapped[str] = mapped_column(String(64))
    connector: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    title: Mapped[Optional[str]] = mapped_column(String(100))
    post_type: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    schedule_at: Mapped[datetime] = mapped_column(UTCDateTime)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Credits charged for the current delivery (0 once refunded or never charged).
    charged: Mapped[int] = mapped_column(Integer, default=0)
    delivery_key: Mapped[str] = mapped_column(String(64))
    lease_owner: Mapped[Optional[str]] = mapped_column(String(64))
    failure_reason: Mapped[str] = mapped_column(String(32), default="")
    # A human explanation of failure_reason when Herald has one (e.g. the never-publish phrase).
    failure_detail: Mapped[str] = mapped_column(Text, default="", server_default="")
    platform_error: Mapped[str] = mapped_column(Text, default="")
    platform_post_id: Mapped[str] = mapped_column(String(128), default="")
    platform_url: Mapped[str] = mapped_column(String(500), default="")
    published_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class PostMedia(Base):
    __tablename__ = "post_media"
    __table_args__ = (Index("ix_post_media_media_id", "media_id"),)

    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    media_id: Mapped[str] = mapped_column(ForeignKey("media.id"))
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))


class OutboxEntry(Base):
    """A delivery as recorded: in sandbox mode the exact platform requests that would have been
    sent. Unique on the post's delivery key, so a post is recorded as delivered at most once."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_post_id", "post_id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    delivery_key: Mapped[str] = mapped_column(String(64), unique=True)
    connector: Mapped[str] = mapped_column(String(16))
    mode: Mapped[str] = mapped_column(String(8))
    requests_json: Mapped[str] = mapped_column(Text)
    platform_post_id: Mapped[str] = mapped_column(String(128))
    platform_url: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class IdempotencyKey(Base):
    """The first response to a request made with an `Idempotency-Key`, kept 24 hours."""

    __tablename__ = "idempotency_keys"

    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    response: Mapped[bytes] = mapped_column(LargeBinary)
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


class OAuthClient(Base):
    """A client registered at the OAuth registration endpoint (RFC 7591). A confidential
    client's secret is stored only as its SHA-256; public clients have none."""

    __tablename__ = "oauth_clients"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    secret_hash: Mapped[Optional[str]] = mapped_column(String(64))
    client_name: Mapped[str] = mapped_column(String(200))
    client_uri: Mapped[str] = mapped_column(String(2000), default="")
    # Space-separated lists (no value contains a space: URIs and RFC tokens).
    redirect_uris: Mapped[str] = mapped_column(Text)
    grant_types: Mapped[str] = mapped_column(String(200))
    response_types: Mapped[str] = mapped_column(String(100))
    token_endpoint_auth_method: Mapped[str] = mapped_column(String(32))
    scope: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class OAuthCode(Base):
    """An authorization code: single-use, short-lived, bound to the approving user, the chosen
    organization and the PKCE challenge. `grant_id` is set when it was exchanged, so a replay
    can revoke what it issued."""

    __tablename__ = "oauth_codes"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("oauth_clients.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    redirect_uri: Mapped[str] = mapped_column(String(2000))
    code_challenge: Mapped[str] = mapped_column(String(128))
    scope: Mapped[str] = mapped_column(String(500))
    audience: Mapped[str] = mapped_column(String(2000))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    grant_id: Mapped[Optional[str]] = mapped_column(ID)


class OAuthGrant(Base):
    """A human's approval of one client in one organization (a connected agent). Every token
    issued from it, by code or by refresh, belongs to it: revoking it revokes them all."""

    __tablename__ = "oauth_grants"
    __table_args__ = (Index("ix_oauth_grants_user_org", "user_id", "org_id", "id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("oauth_clients.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    scope: Mapped[str] = mapped_column(String(500))
    audience: Mapped[str] = mapped_column(String(2000))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_token_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class OAuthToken(Base):
    """An opaque access or refresh token, stored only as its SHA-256. client_credentials tokens
    have no grant, user or organization; every surface refuses them."""

    __tablename__ = "oauth_tokens"
    __table_args__ = (
        CheckConstraint("kind IN ('access', 'refresh')", name="kind_known"),
        Index("ix_oauth_tokens_grant_id", "grant_id"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(8))
    client_id: Mapped[str] = mapped_column(ForeignKey("oauth_clients.id", ondelete="CASCADE"))
    grant_id: Mapped[Optional[str]] = mapped_column(ForeignKey("oauth_grants.id", ondelete="CASCADE"))
    user_id: Mapped[Optional[str]] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    org_id: Mapped[Optional[str]] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    scope: Mapped[str] = mapped_column(String(500))
    audience: Mapped[str] = mapped_column(String(2000))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # Refresh tokens: when it was exchanged for its successor (rotation); a second use is a replay.
    used_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class OAuthSigningKey(Base):
    """The authorization server's key pair, published at /jwks (public part only)."""

    __tablename__ = "oauth_signing_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    public_jwk: Mapped[str] = mapped_column(Text)
    private_pem: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BrandVoice(Base):
    """One version of a brand voice document (core/brand): the organization's (`scope` = "org")
    or a profile's override (`scope` = the profile's id). Versions are kept; one per scope is
    current."""

    __tablename__ = "brand_voices"
    __table_args__ = (
        UniqueConstraint("org_id", "scope", "version"),
        Index(
            "ix_brand_voices_current",
            "org_id",
            "scope",
            unique=True,
            sqlite_where=text("is_current"),
            postgresql_where=text("is_current"),
        ),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    scope: Mapped[str] = mapped_column(String(32))
    profile_id: Mapped[Optional[str]] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    is_current: Mapped[bool] = mapped_column(Boolean)
    # The document as JSON (core/brand/voice.py), never-publish phrases included.
    document: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_by: Mapped[str] = mapped_column(String(320))


class Job(Base):
    """One unit of background work in the lease queue (core/jobs, DESIGN 12): a generation run
    now, webhook deliveries and long sourcing later. `due_at` is when a worker may claim it (now,
    its next retry, or the end of the lease of the worker holding it), as for posts."""

    __tablename__ = "jobs"
    __table_args__ = (
        CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name="status_known"),
        Index("ix_jobs_status_due_at", "status", "due_at"),
        Index("ix_jobs_kind_subject_id", "kind", "subject_id"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    # The record the job works on (a run's id), in its kind's table.
    subject_id: Mapped[str] = mapped_column(String(32))
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(16))
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    lease_owner: Mapped[Optional[str]] = mapped_column(String(64))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer)
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class GenerateRun(Base):
    """One call of a generate_* tool (core/generate): its input, and its output once ready."""

    __tablename__ = "generate_runs"
    __table_args__ = (
        CheckConstraint("status IN ('queued', 'running', 'ready', 'failed')", name="status_known"),
        Index("ix_generate_runs_org_id_id", "org_id", "id"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    tool: Mapped[str] = mapped_column(String(32))
    backend: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    # The request as JSON (core/generate/runs.py), and the output once ready.
    input: Mapped[str] = mapped_column(Text)
    output: Mapped[Optional[str]] = mapped_column(Text)
    error_code: Mapped[str] = mapped_column(String(32), default="")
    error_message: Mapped[str] = mapped_column(Text, default="")
    # Credits charged for the run (0 once refunded, or for a free backend).
    charged: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


users = User.__table__
organizations = Organization.__table__
memberships = Membership.__table__
api_keys = ApiKey.__table__
credit_ledger = CreditLedgerEntry.__table__
profiles = Profile.__table__
profile_tags = ProfileTag.__table__
media = Media.__table__
posts = Post.__table__
post_media = PostMedia.__table__
outbox = OutboxEntry.__table__
idempotency_keys = IdempotencyKey.__table__
sessions = Session.__table__
oauth_clients = OAuthClient.__table__
oauth_codes = OAuthCode.__table__
oauth_grants = OAuthGrant.__table__
oauth_tokens = OAuthToken.__table__
oauth_signing_keys = OAuthSigningKey.__table__
brand_voices = BrandVoice.__table__
jobs = Job.__table__
generate_runs = GenerateRun.__table__
