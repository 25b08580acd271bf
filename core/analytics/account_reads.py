"""The account reads' queue (docs/analytics.md, "Account metrics"): each profile's followers, due
once a day, claimed in batches under a lease and recorded fenced on it, as the post reads are
(core/analytics/reads.py; docs/decisions.md, "Background work shares one lease primitive").

A profile joins the queue through `enrol`, one statement the collector runs every round: every
profile without a series row gets one, due at once. So it does not matter which way a profile was
made (the dashboard, an OAuth connection, `herald admin add-profile`); no path has to remember.

Claiming is one statement: the oldest due series from ix_account_metric_series_due_at's low end,
locked with FOR UPDATE SKIP LOCKED on PostgreSQL (on SQLite the transaction holds the write
lock), each given the claim's token as `lease_owner` and the lease's end as `due_at`. Recording
is one transaction: the rows this claim still holds get their snapshots and their next read; a
row another worker took over (the lease ran out) gets nothing from this claim, and a worker
killed before its commit wrote nothing: its profiles come due again when the lease ends.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, exists, insert, literal, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncEngine

from core.connectors.base import Account
from core.connectors.readings import MetricsReading
from core.db.engine import is_sqlite, transaction
from core.db.models import account_metric_series, account_metric_snapshots, profiles
from core.db.types import UTCDateTime
from core.platform_accounts.token_refresh import StoredTokens

series = account_metric_series.c
# As the post reads: a read failing this many times in a row waits for the next day's.
MAX_FAILURES = 5
RETRY_BASE = timedelta(seconds=60)
RETRY_CAP = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class DueAccount:
    """A profile whose followers are due, as claimed."""

    profile_id: str
    connector: str
    created_at: datetime
    failures: int
    account: Account
    # The profile's sealed tokens (what a live read sends with).
    tokens: StoredTokens | None = None


@dataclass(frozen=True, slots=True)
class AccountBatch:
    token: str
    due: list[DueAccount]


@dataclass(frozen=True, slots=True)
class AccountOutcome:
    """One claimed read: its reading, or the error that stopped it, or neither and `wait_until`
    (the platform asked us to wait: a 429, its Retry-After or rate headers). With a reading,
    `wait_until` is the platform's word on its limit too: the next read is not due before it."""

    due: DueAccount
    reading: MetricsReading | None = None
    error: str = ""
    wait_until: datetime | None = None

    @property
    def waits(self) -> bool:
        return self.reading is None and not self.error and self.wait_until is not None


async def enrol(engine: AsyncEngine, now: datetime) -> int:
    """Every profile without a series row gets one, its first read due now; how many."""
    missing = select(profiles.c.id, profiles.c.org_id, literal(now, UTCDateTime), literal(0), literal("")).where(
        ~exists().where(series.profile_id == profiles.c.id)
    )
    dialect_insert = sqlite_insert if is_sqlite(engine) else pg_insert
    statement = (
        dialect_insert(account_metric_series)
        .from_select(["profile_id", "org_id", "due_at", "failures", "last_error"], missing)
        .on_conflict_do_nothing(index_elements=["profile_id"])
    )
    async with transaction(engine, writes=True) as conn:
        return (await conn.execute(statement)).rowcount or 0


async def claim(
    engine: AsyncEngine, worker_id: str, now: datetime, *, limit: int, lease_seconds: float
) -> AccountBatch:
    """Up to `limit` due account reads, oldest first, leased to this claim until now + lease."""
    token = f"{worker_id}:{secrets.token_hex(4)}"
    due = (
        select(series.profile_id)
        .where(series.due_at.is_not(None), series.due_at <= now)
        .order_by(series.due_at)
        .limit(limit)
    )
    if not is_sqlite(engine):
        due = due.with_for_update(skip_locked=True)
    async with transaction(engine, writes=True) as conn:
        rows = (
            await conn.execute(
                update(account_metric_series)
                .where(series.profile_id.in_(due))
                .values(lease_owner=token, due_at=now + timedelta(seconds=lease_seconds))
                .returning(series.profile_id, series.failures)
            )
        ).all()
        if not rows:
            return AccountBatch(token, [])
        failures = {row.profile_id: row.failures for row in rows}
        found = await conn.execute(
            select(
                profiles.c.id,
                profiles.c.slug,
                profiles.c.connector,
                profiles.c.created_at,
                profiles.c.handle,
                profiles.c.platform_account_id,
                profiles.c.instance_url,
                profiles.c.access_token,
                profiles.c.refresh_token,
                profiles.c.token_expires_at,
                profiles.c.token_version,
            ).where(profiles.c.id.in_(list(failures)))
        )
        accounts = [
            DueAccount(
                p.id,
                p.connector,
                p.created_at,
                failures[p.id],
                Account(p.slug, p.handle, p.platform_account_id, p.instance_url),
                StoredTokens(
                    p.id,
                    p.connector,
                    p.instance_url or "",
                    p.access_token,
                    p.refresh_token,
                    p.token_expires_at,
                    p.token_version or 0,
                ),
            )
            for p in found
        ]
    return AccountBatch(token, accounts)


