"""OAuth clients record their application_type (native or web), as MCP 2026-07-28 asks clients
to send it; a client registered before is native when it has no https redirect URI (all of its
redirect URIs are then loopback ones)

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27 11:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("oauth_clients", schema=None) as batch_op:
        batch_op.add_column(sa.Column("application_type", sa.String(length=16), server_default="web", nullable=False))
    op.execute(
        "UPDATE oauth_clients SET application_type = 'native' "
        "WHERE redirect_uris <> '' AND redirect_uris NOT LIKE '%https://%'"
    )


def downgrade() -> None:
    with op.batch_alter_table("oauth_clients", schema=None) as batch_op:
        batch_op.drop_column("application_type")
