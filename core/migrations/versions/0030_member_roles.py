"""Members' roles (docs/teams.md): owner, admin, editor, contributor, viewer in place of owner and
member. No `member` row was ever written (every membership so far is its organization's owner);
any there is becomes an admin, the role with what `member` implied: everything but owners.

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-28 11:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None

_ROLES = "role IN ('owner', 'admin', 'editor', 'contributor', 'viewer')"


def upgrade() -> None:
    with op.batch_alter_table("memberships", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_memberships_role_known"), type_="check")
    op.execute("UPDATE memberships SET role = 'admin' WHERE role = 'member'")
    with op.batch_alter_table("memberships", schema=None) as batch_op:
        batch_op.create_check_constraint("role_known", sa.text(_ROLES))


def downgrade() -> None:
    with op.batch_alter_table("memberships", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_memberships_role_known"), type_="check")
    op.execute("UPDATE memberships SET role = 'member' WHERE role <> 'owner'")
    with op.batch_alter_table("memberships", schema=None) as batch_op:
        batch_op.create_check_constraint("role_known", sa.text("role IN ('owner', 'member')"))
