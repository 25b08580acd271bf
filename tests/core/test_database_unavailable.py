"""Which database errors the core answers as SERVICE_UNAVAILABLE (the call may be repeated) and
which stay INTERNAL (a fault to fix): real errors from SQLite and PostgreSQL's drivers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from core.rpc.interceptors import _database_unavailable, _first_line
from harness.stack import free_port


def _raised(engine_url: str, statement: str, **connect_args: object) -> OperationalError:
    engine = create_engine(engine_url, connect_args=connect_args)
    try:
        with pytest.raises(OperationalError) as raised, engine.begin() as conn:
            conn.execute(text(statement))
        return raised.value
    finally:
        engine.dispose()


def test_a_statement_sqlite_cannot_run_is_a_fault_not_an_outage(tmp_path: Path) -> None:
    error = _raised(f"sqlite:///{tmp_path / 'a.db'}", "SELECT * FROM no_such_table")
    assert not _database_unavailable(error)


def test_sqlite_locked_past_its_timeout_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "b.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x INTEGER)")
    holder.execute("BEGIN IMMEDIATE")
    try:
        error = _raised(f"sqlite:///{path}", "INSERT INTO t VALUES (1)", timeout=0.05)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert _database_unavailable(error)
    assert _first_line(error) == "database is locked"


def test_postgresql_refusing_connections_is_unavailable() -> None:
    # Nothing listens on this port: the driver's connection error, as when PostgreSQL is down.
    error = _raised(f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/herald", "SELECT 1", connect_timeout=2)
    assert _database_unavailable(error)
    assert "connection" in _first_line(error) and "\n" not in _first_line(error)
