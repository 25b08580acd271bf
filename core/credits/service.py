"""Credits: each movement is one conditional UPDATE of the balance plus one ledger row, in the
caller's transaction (docs/decisions.md, "Credits move atomically"). The balance can never go
negative, under any concurrency."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.events import CreditsEvent
from core.db.models import credit_ledger, organizations
from core.errors import InsufficientCredits, ValidationError
from core.ids import new_id
from core.pagination import Page, next_token
from core.webhooks import fanout

# The most recent ledger entries GetCreditAccount includes (`ledger_limit` at /v1).
MAX_RECENT_ENTRIES = 100


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    id: str
    delta: int
    balance_after: int
    reason: str
    reference: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class CreditAccount:
    org_slug: str
    balance: int
    plan: str
    low_credit_threshold: int
    recent_entries: list[LedgerEntry]


async def debit(
    conn: AsyncConnection,
    org_id: str,
    cost: int,
    *,
    reason: str,
    reference: str,
    now: datetime,
    low_threshold: int,
) -> int:
    """Spends `cost` credits or raises InsufficientCredits without changing anything.
    Returns the balance after the debit. A debit that takes the balance below `low_threshold`
    (HERALD_LOW_CREDIT_THRESHOLD), or to 0, writes `credits.low` / `credits.depleted` with it."""
    if cost <= 0:
        raise ValueError("a debit costs at least one credit")
    balance = await conn.scalar(
        update(organizations)
        .where(organizations.c.id == org_id, organizations.c.credit_balance >= cost)
        .values(credit_balance=organizations.c.credit_balance - cost)
        .returning(organizations.c.credit_balance)
    )
    if balance is None:
        raise InsufficientCredits(f"this needs {cost} credit(s); top up to continue")
    await _record(conn, org_id, -cost, balance, reason, reference, now)
    crossed = [
        kind
        for kind, happened in (
            ("credits.low", balance < low_threshold <= balance + cost),
            ("credits.depleted", balance == 0),
        )
        if happened
    ]
    for kind in crossed:
        data = CreditsEvent.of(balance, low_threshold, reason=reason, reference=reference)
        await fanout.emit(conn, org_id, kind, [data], now)
    return balance


async def grant(conn: AsyncConnection, org_id: str, amount: int, *, reason: str, reference: str, now: datetime) -> int:
    """Adds `amount` credits; returns the balance after."""
    if amount <= 0:
        raise ValidationError("a grant adds at least one credit")
    balance = await conn.scalar(
        update(organizations)
        .where(organizations.c.id == org_id)
        .values(credit_balance=organizations.c.credit_balance + amount)
        .returning(organizations.c.credit_balance)
    )
    if balance is None:
        raise LookupError(org_id)
    await _record(conn, org_id, amount, balance, reason, reference, now)
    return balance


async def _record(
    conn: AsyncConnection, org_id: str, delta: int, balance: int, reason: str, reference: str, now: datetime
) -> None:
    await conn.execute(
        insert(credit_ledger).values(
            id=new_id("led"),
            org_id=org_id,
            delta=delta,
            balance_after=balance,
            reason=reason,
            reference=reference,
            created_at=now,
        )
    )


def _entry(row) -> LedgerEntry:  # a Row
    return LedgerEntry(row.id, row.delta, row.balance_after, row.reason, row.reference, row.created_at)


async def list_entries(conn: AsyncConnection, org_id: str, page: Page) -> tuple[list[LedgerEntry], str]:
    stmt = (
        select(credit_ledger)
        .where(credit_ledger.c.org_id == org_id)
        .order_by(credit_ledger.c.id.desc())
        .limit(page.size + 1)
    )
    if page.after:
        stmt = stmt.where(credit_ledger.c.id < page.after)
    rows = (await conn.execute(stmt)).all()
    return [_entry(r) for r in rows[: page.size]], next_token([r.id for r in rows], page.size)


async def get_account(conn: AsyncConnection, org_id: str, recent: int, threshold: int) -> CreditAccount:
    if not 0 <= recent <= MAX_RECENT_ENTRIES:
        raise ValidationError(f"recent_entries must be between 0 and {MAX_RECENT_ENTRIES}")
    org = (
        await conn.execute(
            select(organizations.c.slug, organizations.c.credit_balance, organizations.c.plan).where(
                organizations.c.id == org_id
            )
        )
    ).one()
    entries = (await list_entries(conn, org_id, Page(recent, None)))[0] if recent else []
    return CreditAccount(org.slug, org.credit_balance, org.plan, threshold, entries)
