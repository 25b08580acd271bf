"""OAuth clients identified by a Client ID Metadata Document keep its URL (their public
client_id); registered clients have none

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("oauth_clients", schema=None) as batch_op:
        batch_op.add_column(sa.Column("metadata_url", sa.String(length=2000), nullable=True))


def downgrade() -> None:
    # Metadata-document clients cannot exist without their URL: they go, with their tokens,
    # grants and codes (explicitly: SQLite may run this without enforcing foreign keys).
    documents = "SELECT id FROM oauth_clients WHERE metadata_url IS NOT NULL"
    for table in ("oauth_tokens", "oauth_grants", "oauth_codes"):
        op.execute(f"DELETE FROM {table} WHERE client_id IN ({documents})")  # constant names
    op.execute("DELETE FROM oauth_clients WHERE metadata_url IS NOT NULL")
    with op.batch_alter_table("oauth_clients", schema=None) as batch_op:
        batch_op.drop_column("metadata_url")
