"""Statements of the hot paths, compiled once per dialect and run on the driver's connection.

SQLAlchemy's async `execute` costs about 200 µs of CPU per statement on a small VM (a greenlet
hop per driver call, the execution context, the result proxy), against about 105 µs for the
same statement sent through psycopg itself (docs/performance.md, "Driver-direct statements").
`POST /v1/posts` runs five statements, so the statements every request runs (the API key
lookup, the profiles of a post, the brand voices, the inserts of posts and events) are
`Prepared`: SQLAlchemy still writes their SQL (for each dialect, once), types convert values
both ways exactly as SQLAlchemy would (each column type's own bind and result processors), and
the statement runs on the driver connection of the caller's `AsyncConnection`, inside its
transaction. Everything else keeps using SQLAlchemy; its unit of work still begins, commits and
rolls back the transaction.

A driver error is raised as SQLAlchemy's (`sqlalchemy.exc.DBAPIError.instance`): callers catch
`IntegrityError` the same way whichever path ran the statement, and a lost connection is
invalidated by the transaction's rollback like any other.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import Executable
from sqlalchemy.sql.compiler import Compiled

Processor = Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    defaults: dict[str, Any]  # an insert's columns its rows do not give
    # Positional dialects (SQLite's qmark): the parameter names in the order of the SQL; None
    # for named ones (psycopg's pyformat), which take the dict.
    order: tuple[str, ...] | None
    binds: tuple[tuple[str, Processor], ...]  # only the parameters whose type converts values
    row: Any  # a namedtuple class of the result's columns (selects)
    results: tuple[tuple[int, Processor], ...]  # only the columns whose type converts values


class Prepared:
    """One statement: a select with bound parameters, or `insert(table)` with the `columns` its
    rows give (the table's other columns take their scalar defaults, as SQLAlchemy gives them)."""

    __slots__ = ("_statement", "_columns", "_compiled")

    def __init__(self, statement: Executable, *, columns: Sequence[str] | None = None) -> None:
        self._statement = statement
        self._columns = list(columns) if columns is not None else None
        self._compiled: dict[str, _Compiled] = {}

    def _for(self, dialect: Dialect) -> _Compiled:
        found = self._compiled.get(dialect.name)
        if found is None:
            found = self._compiled[dialect.name] = _compile(self._statement, dialect, self._columns)
        return found

    async def all(self, conn: AsyncConnection, params: Mapping[str, Any]) -> list[Any]:
        """The rows (named tuples, values converted by their column types)."""
        compiled = self._for(conn.dialect)
        args = _arguments(compiled, params)
        try:
            raw = await _fetch(conn, compiled.sql, args)
        except conn.dialect.loaded_dbapi.Error as error:
            raise _wrapped(compiled.sql, args, error, conn.dialect) from error
        make, results = compiled.row._make, compiled.results
        if not results:
            return [make(r) for r in raw]
        rows = []
        for values in raw:
            values = list(values)
            for index, process in results:
                values[index] = process(values[index])
            rows.append(make(values))
        return rows

    async def first(self, conn: AsyncConnection, params: Mapping[str, Any]) -> Any | None:
        rows = await self.all(conn, params)
        return rows[0] if rows else None

    async def run(self, conn: AsyncConnection, params: Mapping[str, Any]) -> None:
        """The statement once, its result (if any) unread: a write."""
        compiled = self._for(conn.dialect)
        args = _arguments(compiled, params)
        _announce(conn, compiled.sql, args, False)
        try:
            await (await _driver(conn).execute(compiled.sql, args)).close()
        except conn.dialect.loaded_dbapi.Error as error:
            raise _wrapped(compiled.sql, args, error, conn.dialect) from error

    async def many(self, conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> None:
        """The statement once per row (psycopg pipelines them: one round trip)."""
        if not rows:
            return
        compiled = self._for(conn.dialect)
        args = [_arguments(compiled, row) for row in rows]
        try:
            await _execute_many(conn, compiled.sql, args)
        except conn.dialect.loaded_dbapi.Error as error:
            raise _wrapped(compiled.sql, args, error, conn.dialect) from error


@asynccontextmanager
async def pipelined(conn: AsyncConnection, *, enabled: bool = True) -> AsyncIterator[None]:
    """On PostgreSQL, the statements run inside go to the server together when the block ends
    (psycopg's pipeline mode): one round trip instead of one each. For writes made while the
    transaction holds row locks that others wait on: the locks are then held one round trip
    less per statement. Elsewhere (SQLite, or not `enabled`) the block runs as written."""
    if not enabled or conn.dialect.name != "postgresql":
        yield
        return
    try:
        async with _driver(conn).pipeline():
            yield
    except conn.dialect.loaded_dbapi.Error as error:
        raise _wrapped("(pipeline)", None, error, conn.dialect) from error


async def commit_now(conn: AsyncConnection) -> None:
    """Commits the caller's transaction now, on the driver (PostgreSQL; inside `pipelined`, in
    the round trip of the statements before it). For a transaction holding locks that others
    wait for: they are released without waiting for the caller to return through its layers.
    The unit of work's own commit then has nothing left to do (psycopg's commit of an idle
    connection sends nothing), and nothing may be written on `conn` after this: it would not
    be part of the committed transaction."""
    if conn.dialect.name != "postgresql":
        raise ValueError("commit_now is for PostgreSQL: SQLite's unit of work commits")
    try:
        await _driver(conn).commit()
    except conn.dialect.loaded_dbapi.Error as error:
        raise _wrapped("COMMIT", None, error, conn.dialect) from error


def _compile(statement: Executable, dialect: Dialect, columns: list[str] | None) -> _Compiled:
    compiled: Compiled = statement.compile(dialect=dialect, column_keys=columns)
    defaults = {}
    for column in getattr(compiled, "insert_prefetch", ()):
        default = column.default
        if default is None or not default.is_scalar:
            raise ValueError(f"a prepared insert must be given {column.key!r}: its default is not a constant")
        defaults[column.key] = default.arg
    binds = []
    for name, bind in compiled.binds.items():
        if bind.expanding:
            raise ValueError(f"a prepared statement takes no expanding parameter ({name!r}): one per value")
        if not bind.required and name not in defaults:  # a value written in the statement (literal(1))
            defaults[name] = bind.effective_value
        process = bind.type.dialect_impl(dialect).bind_processor(dialect)
        if process is not None:
            binds.append((name, process))
    results = []
    keys: list[str] = []
    if getattr(statement, "is_select", False):
        for index, column in enumerate(statement.selected_columns):  # type: ignore[attr-defined]
            keys.append(column.key)
            process = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if process is not None:
                results.append((index, process))
    if len(set(keys)) != len(keys):
        raise ValueError(f"a prepared select needs distinct column names, not {keys}")  # label them
    positional = compiled.positiontup if dialect.positional else None
    return _Compiled(
        sql=compiled.string,
        defaults=defaults,
        order=tuple(positional) if positional is not None else None,
        binds=tuple(binds),
        row=namedtuple("Row", keys) if keys else None,  # one class per statement
        results=tuple(results),
    )


def _arguments(compiled: _Compiled, params: Mapping[str, Any]) -> Any:
    if compiled.defaults:
        params = {**compiled.defaults, **params}
    if compiled.binds:
        params = dict(params)
        for name, process in compiled.binds:
            params[name] = process(params[name])
    if compiled.order is None:
        return params
    return tuple(params[name] for name in compiled.order)


def _driver(conn: AsyncConnection) -> Any:
    """The driver's own async connection (psycopg's AsyncConnection, aiosqlite's Connection)
    under the caller's, already connected by its unit of work."""
    return conn.sync_connection.connection.driver_connection  # type: ignore[union-attr]


def _announce(conn: AsyncConnection, sql: str, args: Any, many: bool) -> None:
    """The engine's `before_cursor_execute` listeners (SQL logging, tracing, the benches' capture
    of a request's SQL) still see the statement, as SQLAlchemy would show it to them."""
    sync = conn.sync_connection
    listeners = sync.dispatch.before_cursor_execute  # type: ignore[union-attr]
    if listeners:
        listeners(sync, None, sql, args, None, many)


async def _fetch(conn: AsyncConnection, sql: str, args: Any) -> list[Any]:
    _announce(conn, sql, args, False)
    # Both drivers' connections execute and hand back a cursor; both cursors fetch with await.
    cursor = await _driver(conn).execute(sql, args)
    try:
        return await cursor.fetchall()
    finally:
        await cursor.close()


async def _execute_many(conn: AsyncConnection, sql: str, args: list[Any]) -> None:
    _announce(conn, sql, args, True)
    driver = _driver(conn)
    if conn.dialect.name == "sqlite":
        await (await driver.executemany(sql, args)).close()  # aiosqlite: the connection's own
        return
    async with driver.cursor() as cursor:  # psycopg: a cursor's, pipelined
        await cursor.executemany(sql, args)


def _wrapped(sql: str, args: Any, error: Exception, dialect: Dialect) -> DBAPIError:
    # Without its parameters in the message, as the engines' own errors (core/db/engine.py): they
    # are API key hashes, tokens' hashes, post contents.
    return DBAPIError.instance(sql, args, error, dialect.loaded_dbapi.Error, hide_parameters=True, dialect=dialect)
