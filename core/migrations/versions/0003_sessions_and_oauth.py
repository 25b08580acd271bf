"""dashboard sessions, sign-in throttling, OAuth clients, codes, grants, tokens and signing keys

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 06:01:52.696526
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("failed_sign_ins", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(
            sa.Column("last_failed_sign_in_at", core.db.types.UTCDateTime(timezone=True), nullable=True)
        )
    op.create_table(
        "oauth_clients",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=True),
        sa.Column("client_name", sa.String(length=200), nullable=False),
        sa.Column("client_uri", sa.String(length=2000), nullable=False),
        sa.Column("redirect_uris", sa.Text(), nullable=False),
        sa.Column("grant_types", sa.String(length=200), nullable=False),
        sa.Column("response_types", sa.String(length=100), nullable=False),
        sa.Column("token_endpoint_auth_method", sa.String(length=32), nullable=False),
        sa.Column("scope", sa.String(length=500), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_clients")),
    )
    op.create_table(
        "oauth_signing_keys",
        sa.Column("kid", sa.String(length=64), nullable=False),
        sa.Column("public_jwk", sa.Text(), nullable=False),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("kid", name=op.f("pk_oauth_signing_keys")),
    )
    op.create_table(
        "oauth_codes",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("redirect_uri", sa.String(length=2000), nullable=False),
        sa.Column("code_challenge", sa.String(length=128), nullable=False),
        sa.Column("scope", sa.String(length=500), nullable=False),
        sa.Column("audience", sa.String(length=2000), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("used_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("grant_id", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["client_id"], ["oauth_clients.id"], name=op.f("fk_oauth_codes_client_id_oauth_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_oauth_codes_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_oauth_codes_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_codes")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_oauth_codes_code_hash")),
    )
    op.create_table(
        "oauth_grants",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("scope", sa.String(length=500), nullable=False),
        sa.Column("audience", sa.String(length=2000), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("last_token_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["client_id"],
            ["oauth_clients.id"],
            name=op.f("fk_oauth_grants_client_id_oauth_clients"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_oauth_grants_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_oauth_grants_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_grants")),
    )
    with op.batch_alter_table("oauth_grants", schema=None) as batch_op:
        batch_op.create_index("ix_oauth_grants_user_org", ["user_id", "org_id", "id"], unique=False)

    op.create_table(
        "sessions",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_sessions_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_sessions_user_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_sessions_token_hash")),
    )
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index("ix_sessions_user_id", ["user_id"], unique=False)

    op.create_table(
        "oauth_tokens",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("client_id", sa.String(length=32), nullable=False),
        sa.Column("grant_id", sa.String(length=32), nullable=True),
        sa.Column("user_id", sa.String(length=32), nullable=True),
        sa.Column("org_id", sa.String(length=32), nullable=True),
        sa.Column("scope", sa.String(length=500), nullable=False),
        sa.Column("audience", sa.String(length=2000), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("used_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.CheckConstraint("kind IN ('access', 'refresh')", name=op.f("ck_oauth_tokens_kind_known")),
        sa.ForeignKeyConstraint(
            ["client_id"],
            ["oauth_clients.id"],
            name=op.f("fk_oauth_tokens_client_id_oauth_clients"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["grant_id"], ["oauth_grants.id"], name=op.f("fk_oauth_tokens_grant_id_oauth_grants"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_oauth_tokens_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_oauth_tokens_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_oauth_tokens_token_hash")),
    )
    with op.batch_alter_table("oauth_tokens", schema=None) as batch_op:
        batch_op.create_index("ix_oauth_tokens_grant_id", ["grant_id"], unique=False)

    # ### end Alembic commands ###


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("last_failed_sign_in_at")
        batch_op.drop_column("failed_sign_ins")
    with op.batch_alter_table("oauth_tokens", schema=None) as batch_op:
        batch_op.drop_index("ix_oauth_tokens_grant_id")

    op.drop_table("oauth_tokens")
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index("ix_sessions_user_id")

    op.drop_table("sessions")
    with op.batch_alter_table("oauth_grants", schema=None) as batch_op:
        batch_op.drop_index("ix_oauth_grants_user_org")

    op.drop_table("oauth_grants")
    op.drop_table("oauth_codes")
    op.drop_table("oauth_signing_keys")
    op.drop_table("oauth_clients")
    # ### end Alembic commands ###
