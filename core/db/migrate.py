"""Applies Alembic migrations programmatically (`herald migrate`, tests, `make run`)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

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
