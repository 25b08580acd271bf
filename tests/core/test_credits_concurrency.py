"""DESIGN 6: a debit is one conditional UPDATE; no overdraft under any concurrency."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import create_async_engine

from core.credits import service as credits
from core.db.models import credit_ledger, organizations
from core.db.types import utcnow
from core.errors import InsufficientCredits


async def test_parallel_debits_never_overdraw(database_url, backend, orgs) -> None:
    """100 debits of 1 against a balance of 60, each in its own transaction, all in flight at
    once: exactly 60 succeed. PostgreSQL here allows 100 clients in all (shared with the running
    stack), so the 100 tasks share 32 connections: 32 transactions contend for the row at any
    moment."""
    org = await orgs(credits=60)
    if backend == "postgresql":
        engine = create_async_engine(database_url, pool_size=32, max_overflow=0, pool_timeout=60)
    else:
        from core.db.engine import create_engine
        from core.settings import CoreSettings

        engine = create_engine(CoreSettings(database_url=database_url))
    start = asyncio.Event()

    async def one_debit(i: int) -> bool:
        await start.wait()
        async with engine.connect() as conn:
            if backend == "sqlite":
                conn = await conn.execution_options(herald_sqlite_immediate=True)
            try:
                async with conn.begin():
                    await credits.debit(
                        conn, org.org_id, 1, reason="test", reference=f"r{i}", now=utcnow(), low_threshold=0
                    )
                return True
            except InsufficientCredits:
                return False

    try:
        tasks = [asyncio.create_task(one_debit(i)) for i in range(100)]
        await asyncio.sleep(0.1)
        start.set()
        outcomes = await asyncio.gather(*tasks)
        async with engine.connect() as conn:
            balance = await conn.scalar(select(organizations.c.credit_balance).where(organizations.c.id == org.org_id))
            debits = await conn.scalar(
                select(func.count()).where(credit_ledger.c.org_id == org.org_id, credit_ledger.c.delta < 0)
            )
            ledger_sum = await conn.scalar(
                select(func.sum(credit_ledger.c.delta)).where(credit_ledger.c.org_id == org.org_id)
            )
    finally:
        await engine.dispose()
    assert outcomes.count(True) == 60
    assert outcomes.count(False) == 40
    assert balance == 0
    assert debits == 60
    assert ledger_sum == 0  # the grant of 60 and sixty debits of 1


async def test_failed_debit_changes_nothing(orgs) -> None:
    org = await orgs(credits=2)
    async with orgs.engine.connect() as conn:
        with pytest.raises(InsufficientCredits):
            async with conn.begin():
                await credits.debit(conn, org.org_id, 3, reason="test", reference="", now=utcnow(), low_threshold=0)
        balance = await conn.scalar(select(organizations.c.credit_balance).where(organizations.c.id == org.org_id))
        rows = await conn.scalar(select(func.count()).where(credit_ledger.c.org_id == org.org_id))
    assert balance == 2
    assert rows == 1  # only the initial grant


async def test_debit_rolls_back_with_the_work_it_pays_for(orgs) -> None:
    """The debit joins the caller's transaction: if the work fails, the credits come back."""
    org = await orgs(credits=5)

    class WorkFailed(Exception):
        pass

    with pytest.raises(WorkFailed):
        async with orgs.engine.begin() as conn:
            await credits.debit(conn, org.org_id, 2, reason="test", reference="", now=utcnow(), low_threshold=0)
            raise WorkFailed
    async with orgs.engine.connect() as conn:
        balance = await conn.scalar(select(organizations.c.credit_balance).where(organizations.c.id == org.org_id))
    assert balance == 5
