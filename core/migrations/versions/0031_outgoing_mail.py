"""outgoing_mail: each message Herald sends (invitations, address verifications, notifications),
sent by the workers as a job of the lease queue (docs/mail.md); a job may be about no organization
(mail to an address that belongs to none yet)

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-03 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "outgoing_mail",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("recipient", sa.String(length=400), nullable=False),
        sa.Column("subject", sa.String(length=500), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(length=500), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("sent_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('queued', 'sent', 'failed')", name=op.f("ck_outgoing_mail_status_known")),
        sa.CheckConstraint(
            "kind IN ('invitation', 'email_verification', 'notification')", name=op.f("ck_outgoing_mail_kind_known")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_outgoing_mail_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outgoing_mail")),
    )
    with op.batch_alter_table("outgoing_mail", schema=None) as batch_op:
        batch_op.create_index("ix_outgoing_mail_recipient_id", ["recipient", "id"], unique=False)
        batch_op.create_index("ix_outgoing_mail_org_id_id", ["org_id", "id"], unique=False)
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.alter_column("org_id", existing_type=sa.String(length=32), nullable=True)


def downgrade() -> None:
    # Mail jobs go with the table they send from; they are the only jobs about no organization.
    op.execute("DELETE FROM jobs WHERE kind = 'mail.send' OR org_id IS NULL")
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.alter_column("org_id", existing_type=sa.String(length=32), nullable=False)
    with op.batch_alter_table("outgoing_mail", schema=None) as batch_op:
        batch_op.drop_index("ix_outgoing_mail_org_id_id")
        batch_op.drop_index("ix_outgoing_mail_recipient_id")
    op.drop_table("outgoing_mail")
