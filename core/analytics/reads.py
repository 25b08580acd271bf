"""The collection's queue (docs/analytics.md, "Collection"): due reads claimed in batches under a
lease, and each batch's readings recorded fenced on that lease, as the publisher claims posts
(docs/decisions.md, "Background work shares one lease primitive").

Claiming is one statement: the oldest due series, a range of ix_post_metric_series_due_at from
its low end (so a claim costs the same however many posts are tracked), locked with FOR UPDATE
SKIP LOCKED on PostgreSQL (on SQLite the transaction holds the write lock), each given the
claim's own token as `lease_owner` and the lease's end as `due_at`. The posts' platform ids and
their published thread items are read in the same transaction.

Recording is one transaction: the series this claim's token still holds are locked, their
snapshots inserted in one statement, and each one's raw answer, next read and lease updated in
one more. A series another worker took over (this lease ran out) gets nothing from this claim;
a worker killed before its commit wrote nothing, and its series come due again when the lease
ends. So no reading is lost and none is written twice.
"""

from __future__ import annotations

import json
import secrets
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from contract.analytics import POST_METRICS
from core.analytics import latest
from core.analytics.schedule import next_read, steps_behind
from core.connectors.base import Account
from core.connectors.readings import MetricsItem, MetricsReading
from core.db.engine import is_sqlite, transaction
from core.db.models import post_metric_series, post_metric_snapshots, post_parts, posts, profiles
from core.platform_accounts.token_refresh import StoredTokens

series = post_metric_series.c
# A read that failed this many times in a row is given up: the series goes on with its next step.
MAX_FAILURES = 5
RETRY_BASE = timedelta(seconds=60)
RETRY_CAP = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class DueRead:
    """A post whose metrics are due, as claimed: its connector and the items to read (the post,
    then its published thread items), and its profile with the profile's sealed tokens (what a
    live read is sent with; docs/analytics.md, "Each platform")."""

    series_id: int
    post_id: str
    connector: str
    published_at: datetime
    step: int
    refresh: bool
    failures: int
    items: tuple[MetricsItem, ...]
    profile_id: str = ""
    tokens: StoredTokens | None = None


@dataclass(frozen=True, slots=True)
class Batch:
    """One claim: its token (the `lease_owner` its series carry) and what it took."""

    token: str
    reads: list[DueRead]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one claimed read: its items' readings by part, or what stopped it: an
    `error` (counted, tried again after a growing wait), `wait_until` (the platform asked us to
    wait: due again then, nothing counted), or `skipped` (the profile's metrics cannot be read:
    this step is passed over, the schedule goes on)."""

    read: DueRead
    readings: dict[int, MetricsReading] = field(default_factory=dict)
    error: str = ""
    wait_until: datetime | None = None
    skipped: str = ""

    @property
    def gone(self) -> bool:
        """The platform no longer has the post: its series ends."""
        main = self.readings.get(-1)
        return main is not None and main.gone


async def claim(engine: AsyncEngine, worker_id: str, now: datetime, *, limit: int, lease_seconds: float) -> Batch:
    """Up to `limit` due reads, oldest first, leased to this claim until now + lease."""
    token = f"{worker_id}:{secrets.token_hex(4)}"
    due = select(series.id).where(series.due_at.is_not(None), series.due_at <= now).order_by(series.due_at).limit(limit)
    if not is_sqlite(engine):
        due = due.with_for_update(skip_locked=True)
    async with transaction(engine, writes=True) as conn:
        rows = (
            await conn.execute(
                update(post_metric_series)
                .where(series.id.in_(due))
                .values(lease_owner=token, due_at=now + timedelta(seconds=lease_seconds))
                .returning(series.id, series.post_id, series.published_at, series.step, series.refresh, series.failures)
            )
        ).all()
        if not rows:
            return Batch(token, [])
        found = await _items(conn, [row.post_id for row in rows])
    reads = []
    for row in rows:
        connector, items, profile_id, tokens = found[row.post_id]
        reads.append(
            DueRead(
                row.id,
                row.post_id,
                connector,
                row.published_at,
                row.step,
                row.refresh,
                row.failures,
                items,
                profile_id,
                tokens,
            )
        )
    return Batch(token, reads)


_Found = tuple[str, tuple[MetricsItem, ...], str, StoredTokens]


async def _items(conn: AsyncConnection, post_ids: list[str]) -> dict[str, _Found]:
    """Each post's connector, items (the post, part -1, then its published thread items),
    profile and that profile's sealed tokens."""
    p = profiles.c
    main = await conn.execute(
        select(
            posts.c.id,
            posts.c.connector,
            posts.c.platform_post_id,
            posts.c.published_at,
            posts.c.profile_id,
            p.slug,
            p.handle,
            p.platform_account_id,
            p.instance_url,
            p.access_token,
            p.refresh_token,
            p.token_expires_at,
            p.token_version,
        )
        .outerjoin(profiles, profiles.c.id == posts.c.profile_id)
        .where(posts.c.id.in_(post_ids))
    )
    parts = await conn.execute(
        select(post_parts.c.post_id, post_parts.c.position, post_parts.c.platform_post_id)
        .where(post_parts.c.post_id.in_(post_ids), post_parts.c.kind == "thread", post_parts.c.status == "published")
        .order_by(post_parts.c.post_id, post_parts.c.position)
    )
    thread: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for part in parts:
        thread[part.post_id].append((part.position, part.platform_post_id))
    out = {}
    for post in main:
        account = Account(post.slug or "", post.handle or "", post.platform_account_id or "", post.instance_url or "")
        items = [MetricsItem(post.id, -1, post.platform_post_id, post.published_at, account)]
        items += [MetricsItem(post.id, position, pid, post.published_at, account) for position, pid in thread[post.id]]
        tokens = StoredTokens(
            post.profile_id,
            post.connector,
            post.instance_url or "",
            post.access_token,
            post.refresh_token,
            post.token_expires_at,
            post.token_version or 0,
        )
        out[post.id] = (post.connector, tuple(items), post.profile_id, tokens)
    return out


