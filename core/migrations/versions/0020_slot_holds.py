"""Slot holds: next_slot requests for the same profiles take their turn on the profiles' locks
together (core/posts/slot_lock_turns.py), and the slots promised to those still writing their posts
are held in `slot_holds`

`herald_slot_state(ids, at)` returns a sixth column, `held`: the profile's unexpired holds from
its search's start, as minutes since the epoch like `taken`. The hold of a request is deleted in
the transaction that inserts its posts; one whose request died expires (`expires_at`) and is
removed by housekeeping. No foreign key to profiles: a hold lives minutes at most, and checking
the key would lock the profile's row (KEY SHARE) for every hold written. On PostgreSQL the table
is UNLOGGED: three rows written and deleted per request need no WAL, and what a crash loses (the
table is emptied) is only the holds of requests that died with it.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-26 22:30:00
"""

from __future__ import annotations

import importlib

import sqlalchemy as sa
from alembic import op

import core.db.types

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

# The statuses whose posts do not hold their slot: core/posts/slot_assignment.py FREE_STATUSES.
FUNCTION = """
CREATE FUNCTION herald_slot_state(ids text[], at timestamptz)
RETURNS TABLE (
    profile_id text, profile_slug text, table_json text, watermark timestamptz, taken bigint[], held bigint[]
)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    k bigint;
BEGIN
    FOR k IN SELECT DISTINCT hashtextextended(i, 0) FROM unnest(ids) AS i ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(k);
    END LOOP;
    RETURN QUERY
        SELECT p.id::text, p.slug::text, p.slot_table::text, p.slot_watermark, ARRAY(
            -- One index range scan (posts (profile_id, schedule_at)) from the profile's start.
            SELECT floor(extract(epoch FROM x.schedule_at) / 60)::bigint
            FROM posts x
            WHERE x.profile_id = p.id
              AND x.schedule_at > date_trunc('minute', GREATEST(at, COALESCE(p.slot_watermark, at)))
              AND x.status NOT IN ('draft', 'canceled', 'failed')
        ), ARRAY(
            SELECT h.minute
            FROM slot_holds h
            WHERE h.profile_id = p.id
              AND h.minute >= floor(extract(epoch FROM GREATEST(at, COALESCE(p.slot_watermark, at))) / 60)
              AND h.expires_at > at
        )
        FROM profiles p WHERE p.id = ANY(ids);
END
$$
"""


def upgrade() -> None:
    op.create_table(
        "slot_holds",
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("minute", sa.BigInteger(), nullable=False),
        sa.Column("token", sa.String(length=32), nullable=False),
        sa.Column("expires_at", core.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("profile_id", "minute", name=op.f("pk_slot_holds")),
        # PostgreSQL: no WAL for rows that live milliseconds. A crash empties the table, and the
        # requests whose holds it kept died with their connections.
        prefixes=["UNLOGGED"] if op.get_bind().dialect.name == "postgresql" else [],
    )
    op.create_index("ix_slot_holds_token", "slot_holds", ["token"], unique=False)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION herald_slot_state(text[], timestamptz)")
        op.execute(FUNCTION)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION herald_slot_state(text[], timestamptz)")
        op.execute(importlib.import_module("core.migrations.versions.0019_slot_state_function").FUNCTION)
    op.drop_index("ix_slot_holds_token", table_name="slot_holds")
    op.drop_table("slot_holds")
