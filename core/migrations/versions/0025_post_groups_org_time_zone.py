"""Post groups and the organization's time zone (the workspace): posts.group_id, the same for
every post one request created (`grp_…`, never a post id), indexed with the organization; and
organizations.time_zone (an IANA name, `UTC` by default).

Existing posts are grouped as they were created: the posts of one organization with the same
creation instant and the same request id came from one request (creation stamps every post of
a request with one instant). Each such group is named `grp_` and the rest of its first post's id,
so the names sort by creation time as new ones do.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28 08:20:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

_BACKFILL = """
UPDATE posts SET group_id = (
    SELECT 'grp_' || substr(min(p.id), 5) FROM posts p
    WHERE p.org_id = posts.org_id AND p.created_at = posts.created_at
      AND coalesce(p.request_id, '') = coalesce(posts.request_id, '')
)
"""


def upgrade() -> None:
    with op.batch_alter_table("organizations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_zone", sa.String(64), server_default="UTC", nullable=False))
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("group_id", sa.String(32), nullable=True))
    op.execute(_BACKFILL)
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.alter_column("group_id", existing_type=sa.String(32), nullable=False)
        batch_op.create_index("ix_posts_org_id_group_id", ["org_id", "group_id"])


def downgrade() -> None:
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_index("ix_posts_org_id_group_id")
        batch_op.drop_column("group_id")
    with op.batch_alter_table("organizations", schema=None) as batch_op:
        batch_op.drop_column("time_zone")
