"""posts, outbox, idempotency keys, media library

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("response", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_idempotency_keys_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("org_id", "key", name=op.f("pk_idempotency_keys")),
    )
    op.create_table(
        "media",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("mime_type", sa.String(length=100), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("tags", sa.String(length=1000), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=True),
        sa.Column("width", sa.Integer(), nullable=True),
        sa.Column("height", sa.Integer(), nullable=True),
        sa.Column("storage_key", sa.String(length=255), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("confirmed_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.CheckConstraint("kind IN ('image', 'gif', 'video')", name=op.f("ck_media_kind_known")),
        sa.CheckConstraint("status IN ('pending', 'confirmed')", name=op.f("ck_media_status_known")),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_media_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_media")),
    )
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.create_index("ix_media_org_id_content_hash", ["org_id", "content_hash"], unique=False)
        batch_op.create_index("ix_media_org_id_id", ["org_id", "id"], unique=False)

    op.create_table(
        "posts",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("profile_slug", sa.String(length=64), nullable=False),
        sa.Column("connector", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("title", sa.String(length=100), nullable=True),
        sa.Column("post_type", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("schedule_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("due_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("charged", sa.Integer(), nullable=False),
        sa.Column("delivery_key", sa.String(length=64), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("failure_reason", sa.String(length=32), nullable=False),
        sa.Column("platform_error", sa.Text(), nullable=False),
        sa.Column("platform_post_id", sa.String(length=128), nullable=False),
        sa.Column("platform_url", sa.String(length=500), nullable=False),
        sa.Column("published_at", core.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('scheduled', 'queued', 'publishing', 'published', 'failed', 'canceled')",
            name=op.f("ck_posts_status_known"),
        ),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_posts_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name=op.f("fk_posts_profile_id_profiles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_posts")),
    )
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.create_index("ix_posts_org_id_id", ["org_id", "id"], unique=False)
        batch_op.create_index("ix_posts_org_id_schedule_at", ["org_id", "schedule_at"], unique=False)
        batch_op.create_index("ix_posts_status_due_at", ["status", "due_at"], unique=False)

    op.create_table(
        "outbox",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.Column("post_id", sa.String(length=32), nullable=False),
        sa.Column("delivery_key", sa.String(length=64), nullable=False),
        sa.Column("connector", sa.String(length=16), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("requests_json", sa.Text(), nullable=False),
        sa.Column("platform_post_id", sa.String(length=128), nullable=False),
        sa.Column("platform_url", sa.String(length=500), nullable=False),
        sa.Column("created_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_outbox_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["post_id"], ["posts.id"], name=op.f("fk_outbox_post_id_posts"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("delivery_key", name=op.f("uq_outbox_delivery_key")),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_post_id", ["post_id"], unique=False)

    op.create_table(
        "post_media",
        sa.Column("post_id", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("media_id", sa.String(length=32), nullable=False),
        sa.Column("org_id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["media_id"], ["media.id"], name=op.f("fk_post_media_media_id_media")),
        sa.ForeignKeyConstraint(
            ["org_id"], ["organizations.id"], name=op.f("fk_post_media_org_id_organizations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["post_id"], ["posts.id"], name=op.f("fk_post_media_post_id_posts"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("post_id", "position", name=op.f("pk_post_media")),
    )
    with op.batch_alter_table("post_media", schema=None) as batch_op:
        batch_op.create_index("ix_post_media_media_id", ["media_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("post_media", schema=None) as batch_op:
        batch_op.drop_index("ix_post_media_media_id")

    op.drop_table("post_media")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_post_id")

    op.drop_table("outbox")
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_index("ix_posts_status_due_at")
        batch_op.drop_index("ix_posts_org_id_schedule_at")
        batch_op.drop_index("ix_posts_org_id_id")

    op.drop_table("posts")
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.drop_index("ix_media_org_id_id")
        batch_op.drop_index("ix_media_org_id_content_hash")

    op.drop_table("media")
    op.drop_table("idempotency_keys")
