"""platform connections and live delivery state

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 21:57:57.011147
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "platform_apps",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("connector", sa.String(length=16), nullable=False),
        sa.Column("instance_url", sa.String(length=500), nullable=False),
        sa.Column("redirect_uri", sa.String(length=2000), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("client_secret", sa.Text(), nullable=False),
        sa.Column("scopes", sa.String(length=500), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_platform_apps")),
        sa.UniqueConstraint(
            "connector",
            "instance_url",
            "redirect_uri",
            name=op.f("uq_platform_apps_connector_instance_url_redirect_uri"),
        ),
    )
    op.create_table(
        "connect_attempts",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("state_hash", sa.String(length=64), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("session_id", sa.String(length=32), nullable=True),
        sa.Column("connector", sa.String(length=16), nullable=False),
        sa.Column("instance_url", sa.String(length=500), nullable=False),
        sa.Column("app_id", sa.String(length=32), nullable=True),
        sa.Column("code_verifier", sa.Text(), nullable=False),
        sa.Column("redirect_uri", sa.String(length=2000), nullable=False),
        sa.Column("return_to", sa.String(length=2000), nullable=False),
        sa.Column("slug", sa.String(length=64), nullable=False),
        sa.Column("display_name", sa.String(length=200), nullable=False),
        sa.Column("tags", sa.String(length=1400), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("used_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["app_id"], ["platform_apps.id"], name=op.f("fk_connect_attempts_app_id_platform_apps"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_connect_attempts_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_connect_attempts_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_connect_attempts")),
        sa.UniqueConstraint("state_hash", name=op.f("uq_connect_attempts_state_hash")),
    )
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("delivery_state", sa.Text(), server_default="", nullable=False))

    with op.batch_alter_table("profiles", schema=None) as batch_op:
        batch_op.add_column(sa.Column("platform_account_id", sa.String(length=255), server_default="", nullable=False))
        batch_op.add_column(sa.Column("handle", sa.String(length=255), server_default="", nullable=False))
        batch_op.add_column(sa.Column("avatar_url", sa.String(length=1000), server_default="", nullable=False))
        batch_op.add_column(sa.Column("instance_url", sa.String(length=500), server_default="", nullable=False))
        batch_op.add_column(sa.Column("granted_scopes", sa.String(length=1000), server_default="", nullable=False))
        batch_op.add_column(
            sa.Column("connection_status", sa.String(length=16), server_default="disconnected", nullable=False)
        )
        batch_op.add_column(sa.Column("connection_error", sa.Text(), server_default="", nullable=False))
        batch_op.add_column(sa.Column("connected_at", core.db.types.UTCDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("access_token", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("refresh_token", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("token_expires_at", core.db.types.UTCDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("token_version", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("refresh_lease_until", core.db.types.UTCDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("throttled_until", core.db.types.UTCDateTime(timezone=True), nullable=True))
        batch_op.create_index(
            "ix_profiles_account",
            ["org_id", "connector", "instance_url", "platform_account_id"],
            unique=True,
            sqlite_where=sa.text("platform_account_id <> ''"),
            postgresql_where=sa.text("platform_account_id <> ''"),
        )
        batch_op.create_index(
            "ix_profiles_connection_status_token_expires_at", ["connection_status", "token_expires_at"], unique=False
        )
        batch_op.create_check_constraint(
            "connection_status_known", "connection_status IN ('connected', 'needs_reauth', 'disconnected')"
        )


def downgrade() -> None:
    with op.batch_alter_table("profiles", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_profiles_connection_status_known"), type_="check")
        batch_op.drop_index("ix_profiles_connection_status_token_expires_at")
        batch_op.drop_index(
            "ix_profiles_account",
            sqlite_where=sa.text("platform_account_id <> ''"),
            postgresql_where=sa.text("platform_account_id <> ''"),
        )
        batch_op.drop_column("throttled_until")
        batch_op.drop_column("refresh_lease_until")
        batch_op.drop_column("token_version")
        batch_op.drop_column("token_expires_at")
        batch_op.drop_column("refresh_token")
        batch_op.drop_column("access_token")
        batch_op.drop_column("connected_at")
        batch_op.drop_column("connection_error")
        batch_op.drop_column("connection_status")
        batch_op.drop_column("granted_scopes")
        batch_op.drop_column("instance_url")
        batch_op.drop_column("avatar_url")
        batch_op.drop_column("handle")
        batch_op.drop_column("platform_account_id")

    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_column("delivery_state")

    op.drop_table("connect_attempts")
    op.drop_table("platform_apps")
