"""The OAuth 2.1 authorization server: clients, codes, grants, tokens, signing keys."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    String,
    Text,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime

# The grants the unique index covers: one active grant per (client, user, organization).
ACTIVE_GRANT_SQL = "revoked_at IS NULL"


class OAuthClient(Base):
    """A client registered at the OAuth registration endpoint (RFC 7591), or one identified by
    the URL of its Client ID Metadata Document: then `metadata_url` is that URL (its public
    `client_id`), `id` is derived from it, and the row is refreshed from the document at each
    approval. A confidential client's secret is stored only as its SHA-256; public clients
    have none."""

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
    # `native` or `web` (RFC 7591 with OpenID Connect Registration's application_type).
    application_type: Mapped[str] = mapped_column(String(16), server_default="web")
    # The metadata document's URL for a client that has one (draft-ietf-oauth-client-id-metadata-document).
    metadata_url: Mapped[Optional[str]] = mapped_column(String(2000))


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
    issued from it, by code or by refresh, belongs to it: revoking it revokes them all. A user
    has at most one active grant per client and organization: a later consent widens its scope
    (docs/oauth.md, "One grant per agent"); a revoked one stays as the record its codes and
    tokens point to."""

    __tablename__ = "oauth_grants"
    __table_args__ = (
        Index("ix_oauth_grants_user_org", "user_id", "org_id", "id"),
        Index(
            "uq_oauth_grants_active",
            "client_id",
            "user_id",
            "org_id",
            unique=True,
            sqlite_where=text(ACTIVE_GRANT_SQL),
            postgresql_where=text(ACTIVE_GRANT_SQL),
        ),
    )

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
