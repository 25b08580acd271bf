"""A statement that fails unexpectedly is logged without its bound parameters (core/db/engine.py,
core/db/prepared.py): SQLAlchemy writes them into the error's message, and here they would be an
email and its password hash, or a post's content. Triggers make the inserts fail with an error
no code expects (not an integrity error), through the real core; its logs are then searched."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import grpc
import httpx
import pytest
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc

from core import admin
from harness.stack import bootstrap_org, database, running_stack
from tests.core.cores import sql

# An error at run time that is no constraint: SQLite's integer overflow, PostgreSQL's RAISE.
SQLITE_FAIL = (
    "CREATE TRIGGER herald_test_fail_{table} BEFORE INSERT ON {table} BEGIN SELECT abs(-9223372036854775807 - 1); END"
)
PG_FUNCTION = (
    "CREATE FUNCTION herald_test_fail() RETURNS trigger LANGUAGE plpgsql "
    "AS $$ BEGIN RAISE EXCEPTION 'provoked by the test'; END $$"
)
PG_FAIL = (
    "CREATE TRIGGER herald_test_fail_{table} BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION herald_test_fail()"
)


def _fail_inserts(url: str, backend: str, *tables: str) -> None:
    if backend == "postgresql":
        sql(url, PG_FUNCTION)
    for table in tables:
        sql(url, (PG_FAIL if backend == "postgresql" else SQLITE_FAIL).format(table=table))


def test_a_failing_statement_is_logged_without_its_parameters(backend: str, tmp_path: Path) -> None:
    # Short: SQLAlchemy shortens a long parameter list in the middle, and the content comes early.
    marker = f"m{uuid.uuid4().hex[:9]}"
    email = f"leak-{uuid.uuid4().hex[:10]}@example.com"
    with database(backend, tmp_path) as url:
        key = bootstrap_org(url, "logs-org")  # before the triggers: the organization exists
        asyncio.run(_profile(url))
        _fail_inserts(url, backend, "users", "posts")
        with running_stack(url, tmp_path, HERALD_LOG_LEVEL="INFO") as stack:
            with grpc.insecure_channel(stack.core_target) as channel, pytest.raises(grpc.RpcError) as failed:
                accounts_pb2_grpc.AccountServiceStub(channel).SignUp(
                    accounts_pb2.SignUpRequest(email=email, password="a long password", organization="leak-org"),
                    timeout=30,
                )
            assert failed.value.code() == grpc.StatusCode.INTERNAL
            created = httpx.post(
                f"{stack.base_url}/v1/posts",
                json={"content": marker, "profiles": ["logs-x"]},
                headers={"Authorization": f"Bearer {key}"},
                timeout=30,
            )
            assert created.status_code == 500 and created.json()["code"] == "INTERNAL"
            for proc in stack.processes:
                proc.terminate()
            for proc in stack.processes:
                proc.wait(timeout=10)
    logs = "".join(p.read_text(errors="replace") for p in tmp_path.glob("*.log"))
    # Both failures were logged, with their statements: a leak would be in these lines.
    assert logs.count("unexpected failure") >= 2
    assert "INSERT INTO users" in logs
    if backend == "sqlite":  # PostgreSQL sends a creation's inserts in one pipeline, named as such
        assert "INSERT INTO posts" in logs
    for secret in (email, "$argon2id$", marker):
        assert secret not in logs, secret


async def _profile(url: str) -> None:
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(url)
    try:
        await admin.add_profile(engine, org="logs-org", slug="logs-x", platform="x", tags=[])
    finally:
        await engine.dispose()
