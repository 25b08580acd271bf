"""An organization's members and their roles (docs/teams.md).

Changing or removing a member needs the manage_members permission (core/identity/roles.py), and
two rules hold beyond it: only an owner makes, unmakes or removes an owner, and the organization
never loses its last owner (LAST_OWNER). Two admins acting at once cannot both pass that count:
the organization's row is locked first (PostgreSQL; SQLite's write transaction already holds the
database), so the second one counts what the first one left.

Profile limits (core/identity/profile_limits.py) are changed here too, with their own rules:
owners take none, a limited member gives only limits within their own, and nobody changes their
own limits (a member cannot lift them).

A removed member's credentials stop at once: every lookup of a credential joins the membership
(core/identity/authentication.py). Their sessions, API keys and agent grants in the organization
are also revoked, so that joining again later brings none of them back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import grpc
from sqlalchemy import case, delete, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import api_keys, memberships, oauth_grants, organizations, sessions, users
from core.errors import DomainError, Forbidden, NotFound, ValidationError
from core.identity import profile_limits
from core.identity.principal import Principal
from core.identity.roles import ROLES


class LastOwner(DomainError):
    """The change would leave the organization without an owner (409)."""

    reason = "LAST_OWNER"
    grpc_code = grpc.StatusCode.FAILED_PRECONDITION


@dataclass(frozen=True, slots=True)
class MemberRecord:
    user_id: str
    email: str
    role: str
    joined_at: datetime
    profile_tags: tuple[str, ...] = ()  # their profile limits; (): every profile


_COLUMNS = (
    memberships.c.user_id,
    users.c.email,
    memberships.c.role,
    memberships.c.created_at,
    memberships.c.profile_tags,
)
_OWNERS_FIRST = case((memberships.c.role == "owner", 0), else_=1)


def _record(row) -> MemberRecord:
    return MemberRecord(row.user_id, row.email, row.role, row.created_at, tuple(row.profile_tags.split()))


def _members(org_id: str):
    return (
        select(*_COLUMNS)
        .select_from(memberships.join(users, users.c.id == memberships.c.user_id))
        .where(memberships.c.org_id == org_id)
    )


async def list_members(conn: AsyncConnection, org_id: str) -> list[MemberRecord]:
    """Owners first, then by email."""
    rows = await conn.execute(_members(org_id).order_by(_OWNERS_FIRST, users.c.email))
    return [_record(r) for r in rows]


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ValidationError(f"role must be one of {', '.join(ROLES)} (got {role[:40]!r})")
    return role


async def _target(conn: AsyncConnection, caller: Principal, user_id: str) -> MemberRecord:
    """The member the caller acts on, with the organization locked; an owner only by an owner."""
    await conn.execute(select(organizations.c.id).where(organizations.c.id == caller.org_id).with_for_update())
    row = (await conn.execute(_members(caller.org_id).where(memberships.c.user_id == user_id))).first()
    if row is None:
        raise NotFound(f"no member {user_id[:40]!r} in this organization")
    if row.role == "owner" and caller.role != "owner":
        raise Forbidden("only an owner can change or remove an owner")
    return _record(row)


async def _keep_an_owner(conn: AsyncConnection, org_id: str, member: MemberRecord) -> None:
    if member.role != "owner":
        return
    owners = await conn.scalar(
        select(memberships.c.user_id)
        .where(memberships.c.org_id == org_id, memberships.c.role == "owner", memberships.c.user_id != member.user_id)
        .limit(1)
    )
    if owners is None:
        raise LastOwner(
            "this is the organization's last owner: make another member an owner first", user_id=member.user_id
        )


async def update_member(
    conn: AsyncConnection,
    caller: Principal,
    user_id: str,
    role: str | None,
    profile_tags: list[str] | None = None,
) -> MemberRecord:
    """Changes the member's role and profile limits that are given (None keeps one); every rule
    is checked before anything is written."""
    member = await _target(conn, caller, user_id)
    new_role = check_role(role) if role is not None else member.role
    tags = profile_limits.stored(profile_tags) if profile_tags is not None else member.profile_tags
    values: dict[str, object] = {}
    if new_role != member.role:
        if new_role == "owner" and caller.role != "owner":
            raise Forbidden("only an owner can make another member an owner")
        await _keep_an_owner(conn, caller.org_id, member)
        values["role"] = new_role
    if tags != member.profile_tags:
        if user_id == caller.user_id:
            raise Forbidden("you cannot change your own profile limits: another member who manages members does")
        profile_limits.check_given(caller, tags, current=member.profile_tags)
        values["profile_tags"] = " ".join(tags)
    profile_limits.check_owner(new_role, tags)
    if values:
        await conn.execute(
            update(memberships)
            .where(memberships.c.org_id == caller.org_id, memberships.c.user_id == user_id)
            .values(**values)
        )
    return MemberRecord(member.user_id, member.email, new_role, member.joined_at, tags)


async def remove_member(conn: AsyncConnection, caller: Principal, user_id: str, now: datetime) -> MemberRecord:
    member = await _target(conn, caller, user_id)
    await _keep_an_owner(conn, caller.org_id, member)
    org_id = caller.org_id
    await conn.execute(delete(memberships).where(memberships.c.org_id == org_id, memberships.c.user_id == user_id))
    for table in (sessions, api_keys, oauth_grants):
        await conn.execute(
            update(table)
            .where(table.c.org_id == org_id, table.c.user_id == user_id, table.c.revoked_at.is_(None))
            .values(revoked_at=now)
        )
    return member
