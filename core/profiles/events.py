"""The profiles' webhook events (profile.connected, profile.disconnected, profile.needs_reauth,
profile.deleted): the profile exactly as GET /v1/profiles/{slug} renders it, written in the
transaction of the change (core/webhooks/fanout.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from contract.resources import Profile as ProfileShape
from core.profiles import service
from core.profiles.messages import profile_message
from core.webhooks import fanout


async def emit(conn: AsyncConnection, org_id: str, profile_id: str, event_type: str, now: datetime) -> None:
    await emit_profile(conn, org_id, await service.get_profile_by_id(conn, profile_id), event_type, now)


async def emit_profile(
    conn: AsyncConnection, org_id: str, profile: service.Profile, event_type: str, now: datetime
) -> None:
    """The event for a profile as read (profile.deleted: as it was before it was deleted)."""
    await fanout.emit(conn, org_id, event_type, [ProfileShape.from_proto(profile_message(profile))], now)
