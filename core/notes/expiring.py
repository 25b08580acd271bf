"""Profiles whose platform access ends within 7 days and cannot be renewed (no refresh token): the
members who manage connections are told once per expiry (docs/teams.md, "Comments and
notifications"), by a loop every worker runs (each notification is made once: its dedupe key)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.engine import transaction
from core.db.models import profiles
from core.db.types import utcnow
from core.notes.from_events import members_who_may
from core.notes.notifications import notify
from core.settings import CoreSettings

log = logging.getLogger(__name__)
AHEAD = timedelta(days=7)
BATCH = 200


async def tell_expiring(engine: AsyncEngine, settings: CoreSettings, now: datetime) -> int:
    """One pass: how many notifications were made."""
    p = profiles.c
    async with transaction(engine) as conn:
        rows = (
            await conn.execute(
                select(p.id, p.org_id, p.slug, p.token_expires_at)
                .where(
                    p.connection_status == "connected",
                    p.refresh_token.is_(None),
                    p.token_expires_at > now,
                    p.token_expires_at <= now + AHEAD,
                )
                .order_by(p.token_expires_at)
                .limit(BATCH)
            )
        ).all()
    made = 0
    for row in rows:
        async with transaction(engine, writes=True) as conn:
            made += await notify(
                conn,
                row.org_id,
                await members_who_may(conn, row.org_id, "manage_integrations", profile_id=row.id),
                "token_expiring",
                text=f"{row.slug}'s access to the platform ends on {row.token_expires_at:%Y-%m-%d %H:%M} UTC: "
                "connect it again before then",
                subject_id=row.slug,
                link=f"/dashboard/profiles/{row.slug}",
                dedupe_key=f"token_expiring:{row.id}:{row.token_expires_at.isoformat()}",
                now=now,
                settings=settings,
            )
    return made


async def run_expiry_notices(engine: AsyncEngine, settings: CoreSettings, stop: asyncio.Event, every: float) -> None:
    while not stop.is_set():
        try:
            await tell_expiring(engine, settings, utcnow())
        except Exception:
            log.exception("expiry notices failed; trying again later")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)
