"""Migration 0023 (docs/oauth.md, "One grant per agent"): a user's active grants of one client in
one organization are merged into the earliest, with the union of their scopes and their latest
token time, their tokens and codes moved to it; revoked grants and other clients' stay apart;
afterwards the database refuses a second active grant for the same agent."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import create_engine, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from core.db.migrate import alembic_config, upgrade
from core.db.models import oauth_clients, oauth_codes, oauth_grants, oauth_tokens
from harness.stack import database

T0 = datetime(2026, 11, 1, tzinfo=UTC)


async def _bootstrap(url: str) -> dict:
    engine = create_async_engine(url)
    try:
        return await admin.bootstrap(
            engine, email="m@example.com", password="correct horse battery", org="m-org", credits_=0, plan="active"
        )
    finally:
        await engine.dispose()


def _client(client_id: str) -> dict:
    return {
        "id": client_id,
        "client_name": client_id,
        "redirect_uris": "http://127.0.0.1/cb",
        "grant_types": "authorization_code refresh_token",
        "response_types": "code",
        "token_endpoint_auth_method": "none",
        "scope": "",
        "created_at": T0,
    }


def _grant(grant_id: str, client_id: str, owner: dict, scope: str, hours: int, last: int, revoked: bool = False):
    return {
        "id": grant_id,
        "client_id": client_id,
        "user_id": owner["user_id"],
        "org_id": owner["org_id"],
        "scope": scope,
        "audience": "http://127.0.0.1:8080/mcp",
        "created_at": T0 + timedelta(hours=hours),
        "last_token_at": T0 + timedelta(hours=last),
        "revoked_at": T0 if revoked else None,
    }


def _token(token_id: str, grant_id: str, owner: dict, scope: str) -> dict:
    return {
        "id": token_id,
        "token_hash": token_id.ljust(64, "0"),
        "kind": "access",
        "client_id": "cli_a",
        "grant_id": grant_id,
        "user_id": owner["user_id"],
        "org_id": owner["org_id"],
        "scope": scope,
        "audience": "http://127.0.0.1:8080/mcp",
        "created_at": T0,
        "expires_at": T0 + timedelta(days=7),
    }


def test_duplicate_grants_are_merged_into_the_earliest(backend, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        owner = asyncio.run(_bootstrap(url))
        command.downgrade(alembic_config(url), "0022")
        engine = create_engine(url.replace("+aiosqlite", ""))
        try:
            with engine.begin() as conn:
                conn.execute(insert(oauth_clients), [_client("cli_a"), _client("cli_b")])
                conn.execute(
                    insert(oauth_grants),
                    [
                        _grant("grt_2", "cli_a", owner, "posts:read posts:write", hours=2, last=9),
                        _grant("grt_1", "cli_a", owner, "posts:read", hours=1, last=5),
                        _grant("grt_3", "cli_a", owner, "media:write posts:read", hours=3, last=4),
                        _grant("grt_0", "cli_a", owner, "generate:write", hours=0, last=0, revoked=True),
                        _grant("grt_b", "cli_b", owner, "posts:read", hours=0, last=0),
                    ],
                )
                conn.execute(
                    insert(oauth_tokens),
                    [
                        _token("tok_1", "grt_1", owner, "posts:read"),
                        _token("tok_2", "grt_2", owner, "posts:read posts:write"),
                        _token("tok_3", "grt_3", owner, "media:write posts:read"),
                        _token("tok_0", "grt_0", owner, "generate:write"),
                    ],
                )
                conn.execute(
                    insert(oauth_codes).values(
                        id="cod_3",
                        code_hash="c" * 64,
                        client_id="cli_a",
                        user_id=owner["user_id"],
                        org_id=owner["org_id"],
                        redirect_uri="http://127.0.0.1/cb",
                        code_challenge="x" * 43,
                        scope="media:write posts:read",
                        audience="http://127.0.0.1:8080/mcp",
                        created_at=T0,
                        expires_at=T0,
                        used_at=T0,
                        grant_id="grt_3",
                    )
                )
            upgrade(url)
            with engine.connect() as conn:
                grants = {row.id: row for row in conn.execute(select(oauth_grants))}
                tokens = dict(conn.execute(select(oauth_tokens.c.id, oauth_tokens.c.grant_id)).all())
                code_grant = conn.scalar(select(oauth_codes.c.grant_id))
            with pytest.raises(IntegrityError), engine.begin() as conn:
                conn.execute(insert(oauth_grants).values(_grant("grt_4", "cli_a", owner, "posts:read", 5, 5)))
            with engine.begin() as conn:  # a revoked grant does not count: another may be revoked too
                conn.execute(insert(oauth_grants).values(_grant("grt_5", "cli_a", owner, "x", 5, 5, revoked=True)))
        finally:
            engine.dispose()
    assert set(grants) == {"grt_1", "grt_0", "grt_b"}
    merged = grants["grt_1"]
    assert merged.scope == "media:write posts:read posts:write"
    assert (merged.created_at, merged.last_token_at, merged.revoked_at) == (
        T0 + timedelta(hours=1),
        T0 + timedelta(hours=9),
        None,
    )
    assert (grants["grt_0"].scope, grants["grt_b"].scope) == ("generate:write", "posts:read")
    assert tokens == {"tok_1": "grt_1", "tok_2": "grt_1", "tok_3": "grt_1", "tok_0": "grt_0"}
    assert code_grant == "grt_1"
