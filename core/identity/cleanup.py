"""Housekeeping of identity state: expired sessions, authorization codes and OAuth tokens, and
the failed sign-ins of unknown emails once their window has passed.

Rows are kept for a day past expiry or revocation (so a replayed code or refresh token is still
recognised as a replay, and revoked tokens show in an investigation), then deleted. Grants
(connected agents) are kept: they are the record of what a human approved.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, or_
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.models import oauth_codes, oauth_tokens, sessions, sign_in_throttles
from core.identity.accounts import SIGN_IN_WINDOW

RETENTION = timedelta(days=1)


async def purge_expired_credentials(engine: AsyncEngine, now: datetime) -> int:
    """Deletes sessions, codes and tokens expired or revoked more than RETENTION ago; returns
    how many rows went. Every statement is conditional, so workers may run it at once."""
    cutoff = now - RETENTION
    removed = 0
    async with engine.begin() as conn:
        for table in (sessions, oauth_tokens):
            result = await conn.execute(
                delete(table).where(or_(table.c.expires_at < cutoff, table.c.revoked_at < cutoff))
            )
            removed += result.rowcount or 0
        result = await conn.execute(delete(oauth_codes).where(oauth_codes.c.expires_at < cutoff))
        removed += result.rowcount or 0
        throttles = sign_in_throttles.c
        result = await conn.execute(
            delete(sign_in_throttles).where(throttles.last_failed_sign_in_at < now - SIGN_IN_WINDOW)
        )
        removed += result.rowcount or 0
    return removed
