"""One active OAuth grant per (client, user, organization): a later consent widens it instead of
adding a grant (docs/oauth.md, "One grant per agent"). Active duplicates are merged into the
earliest: the union of their scopes, their latest token time; their tokens and codes move to it

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-28 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

ACTIVE = sa.text("revoked_at IS NULL")

_grants = sa.table(
    "oauth_grants",
    sa.column("id", sa.String),
    sa.column("client_id", sa.String),
    sa.column("user_id", sa.String),
    sa.column("org_id", sa.String),
    sa.column("scope", sa.String),
    sa.column("created_at", core.db.types.UTCDateTime()),
    sa.column("last_token_at", core.db.types.UTCDateTime()),
    sa.column("revoked_at", core.db.types.UTCDateTime()),
)
_tokens = sa.table("oauth_tokens", sa.column("grant_id", sa.String))
_codes = sa.table("oauth_codes", sa.column("grant_id", sa.String))


def _merge_active_duplicates(conn: sa.Connection) -> None:
    rows = conn.execute(
        sa.select(_grants)
        .where(_grants.c.revoked_at.is_(None))
        .order_by(_grants.c.client_id, _grants.c.user_id, _grants.c.org_id, _grants.c.created_at, _grants.c.id)
    ).all()
    groups: dict[tuple[str, str, str], list[sa.Row]] = {}
    for row in rows:
        groups.setdefault((row.client_id, row.user_id, row.org_id), []).append(row)
    for keeper, *others in groups.values():
        if not others:
            continue
        merged = [keeper, *others]
        other_ids = [row.id for row in others]
        # Tokens keep their own scopes and lifetimes: only the grant they belong to changes.
        conn.execute(sa.update(_tokens).where(_tokens.c.grant_id.in_(other_ids)).values(grant_id=keeper.id))
        # A code replayed later must still revoke the grant its tokens now belong to.
        conn.execute(sa.update(_codes).where(_codes.c.grant_id.in_(other_ids)).values(grant_id=keeper.id))
        conn.execute(sa.delete(_grants).where(_grants.c.id.in_(other_ids)))
        conn.execute(
            sa.update(_grants)
            .where(_grants.c.id == keeper.id)
            .values(
                scope=" ".join(sorted({scope for row in merged for scope in row.scope.split()})),
                last_token_at=max(row.last_token_at for row in merged),
            )
        )


def upgrade() -> None:
    _merge_active_duplicates(op.get_bind())
    with op.batch_alter_table("oauth_grants", schema=None) as batch_op:
        batch_op.create_index(
            "uq_oauth_grants_active",
            ["client_id", "user_id", "org_id"],
            unique=True,
            sqlite_where=ACTIVE,
            postgresql_where=ACTIVE,
        )


def downgrade() -> None:
    # The merged grants stay merged: one grant per agent is valid data for the older schema too.
    with op.batch_alter_table("oauth_grants", schema=None) as batch_op:
        batch_op.drop_index("uq_oauth_grants_active", sqlite_where=ACTIVE, postgresql_where=ACTIVE)
