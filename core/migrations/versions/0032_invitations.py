"""Invitations (docs/teams.md, "Invitations"): a person invited by email with a role, through a
single-use link whose token is stored only as its SHA-256.

Revision ID: 0032
Revises: 0031
Create Date: 2026-11-28 11:20:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "invitations",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("invited_by", sa.String(length=32), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("accepted_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("accepted_by", sa.String(length=32), nullable=True),
        sa.Column("revoked_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "role IN ('owner', 'admin', 'editor', 'contributor', 'viewer')", name=op.f("ck_invitations_role_known")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_invitations_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["invited_by"], ["users.id"], name=op.f("fk_invitations_invited_by_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["accepted_by"], ["users.id"], name=op.f("fk_invitations_accepted_by_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invitations")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_invitations_token_hash")),
    )
    with op.batch_alter_table("invitations", schema=None) as batch_op:
        batch_op.create_index("ix_invitations_org_created", ["org_id", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("invitations", schema=None) as batch_op:
        batch_op.drop_index("ix_invitations_org_created")
    op.drop_table("invitations")
