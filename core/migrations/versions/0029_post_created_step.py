"""A post's `created` step moves from post_events into its row: posts.created_detail, the step's
detail as core/posts/history.py writes it, so creation writes nothing beside the post
(docs/posts.md, "History"); the step's time is the post's created_at.

The `created` rows of post_events are copied into their posts as they are (their detail is
that same JSON) and deleted. Posts created before migration 0028 have no such row and keep
created_detail NULL: no created step, as before. The downgrade puts the rows back, each with the
id `pev_` and the rest of its post's id (their old ids are not kept) and its post's created_at.

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-28 11:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None

_MOVE = """
UPDATE posts SET created_detail = (
    SELECT e.detail FROM post_events e WHERE e.post_id = posts.id AND e.kind = 'created'
    ORDER BY e.at, e.id LIMIT 1
)
WHERE id IN (SELECT post_id FROM post_events WHERE kind = 'created')
"""
_DELETE = "DELETE FROM post_events WHERE kind = 'created'"
_PUT_BACK = """
INSERT INTO post_events (id, org_id, post_id, at, kind, detail)
SELECT 'pev_' || substr(id, 5), org_id, id, created_at, 'created', created_detail
FROM posts WHERE created_detail IS NOT NULL
"""


def upgrade() -> None:
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("created_detail", sa.Text(), nullable=True))
    op.execute(_MOVE)
    op.execute(_DELETE)


def downgrade() -> None:
    op.execute(_PUT_BACK)
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_column("created_detail")
