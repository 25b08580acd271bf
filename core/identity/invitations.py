"""Invitations (docs/teams.md, "Invitations"): a person invited by email to join the organization
with a role, through a single-use link that works for 7 days.

The link carries an opaque token (`hinv_…`); only its SHA-256 is stored, so the link is shown once,
to the inviter (and emailed when mail is configured), never again. Using it is one conditional
UPDATE (still pending, not expired, not revoked) that exactly one of two concurrent uses passes.
The invited email decides who may use it: a signed-in user with another email is refused, so a
forwarded link cannot bring in someone else's account. An invitation may carry profile limits
(core/identity/profile_limits.py): the member joins with them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import grpc
from sqlalchemy import and_, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import aliased

from core.db.models import invitations, memberships, organizations, users
from core.errors import Conflict, DomainError, Forbidden, NotFound
from core.identity import profile_limits
from core.identity.members import check_role
from core.identity.opaque_tokens import hash_token, mint_token
from core.identity.principal import Principal
from core.identity.service import ensure_membership, normalize_email
from core.ids import new_id
from core.mail import send_later
from core.settings import CoreSettings

LIFETIME = timedelta(days=7)
TOKEN_PREFIX = "hinv_"
MAX_LISTED = 200
_TOKEN_CHARS = 100  # a real token is 48; anything longer is not one


class InvitationClosed(DomainError):
    """The link no longer works: accepted, expired or revoked (410, metadata `state`)."""

    reason = "INVITATION_CLOSED"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


@dataclass(frozen=True, slots=True)
class InvitationRecord:
    id: str
    email: str
    role: str
    invited_by: str  # the inviter's email
    created_at: datetime
    expires_at: datetime
    state: str
    profile_tags: tuple[str, ...] = ()  # the limits the member joins with; (): none


@dataclass(frozen=True, slots=True)
class InvitationView:
    org_id: str
    org_name: str
    org_slug: str
    email: str
    role: str
    state: str
    has_account: bool
    expires_at: datetime
    profile_tags: tuple[str, ...] = ()


def state_of(accepted_at: datetime | None, revoked_at: datetime | None, expires_at: datetime, now: datetime) -> str:
    if accepted_at is not None:
        return "accepted"
    if revoked_at is not None:
        return "revoked"
    return "expired" if expires_at <= now else "pending"


def link(base_url: str, token: str) -> str:
    """The invitation's link: a page of the dashboard's host."""
    return f"{base_url.rstrip('/')}/invitations/{token}"


_INVITER = aliased(users)
_LISTED = select(
    invitations.c.id,
    invitations.c.email,
    invitations.c.role,
    _INVITER.c.email.label("invited_by"),
    invitations.c.created_at,
    invitations.c.expires_at,
    invitations.c.accepted_at,
    invitations.c.revoked_at,
    invitations.c.profile_tags,
).select_from(invitations.join(_INVITER, _INVITER.c.id == invitations.c.invited_by))


def _record(row, now: datetime) -> InvitationRecord:
    state = state_of(row.accepted_at, row.revoked_at, row.expires_at, now)
    tags = tuple(row.profile_tags.split())
    return InvitationRecord(row.id, row.email, row.role, row.invited_by, row.created_at, row.expires_at, state, tags)


async def create(
    conn: AsyncConnection,
    caller: Principal,
    email: str,
    role: str,
    now: datetime,
    profile_tags: Sequence[str] = (),
) -> tuple[InvitationRecord, str]:
    """The invitation and its link's token. Inviting an email again replaces its pending
    invitation (its old link stops working)."""
    email = normalize_email(email)
    check_role(role)
    if role == "owner" and caller.role != "owner":
        raise Forbidden("only an owner can invite an owner")
    tags = profile_limits.stored(profile_tags)
    profile_limits.check_owner(role, tags)
    profile_limits.check_given(caller, tags, current=None)
    member = await conn.scalar(
        select(users.c.id)
        .select_from(users.join(memberships, memberships.c.user_id == users.c.id))
        .where(users.c.email == email, memberships.c.org_id == caller.org_id)
    )
    if member is not None:
        raise Conflict(f"{email} is already a member of this organization")
    pending = and_(invitations.c.accepted_at.is_(None), invitations.c.revoked_at.is_(None))
    await conn.execute(
        update(invitations)
        .where(invitations.c.org_id == caller.org_id, invitations.c.email == email, pending)
        .values(revoked_at=now)
    )
    minted = mint_token(TOKEN_PREFIX)
    invitation_id = new_id("inv")
    await conn.execute(
        insert(invitations).values(
            id=invitation_id,
            org_id=caller.org_id,
            email=email,
            role=role,
            token_hash=minted.token_hash,
            invited_by=caller.user_id,
            created_at=now,
            expires_at=now + LIFETIME,
            profile_tags=" ".join(tags),
        )
    )
    inviter = await conn.scalar(select(users.c.email).where(users.c.id == caller.user_id))
    record = InvitationRecord(invitation_id, email, role, inviter or "", now, now + LIFETIME, "pending", tags)
    return record, minted.token


async def list_open(conn: AsyncConnection, org_id: str, now: datetime) -> list[InvitationRecord]:
    """Invitations neither used nor revoked (pending or expired), newest first."""
    rows = await conn.execute(
        _LISTED.where(
            invitations.c.org_id == org_id, invitations.c.accepted_at.is_(None), invitations.c.revoked_at.is_(None)
        )
        .order_by(invitations.c.created_at.desc(), invitations.c.id.desc())
        .limit(MAX_LISTED)
    )
    return [_record(r, now) for r in rows]


async def revoke(conn: AsyncConnection, org_id: str, invitation_id: str, now: datetime) -> InvitationRecord:
    row = (await conn.execute(_LISTED.where(invitations.c.org_id == org_id, invitations.c.id == invitation_id))).first()
    if row is None:
        raise NotFound(f"no invitation {invitation_id[:40]!r} in this organization")
    revoked = await conn.execute(
        update(invitations)
        .where(
            invitations.c.id == invitation_id, invitations.c.accepted_at.is_(None), invitations.c.revoked_at.is_(None)
        )
        .values(revoked_at=now)
    )
    if revoked.rowcount != 1:
        state = state_of(row.accepted_at, row.revoked_at or now, row.expires_at, now)
        raise InvitationClosed(f"this invitation was already {state}", state=state)
    return replace(_record(row, now), state="revoked")


async def view(conn: AsyncConnection, token: str, now: datetime) -> InvitationView:
    """What the link is for; NotFound for a token that is no invitation's."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > _TOKEN_CHARS:
        raise NotFound("no such invitation")
    row = (
        await conn.execute(
            select(
                invitations.c.org_id,
                organizations.c.name,
                organizations.c.slug,
                invitations.c.email,
                invitations.c.role,
                invitations.c.expires_at,
                invitations.c.accepted_at,
                invitations.c.revoked_at,
                invitations.c.profile_tags,
            )
            .select_from(invitations.join(organizations, organizations.c.id == invitations.c.org_id))
            .where(invitations.c.token_hash == hash_token(token))
        )
    ).first()
    if row is None:
        raise NotFound("no such invitation")
    has_account = await conn.scalar(select(users.c.id).where(users.c.email == row.email)) is not None
    state = state_of(row.accepted_at, row.revoked_at, row.expires_at, now)
    return InvitationView(
        row.org_id,
        row.name,
        row.slug,
        row.email,
        row.role,
        state,
        has_account,
        row.expires_at,
        tuple(row.profile_tags.split()),
    )