_READ = (
    update(account_metric_series)
    .where(series.profile_id == bindparam("b_id"))
    .values(due_at=bindparam("b_due_at"), lease_owner=None, failures=0, last_error="", read_at=bindparam("b_read_at"))
)
# The platform asked us to wait: due again then, failures and the last error as they were.
_WAIT = (
    update(account_metric_series)
    .where(series.profile_id == bindparam("b_id"))
    .values(due_at=bindparam("b_due_at"), lease_owner=None)
)
_FAILED = (
    update(account_metric_series)
    .where(series.profile_id == bindparam("b_id"))
    .values(
        due_at=bindparam("b_due_at"),
        lease_owner=None,
        failures=bindparam("b_failures"),
        last_error=bindparam("b_error"),
    )
)


async def record(
    engine: AsyncEngine,
    batch: AccountBatch,
    outcomes: Sequence[AccountOutcome],
    now: datetime,
    interval: timedelta,
    *,
    sandbox: bool,
) -> int:
    """Records a claim's outcomes, fenced on its token; how many snapshots it wrote. A read made
    is due again `interval` later; a failed one after a growing wait (at most an hour), and after
    MAX_FAILURES in a row `interval` later, as if made. A read the platform asked to wait for is
    due when it said, its failures and last error as they were."""
    ids = [o.due.profile_id for o in outcomes]
    held_query = select(series.profile_id).where(series.profile_id.in_(ids), series.lease_owner == batch.token)
    if not is_sqlite(engine):
        held_query = held_query.with_for_update()
    async with transaction(engine, writes=True) as conn:
        held = set(await conn.scalars(held_query))
        mine = [o for o in outcomes if o.due.profile_id in held]
        read = [o for o in mine if o.reading is not None and not o.error]
        if read:
            await conn.execute(insert(account_metric_snapshots), [_snapshot(o, now, sandbox) for o in read])
            await conn.execute(_READ, [_after_read(o, now, interval) for o in read])
        failed = [o for o in mine if (o.reading is None or o.error) and not o.waits]
        if failed:
            await conn.execute(_FAILED, [_after_failure(o, now, interval) for o in failed])
        waiting = [o for o in mine if o.waits]
        if waiting:
            await conn.execute(_WAIT, [{"b_id": o.due.profile_id, "b_due_at": o.wait_until} for o in waiting])
    return len(read)


def _snapshot(outcome: AccountOutcome, now: datetime, sandbox: bool) -> dict[str, Any]:
    assert outcome.reading is not None
    return {
        "profile_id": outcome.due.profile_id,
        "collected_at": now,
        "followers": outcome.reading.values["followers"],
        "sandbox": sandbox,
    }


def _after_read(outcome: AccountOutcome, now: datetime, interval: timedelta) -> dict[str, Any]:
    due_at = now + interval
    if outcome.wait_until is not None and outcome.wait_until > due_at:  # the platform's window is longer
        due_at = outcome.wait_until
    return {"b_id": outcome.due.profile_id, "b_due_at": due_at, "b_read_at": now}


def _after_failure(outcome: AccountOutcome, now: datetime, interval: timedelta) -> dict[str, Any]:
    failures = outcome.due.failures + 1
    due_at = now + min(RETRY_CAP, RETRY_BASE * 2 ** (failures - 1))
    if failures >= MAX_FAILURES:
        due_at, failures = now + interval, 0
    return {
        "b_id": outcome.due.profile_id,
        "b_due_at": due_at,
        "b_failures": failures,
        "b_error": (outcome.error or "no reading")[:2000],
    }
