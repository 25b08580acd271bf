"""Alembic migrations build exactly the schema the models describe, on both backends, and
downgrade cleanly."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from core.db.migrate import alembic_config, upgrade
from core.db.models import Base
from tests.harness import database


def _sync_url(url: str) -> str:
    return url.replace("+aiosqlite", "").replace("+psycopg", "+psycopg")


def test_models_and_migrations_agree(database_url) -> None:  # noqa: ANN001
    engine = create_engine(_sync_url(database_url))
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    finally:
        engine.dispose()
    assert diff == []


def test_downgrade_to_base_and_back(backend, tmp_path) -> None:  # noqa: ANN001
    with database(backend, tmp_path) as url:
        command.downgrade(alembic_config(url), "base")
        engine = create_engine(_sync_url(url))
        try:
            assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
            upgrade(url)
            assert {"users", "organizations", "api_keys", "credit_ledger", "profiles"} <= set(
                inspect(engine).get_table_names()
            )
        finally:
            engine.dispose()
