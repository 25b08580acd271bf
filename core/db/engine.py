"""The async engine, with the per-backend settings both SQLite and PostgreSQL need."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from core.settings import CoreSettings

# Execution option a unit of work sets when it will write: SQLite then takes the write lock up
# front (BEGIN IMMEDIATE) instead of failing to upgrade a read transaction under contention.
SQLITE_IMMEDIATE = "herald_sqlite_immediate"


# Bound parameters are emails, password hashes, sealed tokens: SQLAlchemy writes them into the
# message of every database error (which the error interceptor logs) and into its statement log
# unless the engine hides them. Every engine the core creates passes this.
HIDE_PARAMETERS = {"hide_parameters": True}


def create_engine(settings: CoreSettings, *, pool_size: int | None = None) -> AsyncEngine:
    url = make_url(settings.effective_database_url)
    if url.get_backend_name() == "sqlite":
        if url.database:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30}, **HIDE_PARAMETERS)
        _configure_sqlite(engine)
        return engine
    size = pool_size or settings.database_pool_size
    # Kept: `size` connections (20 by default: a core under load holds one per call in flight,
    # and an overflow connection is closed when given back, so a pool smaller than the calls in
    # flight opens and closes PostgreSQL backends all the time: ~0.5-1 ms of CPU per request
    # at 32 in flight, docs/performance.md). LIFO: at low load the same few connections, warm,
    # serve every call, and the others may time out on the server.
    return create_async_engine(
        url, pool_size=size, max_overflow=size, pool_pre_ping=False, pool_use_lifo=True, **HIDE_PARAMETERS
    )


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take over transaction control from the driver so BEGIN is ours (see _on_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()
        dbapi_connection.create_function("herald_local_date", 3, local_date, deterministic=True)

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        immediate = conn.get_execution_options().get(SQLITE_IMMEDIATE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def local_date(stored: str | None, time_zone: str, unit: str) -> str | None:
    """SQLite's herald_local_date(column, zone, 'day'|'week'): a UTC time as stored (naive text,
    core/db/types.py) to its date in `zone`, or its week's Monday: what PostgreSQL's timezone()
    gives the analytics summaries (core/analytics/summaries.py)."""
    if stored is None:
        return None
    local = datetime.fromisoformat(stored).replace(tzinfo=UTC).astimezone(_zone(time_zone)).date()
    return (local - timedelta(days=local.weekday()) if unit == "week" else local).isoformat()


@cache
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def is_sqlite(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "sqlite"


@asynccontextmanager
async def transaction(engine: AsyncEngine, *, writes: bool = False) -> AsyncIterator[AsyncConnection]:
    """One transaction outside a unit of work (CLI, housekeeping, non-transactional methods).
    `writes` on SQLite takes the write lock up front: a deferred transaction that reads and then
    writes fails with "database is locked" when another writer committed in between, whatever
    the busy timeout."""
    async with engine.connect() as conn:
        if writes and is_sqlite(engine):
            conn = await conn.execution_options(**{SQLITE_IMMEDIATE: True})
        async with conn.begin():
            yield conn