async def record(
    engine: AsyncEngine,
    batch: Batch,
    outcomes: Sequence[Outcome],
    now: datetime,
    offsets: tuple[timedelta, ...],
    *,
    sandbox: bool,
) -> int:
    """Records a claim's outcomes, fenced on its token; how many snapshots it wrote."""
    ids = [o.read.series_id for o in outcomes]
    held_query = select(series.id).where(series.id.in_(ids), series.lease_owner == batch.token)
    if not is_sqlite(engine):
        held_query = held_query.with_for_update()
    async with transaction(engine, writes=True) as conn:
        held = set(await conn.scalars(held_query))
        mine = [o for o in outcomes if o.read.series_id in held]
        read = [o for o in mine if not (o.error or o.wait_until or o.skipped)]
        snapshots = [
            _snapshot(o.read.series_id, part, r, now, sandbox)
            for o in read
            if not o.gone
            for part, r in o.readings.items()
            if not r.gone
        ]
        if snapshots:
            await conn.execute(insert(post_metric_snapshots), snapshots)
            await latest.keep(conn, snapshots)
        if read:
            await conn.execute(_READ, [_after_read(o, now, offsets) for o in read])
        failed = [o for o in mine if o.error or o.skipped]
        if failed:
            await conn.execute(_FAILED, [_after_failure(o, now, offsets) for o in failed])
        waiting = [o for o in mine if o.wait_until and not (o.error or o.skipped)]
        if waiting:
            await conn.execute(_WAIT, [{"b_id": o.read.series_id, "b_due_at": o.wait_until} for o in waiting])
    return len(snapshots)


def _snapshot(series_id: int, part: int, reading: MetricsReading, now: datetime, sandbox: bool) -> dict[str, Any]:
    values = {name: reading.values.get(name) for name in POST_METRICS}
    return {"series_id": series_id, "part": part, "collected_at": now, "sandbox": sandbox, **values}


# One statement for every series of a batch (executemany); parameters are `b_`-named, since
# SQLAlchemy reserves the columns' own names for the values' binds.
_READ = (
    update(post_metric_series)
    .where(series.id == bindparam("b_id"))
    .values(
        due_at=bindparam("b_due_at"),
        step=bindparam("b_step"),
        refresh=False,
        lease_owner=None,
        failures=0,
        last_error="",
        read_at=bindparam("b_read_at"),
        raw=bindparam("b_raw"),
        gone_at=bindparam("b_gone_at"),
    )
)
# The platform asked us to wait: due again then, the schedule's step and failures as they were.
_WAIT = (
    update(post_metric_series)
    .where(series.id == bindparam("b_id"))
    .values(due_at=bindparam("b_due_at"), lease_owner=None)
)
_FAILED = (
    update(post_metric_series)
    .where(series.id == bindparam("b_id"))
    .values(
        due_at=bindparam("b_due_at"),
        step=bindparam("b_step"),
        refresh=bindparam("b_refresh"),
        lease_owner=None,
        failures=bindparam("b_failures"),
        last_error=bindparam("b_error"),
    )
)


def _after_read(outcome: Outcome, now: datetime, offsets: tuple[timedelta, ...]) -> dict[str, Any]:
    """A read made: every scheduled read due by now counts as done, the next one is due; a post
    its platform no longer has is read no more (`gone_at`)."""
    step = steps_behind(outcome.read.published_at, offsets, now)
    raw = [{"part": part, "answer": r.raw} for part, r in sorted(outcome.readings.items())]
    return {
        "b_id": outcome.read.series_id,
        "b_due_at": None if outcome.gone else next_read(outcome.read.published_at, offsets, step),
        "b_step": step,
        "b_read_at": now,
        "b_raw": json.dumps(raw, separators=(",", ":")),
        "b_gone_at": now if outcome.gone else None,
    }


def _after_failure(outcome: Outcome, now: datetime, offsets: tuple[timedelta, ...]) -> dict[str, Any]:
    """A read that failed: tried again after a growing wait, or, after MAX_FAILURES in a row,
    given up as if made (no snapshot) so the series goes on with its next step. A skipped read
    (the profile's metrics cannot be read) is given up at once, with its reason."""
    failures, step, refresh = outcome.read.failures + 1, outcome.read.step, outcome.read.refresh
    due_at: datetime | None = now + min(RETRY_CAP, RETRY_BASE * 2 ** (failures - 1))
    if failures >= MAX_FAILURES or outcome.skipped:
        step = steps_behind(outcome.read.published_at, offsets, now)
        due_at, failures, refresh = next_read(outcome.read.published_at, offsets, step), 0, False
    return {
        "b_id": outcome.read.series_id,
        "b_due_at": due_at,
        "b_step": step,
        "b_refresh": refresh,
        "b_failures": failures,
        "b_error": (outcome.error or outcome.skipped)[:2000],
    }
