"""A post's language and TikTok settings, a profile's default language (issue 30): posts.language
(a BCP 47 tag, NULL when neither the request nor the profile named one), posts.tiktok_options
(the TikTok settings the request chose, JSON; "" for none), profiles.default_language (NULL:
unset). Existing rows keep what they were sent with: no language, every TikTok default.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-28 14:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("language", sa.String(35), nullable=True))
        batch_op.add_column(sa.Column("tiktok_options", sa.Text(), server_default="", nullable=False))
    with op.batch_alter_table("profiles", schema=None) as batch_op:
        batch_op.add_column(sa.Column("default_language", sa.String(35), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("profiles", schema=None) as batch_op:
        batch_op.drop_column("default_language")
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_column("tiktok_options")
        batch_op.drop_column("language")
