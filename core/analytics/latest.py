"""The latest reading of each post kept on its series (docs/analytics.md, "Summaries and lists").

A summary over 90 days of an organization's posts reads one row per post, not the latest of its
snapshots: when a read is recorded, the post's own snapshot (part -1) is copied onto its
`post_metric_series` row, in the transaction that inserts the snapshot. A thread item's readings
stay in the snapshots only (a summary counts posts, not their items)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.analytics import POST_METRICS
from core.db.models import post_metric_series

_KEEP = (
    update(post_metric_series)
    .where(post_metric_series.c.id == bindparam("b_id"))
    .values(
        latest_at=bindparam("b_at"),
        latest_sandbox=bindparam("b_sandbox"),
        **{f"latest_{name}": bindparam(f"b_{name}") for name in POST_METRICS},
    )
)


async def keep(conn: AsyncConnection, snapshots: Sequence[dict[str, Any]]) -> None:
    """Copies the posts' own snapshots among `snapshots` (rows as inserted into
    post_metric_snapshots) onto their series, in one statement."""
    own = [
        {
            "b_id": s["series_id"],
            "b_at": s["collected_at"],
            "b_sandbox": s["sandbox"],
            **{f"b_{name}": s[name] for name in POST_METRICS},
        }
        for s in snapshots
        if s["part"] == -1
    ]
    if own:
        await conn.execute(_KEEP, own)


async def of_posts(conn: AsyncConnection, post_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    """Each post's latest metrics, for lists of posts (get_recent_posts); posts not read yet have
    none. One indexed read (the series' unique post_id)."""
    if not post_ids:
        return {}
    columns = [post_metric_series.c[f"latest_{name}"] for name in POST_METRICS]
    rows = await conn.execute(
        select(post_metric_series.c.post_id, *columns).where(
            post_metric_series.c.post_id.in_(post_ids), post_metric_series.c.latest_at.is_not(None)
        )
    )
    return {
        row[0]: {name: value for name, value in zip(POST_METRICS, row[1:], strict=True) if value is not None}
        for row in rows
    }
