"""lease job queue and generation runs

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 09:37:49.479486
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "generate_runs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("tool", sa.String(length=32), nullable=False),
        sa.Column("backend", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("input", sa.Text(), nullable=False),
        sa.Column("output", sa.Text(), nullable=True),
        sa.Column("error_code", sa.String(length=32), nullable=False),
        sa.Column("error_message", sa.Text(), nullable=False),
        sa.Column("charged", sa.Integer(), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'ready', 'failed')", name=op.f("ck_generate_runs_status_known")
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_generate_runs_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_generate_runs_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_generate_runs")),
    )
    with op.batch_alter_table("generate_runs", schema=None) as batch_op:
        batch_op.create_index("ix_generate_runs_org_id_id", ["org_id", "id"], unique=False)

    op.create_table(
        "jobs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("subject_id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("due_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name=op.f("ck_jobs_status_known")),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_jobs_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
    )
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index("ix_jobs_kind_subject_id", ["kind", "subject_id"], unique=False)
        batch_op.create_index("ix_jobs_status_due_at", ["status", "due_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_status_due_at")
        batch_op.drop_index("ix_jobs_kind_subject_id")

    op.drop_table("jobs")
    with op.batch_alter_table("generate_runs", schema=None) as batch_op:
        batch_op.drop_index("ix_generate_runs_org_id_id")

    op.drop_table("generate_runs")
