"""Email verification (docs/teams.md, "Email verification"): when mail is configured, an account
made at sign-up confirms its address through a single-use link (48 hours; only the SHA-256 of its
token is kept) before the organization it created may publish: until then it writes drafts, and a
post that would go out is refused with EMAIL_NOT_VERIFIED. Without mail there is nothing to send
a link with, so accounts count as verified when they are made (as do the admin CLI's and those made
through an invitation, whose link reached the address)."""

from __future__ import annotations

from datetime import datetime, timedelta

import grpc
from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import email_verifications, memberships, organizations, users
from core.errors import DomainError, NotFound
from core.identity.opaque_tokens import hash_token, mint_token
from core.identity.principal import Principal
from core.ids import new_id
from core.mail import send_later
from core.settings import CoreSettings

LIFETIME = timedelta(hours=48)
TOKEN_PREFIX = "hev_"
_TOKEN_CHARS = 100


class EmailNotVerified(DomainError):
    """The organization publishes once its creator's address is verified (403)."""

    reason = "EMAIL_NOT_VERIFIED"
    grpc_code = grpc.StatusCode.PERMISSION_DENIED


def require_verified(principal: Principal) -> None:
    """EMAIL_NOT_VERIFIED for an organization still waiting for its creator's address."""
    if principal.awaiting_verification:
        raise EmailNotVerified(
            "confirm your email address first (the link sent at sign-up; the dashboard sends a new one): "
            "until then posts can be saved as drafts but not published"
        )


async def send_link(
    conn: AsyncConnection, user_id: str, email: str, now: datetime, settings: CoreSettings, org_id: str | None
) -> bool:
    """A new link for the address (older ones stop working), queued by mail; False when mail is off."""
    if settings.smtp_server is None:
        return False
    await conn.execute(
        update(email_verifications)
        .where(email_verifications.c.user_id == user_id, email_verifications.c.used_at.is_(None))
        .values(used_at=now)
    )
    minted = mint_token(TOKEN_PREFIX)
    await conn.execute(
        insert(email_verifications).values(
            id=new_id("evf"), user_id=user_id, token_hash=minted.token_hash, created_at=now, expires_at=now + LIFETIME
        )
    )
    url = f"{settings.base_url.rstrip('/')}/verify-email/{minted.token}"
    return await send_later(
        conn,
        to=email,
        subject="Confirm your email address for Herald",
        text=f"Confirm your address to start publishing with Herald:\n\n{url}\n\n"
        "The link works once, for 48 hours. If you did not sign up, ignore this email.",
        now=now,
        org_id=org_id,
        kind="email_verification",
        settings=settings,
    )


async def verify(conn: AsyncConnection, token: str, now: datetime) -> str:
    """Confirms the address the link was sent to; its email. NotFound for an unknown, used or
    expired link (one answer: nothing tells them apart)."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > _TOKEN_CHARS:
        raise NotFound("this confirmation link is unknown, used or expired")
    used = await conn.execute(
        update(email_verifications)
        .where(
            email_verifications.c.token_hash == hash_token(token),
            email_verifications.c.used_at.is_(None),
            email_verifications.c.expires_at > now,
        )
        .values(used_at=now)
        .returning(email_verifications.c.user_id)
    )
    user_id = used.scalar()
    if user_id is None:
        raise NotFound("this confirmation link is unknown, used or expired")
    await conn.execute(
        update(users).where(users.c.id == user_id, users.c.email_verified_at.is_(None)).values(email_verified_at=now)
    )
    owned = select(memberships.c.org_id).where(memberships.c.user_id == user_id, memberships.c.role == "owner")
    await conn.execute(
        update(organizations)
        .where(organizations.c.id.in_(owned), organizations.c.awaiting_verification)
        .values(awaiting_verification=False)
    )
    return await conn.scalar(select(users.c.email).where(users.c.id == user_id)) or ""


async def resend(conn: AsyncConnection, principal: Principal, now: datetime, settings: CoreSettings) -> bool:
    row = (
        await conn.execute(select(users.c.email, users.c.email_verified_at).where(users.c.id == principal.user_id))
    ).first()
    if row is None or row.email_verified_at is not None:
        return False
    return await send_link(conn, principal.user_id, row.email, now, settings, principal.org_id)
