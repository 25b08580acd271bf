"""foundation: identity, credits, profiles

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "organizations",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("slug", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("plan", sa.String(length=16), nullable=False),
        sa.Column("credit_balance", sa.BigInteger(), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.CheckConstraint("plan IN ('active', 'trialing', 'none')", name=op.f("ck_organizations_plan_known")),
        sa.CheckConstraint("credit_balance >= 0", name=op.f("ck_organizations_balance_not_negative")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_organizations")),
        sa.UniqueConstraint("slug", name=op.f("uq_organizations_slug")),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("email", name=op.f("uq_users_email")),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("display_prefix", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("replaced_by", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_api_keys_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_api_keys_user_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("key_id", name=op.f("uq_api_keys_key_id")),
    )
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.create_index("ix_api_keys_user_org_created", ["user_id", "org_id", "id"], unique=False)

    op.create_table(
        "credit_ledger",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("delta", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(length=64), nullable=False),
        sa.Column("reference", sa.String(length=128), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_credit_ledger_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_credit_ledger")),
    )
    with op.batch_alter_table("credit_ledger", schema=None) as batch_op:
        batch_op.create_index("ix_credit_ledger_org_id_id", ["org_id", "id"], unique=False)

    op.create_table(
        "memberships",
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.CheckConstraint("role IN ('owner', 'member')", name=op.f("ck_memberships_role_known")),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_memberships_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_memberships_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "org_id", name=op.f("pk_memberships")),
    )
    op.create_table(
        "profiles",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("slug", sa.String(length=64), nullable=False),
        sa.Column("connector", sa.String(length=16), nullable=False),
        sa.Column("display_name", sa.String(length=200), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "connector IN ('x', 'bluesky', 'mastodon', 'threads', 'instagram', 'tiktok', 'youtube', 'linkedin')",
            name=op.f("ck_profiles_connector_known"),
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_profiles_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_profiles")),
        sa.UniqueConstraint("org_id", "slug", name=op.f("uq_profiles_org_id_slug")),
    )
    op.create_table(
        "profile_tags",
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("tag", sa.String(length=64), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_profile_tags_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name=op.f("fk_profile_tags_profile_id_profiles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("profile_id", "tag", name=op.f("pk_profile_tags")),
    )
    with op.batch_alter_table("profile_tags", schema=None) as batch_op:
        batch_op.create_index("ix_profile_tags_org_id_tag", ["org_id", "tag"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("profile_tags", schema=None) as batch_op:
        batch_op.drop_index("ix_profile_tags_org_id_tag")

    op.drop_table("profile_tags")
    op.drop_table("profiles")
    op.drop_table("memberships")
    with op.batch_alter_table("credit_ledger", schema=None) as batch_op:
        batch_op.drop_index("ix_credit_ledger_org_id_id")

    op.drop_table("credit_ledger")
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.drop_index("ix_api_keys_user_org_created")

    op.drop_table("api_keys")
    op.drop_table("users")
    op.drop_table("organizations")
