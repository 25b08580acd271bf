"""Email verification (docs/teams.md, "Email verification"): when mail is configured, an account
made at sign-up confirms its address through a link before its organization may publish. Every
existing account counts as verified (it was made before the check existed).

Revision ID: 0038
Revises: 0037
Create Date: 2026-11-28 13:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None

_WHEN = core.db.types.UTCDateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("email_verified_at", _WHEN, nullable=True))
    op.execute("UPDATE users SET email_verified_at = created_at")
    with op.batch_alter_table("organizations", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("awaiting_verification", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.create_table(
        "email_verifications",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("expires_at", _WHEN, nullable=False),
        sa.Column("used_at", _WHEN, nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_email_verifications_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_email_verifications")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_email_verifications_token_hash")),
    )
    with op.batch_alter_table("email_verifications", schema=None) as batch_op:
        batch_op.create_index("ix_email_verifications_user", ["user_id"])


def downgrade() -> None:
    with op.batch_alter_table("email_verifications", schema=None) as batch_op:
        batch_op.drop_index("ix_email_verifications_user")
    op.drop_table("email_verifications")
    with op.batch_alter_table("organizations", schema=None) as batch_op:
        batch_op.drop_column("awaiting_verification")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("email_verified_at")
