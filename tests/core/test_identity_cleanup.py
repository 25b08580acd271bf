"""Housekeeping of expired sessions, codes and tokens (core/identity/cleanup.py), on both backends."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select, update

from core.db.models import oauth_codes, oauth_grants, oauth_tokens, sessions
from core.db.types import utcnow
from core.identity.cleanup import purge_expired_credentials
from core.identity.opaque_tokens import hash_token
from core.settings import CoreSettings
from core.storage.local import LocalStorage
from core.worker.maintenance import housekeeping
from harness.oauth_flow import code_for, new_authorization, register, sign_in, tokens_for


async def _count(engine, table, column, value) -> int:
    async with engine.connect() as conn:
        return await conn.scalar(select(func.count()).select_from(table).where(column == value))


async def test_purges_only_what_expired_more_than_a_day_ago(http, channel, orgs, engine, tmp_path):
    org = await orgs()
    old_session = await sign_in(channel, org.email)
    live_session = await sign_in(channel, org.email)
    client = await register(http)
    old_tokens = await tokens_for(http, live_session, client["client_id"])
    live_tokens = await tokens_for(http, live_session, client["client_id"])
    stale_code = await code_for(http, live_session, new_authorization(client["client_id"]))
    long_ago = utcnow() - timedelta(days=2)
    async with engine.begin() as conn:
        await conn.execute(
            update(sessions).where(sessions.c.token_hash == hash_token(old_session)).values(expires_at=long_ago)
        )
        for token in (old_tokens["access_token"], old_tokens["refresh_token"]):
            await conn.execute(
                update(oauth_tokens).where(oauth_tokens.c.token_hash == hash_token(token)).values(revoked_at=long_ago)
            )
        await conn.execute(
            update(oauth_codes).where(oauth_codes.c.code_hash == hash_token(stale_code)).values(expires_at=long_ago)
        )
    grants_before = await _count(engine, oauth_grants, oauth_grants.c.client_id, client["client_id"])

    # Through the workers' housekeeping pass, which runs it.
    await housekeeping(engine, LocalStorage(CoreSettings(data_dir=tmp_path)), orphans=False)
    assert await purge_expired_credentials(engine, utcnow()) == 0  # nothing left to purge

    assert await _count(engine, sessions, sessions.c.token_hash, hash_token(old_session)) == 0
    assert await _count(engine, sessions, sessions.c.token_hash, hash_token(live_session)) == 1
    for token in (old_tokens["access_token"], old_tokens["refresh_token"]):
        assert await _count(engine, oauth_tokens, oauth_tokens.c.token_hash, hash_token(token)) == 0
    for token in (live_tokens["access_token"], live_tokens["refresh_token"]):
        assert await _count(engine, oauth_tokens, oauth_tokens.c.token_hash, hash_token(token)) == 1
    assert await _count(engine, oauth_codes, oauth_codes.c.code_hash, hash_token(stale_code)) == 0
    assert await _count(engine, oauth_grants, oauth_grants.c.client_id, client["client_id"]) == grants_before
