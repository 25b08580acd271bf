"""Media records name the thumbnail confirm made of them (`thumbnail_key`: a small WebP stored
beside the media's bytes, docs/media.md "Thumbnails"); NULL for media confirmed before, and for
media no thumbnail could be made of

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-01 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.add_column(sa.Column("thumbnail_key", sa.String(length=255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("media", schema=None) as batch_op:
        batch_op.drop_column("thumbnail_key")
