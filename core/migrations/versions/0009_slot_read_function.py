"""next_slot's locked read in one round trip (PostgreSQL only)

`herald_slot_rows(ids, now)` locks the profiles' rows (FOR UPDATE, in id order) and then, in a
second statement with its own snapshot, reads their slot tables, watermarks and the posts that
hold a slot after each one's start: what core/posts/slot_assignment.py otherwise does in two round
trips while holding the lock. A VOLATILE function takes a fresh snapshot for each statement it
runs (READ COMMITTED), so the read sees the slots taken by the request that held the lock before;
a single statement could not (its snapshot predates the wait for the lock). PL/pgSQL rather than
SQL: it keeps each statement's plan for the session (a SQL function planned both on every call).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26 05:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# The statuses whose posts do not hold their slot: core/posts/slot_assignment.py FREE_STATUSES.
FUNCTION = """
CREATE FUNCTION herald_slot_rows(ids text[], at timestamptz)
RETURNS TABLE (profile_id text, profile_slug text, table_json text, watermark timestamptz, taken timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM 1 FROM profiles p WHERE p.id = ANY(ids) ORDER BY p.id FOR UPDATE;
    RETURN QUERY
        SELECT p.id::text, p.slug::text, p.slot_table::text, p.slot_watermark, NULL::timestamptz
        FROM profiles p WHERE p.id = ANY(ids)
        UNION ALL
        SELECT p.id::text, NULL, NULL, NULL, t.schedule_at
        FROM profiles p CROSS JOIN LATERAL (
            -- One index range scan per profile (posts (profile_id, schedule_at)) from its own
            -- start; OFFSET 0 keeps the planner from flattening it into a join over every post.
            SELECT x.schedule_at FROM posts x
            WHERE x.profile_id = p.id
              AND x.schedule_at > date_trunc('minute', GREATEST(at, COALESCE(p.slot_watermark, at)))
              AND x.status NOT IN ('draft', 'canceled', 'failed')
            OFFSET 0
        ) t
        WHERE p.id = ANY(ids);
END
$$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(FUNCTION)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION herald_slot_rows(text[], timestamptz)")
