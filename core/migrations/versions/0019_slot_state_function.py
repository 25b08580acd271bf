"""next_slot's locked read, cheaper: an advisory lock per profile, and the taken minutes as one
array per profile (PostgreSQL only)

`herald_slot_state(ids, now)` replaces 0009's `herald_slot_rows`:
- The lock is a transaction-level advisory lock per profile (`pg_advisory_xact_lock` of the
  profile id's 64-bit hash, taken in key order so two requests cannot deadlock), not `FOR UPDATE`
  on the profiles' rows: it is held until the commit just the same, but writes nothing to the
  table (a row lock marks the row and logs it) and does not make writers of the profile row
  wait. Two ids with the same hash only share a lock: they wait for each other, nothing else.
- The posts holding a slot come back as one array of minutes since the epoch per profile
  (`floor(epoch / 60)`), not one timestamp row each: converting ~24 rows of timestamps per
  request cost more CPU in the core than the search itself.
As before, the read runs as a second statement of a VOLATILE PL/pgSQL function, with its own
snapshot taken after the lock: it sees the slots taken by the request that held the lock before.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26 19:40:00
"""

from __future__ import annotations

import importlib

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

# The statuses whose posts do not hold their slot: core/posts/slot_assignment.py FREE_STATUSES.
FUNCTION = """
CREATE FUNCTION herald_slot_state(ids text[], at timestamptz)
RETURNS TABLE (profile_id text, profile_slug text, table_json text, watermark timestamptz, taken bigint[])
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
        )
        FROM profiles p WHERE p.id = ANY(ids);
END
$$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(FUNCTION)
        op.execute("DROP FUNCTION herald_slot_rows(text[], timestamptz)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION herald_slot_state(text[], timestamptz)")
        op.execute(importlib.import_module("core.migrations.versions.0009_slot_read_function").FUNCTION)
