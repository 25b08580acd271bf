"""Alembic migrations build exactly the schema the models describe, on both backends, and
downgrade cleanly."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from core.db.migrate import alembic_config, upgrade
from core.db.models import Base
from harness.stack import database


def _sync_url(url: str) -> str:
    return url.replace("+aiosqlite", "").replace("+psycopg", "+psycopg")


def test_models_and_migrations_agree(database_url) -> None:
    engine = create_engine(_sync_url(database_url))
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    finally:
        engine.dispose()
    assert diff == []


def test_downgrade_to_base_and_back(backend, tmp_path) -> None:
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


def test_clients_registered_before_0016_get_their_application_type(backend, tmp_path) -> None:
    """A client with only loopback redirect URIs becomes native; one with an https URI, or with
    none (client_credentials), web."""
    from sqlalchemy import text

    with database(backend, tmp_path) as url:
        command.downgrade(alembic_config(url), "0015")
        engine = create_engine(_sync_url(url))
        try:
            with engine.begin() as conn:
                for client_id, uris in (
                    ("cli_loop", "http://127.0.0.1/cb http://localhost:8080/cb"),
                    ("cli_web", "https://agent.example/cb http://127.0.0.1/cb"),
                    ("cli_none", ""),
                ):
                    conn.execute(
                        text(
                            "INSERT INTO oauth_clients (id, client_name, client_uri, redirect_uris, grant_types, "
                            "response_types, token_endpoint_auth_method, scope, created_at) VALUES "
                            "(:id, 'c', '', :uris, 'authorization_code', 'code', 'none', '', CURRENT_TIMESTAMP)"
                        ),
                        {"id": client_id, "uris": uris},
                    )
            upgrade(url)
            with engine.connect() as conn:
                kinds = dict(conn.execute(text("SELECT id, application_type FROM oauth_clients")).all())
        finally:
            engine.dispose()
    assert kinds == {"cli_loop": "native", "cli_web": "web", "cli_none": "web"}
