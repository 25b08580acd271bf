"""Applies Alembic migrations programmatically (`herald migrate`, tests, `make run`)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Brings the database at `database_url` to `revision`. Runs its own event loop: call it
    from synchronous code or a worker thread."""
    command.upgrade(alembic_config(database_url), revision)


def head_revision() -> str:
    """The newest revision of core/migrations."""
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head() or ""


async def schema_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at; None when it was never migrated (no alembic_version)."""
    try:
        async with engine.connect() as conn:
            return await conn.scalar(text("SELECT version_num FROM alembic_version"))
    except DBAPIError as error:
        if "alembic_version" in str(error.orig):  # no such table (SQLite) / relation (PostgreSQL)
            return None
        raise