async def accept(conn: AsyncConnection, token: str, user_id: str, email: str, now: datetime) -> InvitationView:
    """Joins the user to the invitation's organization with its role: once, by the invited email."""
    invited = await view(conn, token, now)
    if invited.state != "pending":
        raise InvitationClosed(f"this invitation link was {invited.state}: ask for a new one", state=invited.state)
    if normalize_email(email) != invited.email:
        raise Forbidden(f"this invitation is for {invited.email}: sign in with that email to accept it")
    already = await conn.scalar(
        select(memberships.c.role).where(memberships.c.org_id == invited.org_id, memberships.c.user_id == user_id)
    )
    if already is not None:
        raise Conflict(f"you are already a member of {invited.org_slug}")
    used = await conn.execute(
        update(invitations)
        .where(
            invitations.c.token_hash == hash_token(token),
            invitations.c.accepted_at.is_(None),
            invitations.c.revoked_at.is_(None),
            invitations.c.expires_at > now,
        )
        .values(accepted_at=now, accepted_by=user_id)
    )
    if used.rowcount != 1:  # another use of the same link got there first
        raise InvitationClosed("this invitation link was accepted", state="accepted")
    await ensure_membership(conn, user_id, invited.org_id, invited.role, now, profile_tags=invited.profile_tags)
    return invited


async def send(
    conn: AsyncConnection, caller: Principal, record: InvitationRecord, url: str, now: datetime, settings: CoreSettings
) -> bool:
    """Queues the link by email when mail is configured (core/mail, sent by a worker, never in the
    request); False when it is off and the inviter passes the link on themselves."""
    org_name = await conn.scalar(select(organizations.c.name).where(organizations.c.id == caller.org_id))
    text = (
        f"{record.invited_by} invited you to join {org_name} on Herald as {record.role}.\n\n"
        f"Accept the invitation: {url}\n\n"
        f"The link works once, until {record.expires_at:%Y-%m-%d %H:%M} UTC. If you did not expect it, ignore this email."
    )
    return await send_later(
        conn,
        to=record.email,
        subject=f"Join {org_name} on Herald",
        text=text,
        now=now,
        org_id=caller.org_id,
        kind="invitation",
        settings=settings,
    )
