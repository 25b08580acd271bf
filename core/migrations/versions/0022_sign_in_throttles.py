"""Failed sign-ins for emails no account has, counted like an account's own (sign_in_throttles),
so a locked-out answer never tells that an account exists

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28 08:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sign_in_throttles",
        sa.Column("email_hash", sa.String(64), nullable=False),
        sa.Column("failed_sign_ins", sa.Integer(), nullable=False),
        sa.Column("last_failed_sign_in_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("email_hash", name=op.f("pk_sign_in_throttles")),
    )
    op.create_index(
        op.f("ix_sign_in_throttles_last_failed_sign_in_at"), "sign_in_throttles", ["last_failed_sign_in_at"]
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_sign_in_throttles_last_failed_sign_in_at"), table_name="sign_in_throttles")
    op.drop_table("sign_in_throttles")
