"""Driver-direct statements (core/db/prepared.py), on both databases: they read and write what
SQLAlchemy's own execute would (types converted both ways, an insert's constant defaults), in
the caller's transaction, raise SQLAlchemy's errors, and the engine's statement listeners still
see them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Column, MetaData, String, Table, bindparam, event, func, insert, select
from sqlalchemy.exc import IntegrityError

from core import admin
from core.db.models import organizations, posts, profiles, webhook_events
from core.db.prepared import Prepared, commit_now, pipelined
from core.ids import new_id
from tests.core.module_database import engine, url

__all__ = ["engine", "url"]  # fixtures

_EVENTS = Prepared(insert(webhook_events), columns=["id", "org_id", "type", "body", "created_at", "request_id"])
_EVENT = Prepared(
    select(
        webhook_events.c.id,
        webhook_events.c.type,
        webhook_events.c.created_at,
        webhook_events.c.fanned_out_at,
        webhook_events.c.request_id,
    ).where(webhook_events.c.id == bindparam("id"))
)


async def _org(engine, email: str) -> str:
    boot = await admin.bootstrap(
        engine, email=email, password="a long password", org=email.split("@")[0], credits_=5, plan="active"
    )
    return boot["org_id"]


def _event(org: str, when: datetime, **extra: object) -> dict:
    return {"id": new_id("evt"), "org_id": org, "type": "post.created", "body": "{}", "created_at": when} | {
        "request_id": None,
        **extra,
    }


async def test_rows_written_and_read_as_sqlalchemy_does(engine) -> None:
    org = await _org(engine, "prepared-rows@example.com")
    when = datetime(2026, 11, 26, 12, 30, 15, 123456, tzinfo=UTC)
    rows = [_event(org, when), _event(org, when + timedelta(seconds=1), request_id="req_1")]
    async with engine.begin() as conn:
        await _EVENTS.many(conn, rows)
        direct = await _EVENT.first(conn, {"id": rows[1]["id"]})
        missing = await _EVENT.first(conn, {"id": "evt_none"})
    async with engine.connect() as conn:
        stored = (await conn.execute(select(webhook_events).where(webhook_events.c.id == rows[1]["id"]))).one()
    # SQLAlchemy reads back what the driver wrote: the aware timestamp, the default left NULL.
    assert stored.created_at == when + timedelta(seconds=1) and stored.fanned_out_at is None
    assert stored.request_id == "req_1" and stored.org_id == org
    # And the direct read converts as SQLAlchemy does (an aware UTC datetime on both backends).
    assert direct == (rows[1]["id"], "post.created", when + timedelta(seconds=1), None, "req_1")
    assert direct.created_at.tzinfo is not None and direct.created_at.utcoffset() == timedelta(0)
    assert missing is None


async def test_an_inserts_constant_defaults_are_given(engine) -> None:
    org = await _org(engine, "prepared-defaults@example.com")
    profile_id = new_id("prf")
    async with engine.begin() as conn:
        await conn.execute(
            insert(profiles).values(
                id=profile_id,
                org_id=org,
                slug="p-default",
                connector="x",
                display_name="P",
                created_at=datetime.now(UTC),
            )
        )
    now = datetime.now(UTC)
    statement = Prepared(
        insert(posts),
        columns=["id", "org_id", "group_id", "profile_id", "profile_slug", "connector", "content", "title", "post_type"]
        + ["status", "schedule_at", "due_at", "created_at", "updated_at", "delivery_key"],
    )
    post_id = new_id("pst")
    async with engine.begin() as conn:
        await statement.many(
            conn,
            [
                {
                    "id": post_id,
                    "org_id": org,
                    "group_id": new_id("grp"),
                    "profile_id": profile_id,
                    "profile_slug": "p-default",
                    "connector": "x",
                    "content": "hello",
                    "title": None,
                    "post_type": "text",
                    "status": "queued",
                    "schedule_at": now,
                    "due_at": now,
                    "created_at": now,
                    "updated_at": now,
                    "delivery_key": "k",
                }
            ],
        )
    async with engine.connect() as conn:
        row = (await conn.execute(select(posts).where(posts.c.id == post_id))).one()
    # The model's Python-side defaults (attempts, charged, failure_reason, platform fields, units).
    assert (row.attempts, row.charged, row.failure_reason, row.platform_url, row.units) == (0, 0, "", "", 1)


async def test_a_driver_error_is_sqlalchemys_and_the_transaction_rolls_back(engine) -> None:
    org = await _org(engine, "prepared-errors@example.com")
    row = _event(org, datetime.now(UTC))
    async with engine.begin() as conn:
        await _EVENTS.many(conn, [row])
    kept = _event(org, datetime.now(UTC))
    with pytest.raises(IntegrityError):
        async with engine.begin() as conn:
            await _EVENTS.many(conn, [kept])
            await _EVENTS.many(conn, [row])  # the same id again
    async with engine.connect() as conn:
        assert await conn.scalar(select(func.count()).where(webhook_events.c.id == kept["id"])) == 0


async def test_the_engines_statement_listeners_see_each_statement(engine) -> None:
    org = await _org(engine, "prepared-listeners@example.com")
    seen: list[tuple[str, bool]] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        seen.append((" ".join(statement.lower().split()[:3]), executemany))

    event.listen(engine.sync_engine, "before_cursor_execute", record)
    try:
        async with engine.begin() as conn:
            await _EVENTS.many(conn, [_event(org, datetime.now(UTC))])
            await _EVENT.all(conn, {"id": "evt_none"})
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", record)
    statements = [s for s in seen if not s[0].startswith("begin")]
    assert statements == [
        ("insert into webhook_events", True),
        ("select webhook_events.id, webhook_events.type,", False),
    ]


def test_statements_a_driver_cannot_be_given_are_refused_when_compiled(engine) -> None:
    # Two columns named alike would make the row's attributes ambiguous.
    same_names = Prepared(select(organizations.c.id, posts.c.id).where(posts.c.org_id == organizations.c.id))
    with pytest.raises(ValueError, match="distinct column names"):
        same_names._for(engine.dialect)
    # A column whose default is computed needs SQLAlchemy's execution context: name it.
    table = Table("computed", MetaData(), Column("id", String, primary_key=True), Column("at", String, default=str))
    with pytest.raises(ValueError, match="default is not a constant"):
        Prepared(insert(table), columns=["id"])._for(engine.dialect)
    Prepared(insert(table), columns=["id", "at"])._for(engine.dialect)  # named: fine


async def test_pipelined_writes_land_together_and_fail_as_sqlalchemys(engine) -> None:
    org = await _org(engine, "prepared-pipeline@example.com")
    first, second, third = (_event(org, datetime.now(UTC)) for _ in range(3))
    async with engine.begin() as conn:
        async with pipelined(conn):
            await _EVENTS.many(conn, [first])
            await _EVENTS.many(conn, [second])
        # After the block, in the same transaction, both are there.
        assert [r.id for r in await _EVENT.all(conn, {"id": second["id"]})] == [second["id"]]
    with pytest.raises(IntegrityError):
        async with engine.begin() as conn, pipelined(conn):
            await _EVENTS.many(conn, [third])
            await _EVENTS.many(conn, [first])  # its id again: the whole transaction fails
    async with engine.connect() as conn:
        ids = [third["id"], first["id"], second["id"]]
        assert await conn.scalar(select(func.count()).where(webhook_events.c.id.in_(ids))) == 2
        # The connection left pipeline mode: SQLAlchemy's own statements work on it as before.
        assert (await conn.execute(select(webhook_events.c.id).where(webhook_events.c.id == first["id"]))).scalar()


async def test_commit_now_commits_with_the_pipelined_writes_and_leaves_the_unit_of_work_nothing(engine) -> None:
    org = await _org(engine, "prepared-commit@example.com")
    kept, failed = _event(org, datetime.now(UTC)), _event(org, datetime.now(UTC))
    if engine.dialect.name != "postgresql":
        async with engine.begin() as conn:
            with pytest.raises(ValueError, match="PostgreSQL"):
                await commit_now(conn)
        return
    async with engine.begin() as conn:
        async with pipelined(conn):
            await _EVENTS.many(conn, [kept])
            await commit_now(conn)
        # Committed already: another connection sees the row before this unit of work ends.
        async with engine.connect() as other:
            assert await other.scalar(select(webhook_events.c.id).where(webhook_events.c.id == kept["id"]))
    # The unit of work's own commit had nothing to do; a commit that fails is SQLAlchemy's error,
    # and the write before it is not kept.
    with pytest.raises(IntegrityError):
        async with engine.begin() as conn, pipelined(conn):
            await _EVENTS.many(conn, [failed])
            await _EVENTS.many(conn, [kept])  # its id again
            await commit_now(conn)
    async with engine.connect() as conn:
        assert await conn.scalar(select(func.count()).where(webhook_events.c.id.in_([kept["id"], failed["id"]]))) == 1
