"""Accounts: human sign-up and sign-in, dashboard sessions, and a user's organizations.

Password hashing and checking (argon2id, tens of milliseconds of CPU) run in a worker thread,
outside any database transaction, so neither the event loop nor a write lock waits on them;
`HashSlots` (core/identity/passwords.py) bounds how many run at once and keeps a share for
sign-ins. The abuse rules (per-address and per-email budgets, the account lock, answers that
never tell whether an email has an account) are in docs/dashboard.md, "Sign-up and sign-in".
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import case, insert, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from core.audit import record as audit
from core.credits import service as credits
from core.db.models import memberships, organizations, sessions, sign_in_throttles, users
from core.errors import Conflict, NotFound, RateLimited, TooManyAttempts, Unauthorized, ValidationError
from core.identity import invitations, service, verification
from core.identity.opaque_tokens import SESSION_PREFIX, mint_token
from core.identity.passwords import MIN_PASSWORD_LENGTH, HashSlots, hash_password, verify_password
from core.identity.principal import Principal
from core.ids import new_id
from core.rpc import budgets
from core.rpc.context import Call
from core.settings import CoreSettings

# Checked against when the email is unknown, so both failures cost the same time. A literal
# (argon2-cffi's default parameters, like every stored hash): hashing at import would cost the
# core 64 MiB of argon2 memory at start-up, for nothing.
_DUMMY_HASH = "$argon2id$v=19$m=65536,t=3,p=4$Urpfw2Qag/RbqzCYVbOsGw$eXdycoiFwVbYak7ZARxK4S+LNS6Y6cUVJd7mAOJrwDY"
MAX_PASSWORD_LENGTH = 1024
# Throttling: after MAX_FAILED_SIGN_INS failures within SIGN_IN_WINDOW, the account refuses
# sign-in attempts (without checking the password) until the window has passed since the last
# failure. It bounds online guessing at 5 tries per 15 minutes per account, whatever the
# concurrency: each attempt is reserved (counted as a failure) before its password is checked.
# The cost is that someone who knows an email can keep its owner out for a while (the usual
# trade-off; the owner's existing sessions, keys and agents keep working).
MAX_FAILED_SIGN_INS = 5
SIGN_IN_WINDOW = timedelta(minutes=15)


class EmailHasAccount(Exception):
    """Raised inside sign-up's transaction when the email already has an account: it rolls back
    whatever was written, and the servicer answers as for a new account."""


@dataclass(frozen=True, slots=True)
class OrganizationView:
    id: str
    slug: str
    role: str
    plan: str


@dataclass(frozen=True, slots=True)
class SessionView:
    token: str
    session_id: str
    user_id: str
    email: str
    organization: OrganizationView
    expires_at: datetime


def check_password_shape(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValidationError(f"password must be at least {MIN_PASSWORD_LENGTH} characters")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise ValidationError(f"password must be at most {MAX_PASSWORD_LENGTH} characters")


def _email_key(email: str) -> str:
    """The per-email budget's key: a digest, so the limiter (Redis) never holds addresses."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


async def spend_sign_up_budget(call: Call) -> None:
    await budgets.spend(
        call, "sign-up-address", call.client_address, call.settings.rate_limit_sign_up_address, "sign-ups"
    )


async def spend_sign_in_budgets(call: Call, email: str) -> None:
    """The caller's address's budget, then the email's (spent for every attempt, whether or not
    the email has an account, so being refused says nothing about it). Both before any hashing."""
    settings = call.settings
    await budgets.spend(call, "sign-in-address", call.client_address, settings.rate_limit_sign_in_address, "sign-ins")
    try:
        await budgets.spend(call, "sign-in-email", _email_key(email), settings.rate_limit_sign_in_account, "sign-ins")
    except RateLimited as error:
        raise RateLimited(
            f"too many sign-in attempts for this email; retry in {error.metadata['retry_after']} s",
            **error.metadata,
        ) from None


def check_sign_up_fields(*, email: str, password: str, org_slug: str) -> None:
    """VALIDATION_ERROR for a malformed field, before anything is counted or looked up."""
    service.normalize_email(email)
    check_password_shape(password)
    service.validate_org_slug(org_slug)


async def check_slug_free(conn: AsyncConnection, org_slug: str) -> None:
    """CONFLICT for a taken organization slug, checked before the password is hashed. Slugs are
    public names; the email is not looked at, so this answer never depends on it."""
    if await service.find_org_by_slug(conn, org_slug) is not None:
        raise Conflict(f"organization {org_slug!r} exists")


async def hash_new_password(password: str, slots: HashSlots) -> str:
    check_password_shape(password)
    async with slots.for_sign_up():
        return await asyncio.to_thread(hash_password, password)


async def sign_up(
    conn: AsyncConnection,
    *,
    email: str,
    password_hash: str,
    org_slug: str,
    plan: str,
    now: datetime,
    starter_credits: int = 0,
    settings: CoreSettings | None = None,
) -> None:
    """Creates the user, the organization (owned by the user, with `starter_credits`: a ledger
    grant), all or nothing. The slug is checked before the email (CONFLICT for a taken slug,
    whoever asks); an email that has an account raises EmailHasAccount, and nothing is kept."""
    await check_slug_free(conn, org_slug)
    if await service.find_user_by_email(conn, email) is not None:
        raise EmailHasAccount
    # With mail, the address is confirmed by a link before the organization publishes
    # (core/identity/verification.py).
    confirm = settings is not None and settings.smtp_server is not None
    try:
        user_id = await service.create_user_with_hash(conn, email, password_hash, now, verified=not confirm)
    except Conflict:  # the same email signed up concurrently
        raise EmailHasAccount from None
    org_id = await service.create_organization(conn, org_slug, plan, now)
    if confirm:
        await conn.execute(update(organizations).where(organizations.c.id == org_id).values(awaiting_verification=True))
        await verification.send_link(conn, user_id, service.normalize_email(email), now, settings, org_id)
    if starter_credits:
        await credits.grant(conn, org_id, starter_credits, reason="grant", reference="sign-up starter credits", now=now)
    await service.ensure_membership(conn, user_id, org_id, "owner", now)


async def check_invitation_sign_up(conn: AsyncConnection, token: str, now: datetime) -> invitations.InvitationView:
    """The invitation a sign-up uses, before its password is hashed: NOT_FOUND, INVITATION_CLOSED,
    or CONFLICT when its email has an account already (that person signs in and accepts)."""
    invited = await invitations.view(conn, token, now)
    if invited.state != "pending":
        raise invitations.InvitationClosed(
            f"this invitation link was {invited.state}: ask for a new one", state=invited.state
        )
    if invited.has_account:
        raise Conflict(f"{invited.email} has an account: sign in to accept the invitation")
    return invited


async def sign_up_by_invitation(
    conn: AsyncConnection, *, token: str, password_hash: str, lifetime: int, now: datetime
) -> SessionView:
    """The invited person's account, their membership with the invitation's role and a session
    in that organization, all or nothing; open sign-up need not be allowed."""
    invited = await check_invitation_sign_up(conn, token, now)
    try:
        user_id = await service.create_user_with_hash(conn, invited.email, password_hash, now)
    except Conflict:  # the same email signed up concurrently
        raise Conflict(f"{invited.email} has an account: sign in to accept the invitation") from None
    return await _join(conn, token, user_id, invited.email, invited.org_slug, lifetime, now, "SignUpByInvitation")


async def sign_in_by_invitation(
    conn_factory,  # Call.transaction
    token: str,
    password: str,
    now: datetime,
    slots: HashSlots,
    lifetime: int,
) -> SessionView:
    """The invited email's account, checked by its password as sign-in checks it, joins the
    invitation's organization with a session there: also an account with no organization yet."""
    async with conn_factory() as conn:
        invited = await invitations.view(conn, token, now)
    if invited.state != "pending":
        raise invitations.InvitationClosed(
            f"this invitation link was {invited.state}: ask for a new one", state=invited.state
        )
    user_id = await verify_credentials(conn_factory, invited.email, password, now, slots)
    async with conn_factory(writes=True) as conn:
        return await _join(conn, token, user_id, invited.email, invited.org_slug, lifetime, now, "SignInByInvitation")


async def _join(
    conn: AsyncConnection,
    token: str,
    user_id: str,
    email: str,
    org_slug: str,
    lifetime: int,
    now: datetime,
    method: str,
) -> SessionView:
    """The link's use at sign-up or sign-in: the membership, a session in the organization joined,
    and the join in that organization's audit log (an anonymous call: nothing else records it)."""
    await invitations.accept(conn, token, user_id, email, now)
    org = await member_organization(conn, user_id, org_slug)
    opened = await _open_session(conn, user_id, email, org, lifetime, now)
    await audit.joined(
        conn, org_id=org.id, user_id=user_id, session_id=opened.session_id, method=f"identity.{method}", now=now
    )
    return opened


async def accept_invitation(conn: AsyncConnection, principal: Principal, token: str, now: datetime) -> OrganizationView:
    """A signed-in user joins the invitation's organization; their session moves there."""
    invited = await invitations.accept(conn, token, principal.user_id, principal.email, now)
    return await switch_organization(conn, principal, invited.org_slug)


def _reserve_attempt(normalized: str, now: datetime):  # an Update
    """Counts one failure before the password is checked, only while the account is below the
    limit: one conditional statement, so however many attempts run at once, at most
    MAX_FAILED_SIGN_INS per window get a row back (and a password check)."""
    in_window = users.c.last_failed_sign_in_at > now - SIGN_IN_WINDOW
    return (
        update(users)
        .where(
            users.c.email == normalized,
            or_(
                users.c.last_failed_sign_in_at.is_(None),
                users.c.last_failed_sign_in_at <= now - SIGN_IN_WINDOW,
                users.c.failed_sign_ins < MAX_FAILED_SIGN_INS,
            ),
        )
        .values(
            failed_sign_ins=case((in_window, users.c.failed_sign_ins + 1), else_=1),
            last_failed_sign_in_at=now,
        )
        .returning(users.c.id, users.c.password_hash)
    )


def _reserve_unknown(conn: AsyncConnection, normalized: str, now: datetime):  # an Insert
    """The same reservation for an email no account has, in sign_in_throttles: without it, the
    sixth wrong guess within the window would answer TOO_MANY_ATTEMPTS for an account and
    UNAUTHORIZED for nobody, telling which emails have accounts. One upsert whose update applies
    only below the limit: a row back means reserved."""
    table = sign_in_throttles.c
    email_hash = hashlib.sha256(normalized.encode()).hexdigest()
    dialect_insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    new = dialect_insert(sign_in_throttles).values(email_hash=email_hash, failed_sign_ins=1, last_failed_sign_in_at=now)
    in_window = table.last_failed_sign_in_at > now - SIGN_IN_WINDOW
    return new.on_conflict_do_update(
        index_elements=[table.email_hash],
        set_={
            "failed_sign_ins": case((in_window, table.failed_sign_ins + 1), else_=1),
            "last_failed_sign_in_at": now,
        },
        where=or_(~in_window, table.failed_sign_ins < MAX_FAILED_SIGN_INS),
    ).returning(table.email_hash)


async def verify_credentials(
    conn_factory,  # Call.transaction
    email: str,
    password: str,
    now: datetime,
    slots: HashSlots,
) -> str:
    """The user id for a correct email and password; UNAUTHORIZED otherwise, in the same time;
    TOO_MANY_ATTEMPTS while the account is locked. `conn_factory` is Call.transaction: each
    write is its own short transaction, none is open while the password is checked."""
    try:
        normalized = service.normalize_email(email)
    except ValidationError:
        normalized = None
    row = None
    if normalized is not None and len(password) <= MAX_PASSWORD_LENGTH:
        async with conn_factory(writes=True) as conn:
            row = (await conn.execute(_reserve_attempt(normalized, now))).first()
            locked = row is None and (
                await conn.scalar(select(users.c.id).where(users.c.email == normalized)) is not None
                or (await conn.execute(_reserve_unknown(conn, normalized, now))).first() is None
            )
            if locked:
                raise TooManyAttempts("too many failed sign-ins for this account: try again in 15 minutes")
    stored = row.password_hash if row else _DUMMY_HASH
    async with slots.for_sign_in():
        ok = await asyncio.to_thread(verify_password, stored, password[:MAX_PASSWORD_LENGTH])
    if row is None or not ok:
        raise Unauthorized("wrong email or password")
    # Right: the reserved failure, and any before it, are forgiven.
    async with conn_factory(writes=True) as conn:
        await conn.execute(update(users).where(users.c.id == row.id).values(failed_sign_ins=0))
    return row.id


async def sign_in(conn: AsyncConnection, *, user_id: str, org_slug: str, lifetime: int, now: datetime) -> SessionView:
    orgs = await list_organizations(conn, user_id)
    if not orgs:
        raise Unauthorized("this account belongs to no organization")
    org = orgs[0] if not org_slug else next((o for o in orgs if o.slug == org_slug), None)
    if org is None:
        raise NotFound(f"you are not a member of {org_slug!r}")
    email = await conn.scalar(select(users.c.email).where(users.c.id == user_id))
    return await _open_session(conn, user_id, email, org, lifetime, now)


async def _open_session(
    conn: AsyncConnection, user_id: str, email: str, org: OrganizationView, lifetime: int, now: datetime
) -> SessionView:
    minted = mint_token(SESSION_PREFIX)
    session_id = new_id("ses")
    expires_at = now + timedelta(seconds=lifetime)
    await conn.execute(
        insert(sessions).values(
            id=session_id,
            token_hash=minted.token_hash,
            user_id=user_id,
            org_id=org.id,
            created_at=now,
            expires_at=expires_at,
        )
    )
    return SessionView(minted.token, session_id, user_id, email, org, expires_at)


async def sign_out(conn: AsyncConnection, principal: Principal, now: datetime) -> None:
    await conn.execute(
        update(sessions)
        .where(sessions.c.id == principal.credential_id, sessions.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )


async def list_organizations(conn: AsyncConnection, user_id: str) -> list[OrganizationView]:
    rows = await conn.execute(
        select(organizations.c.id, organizations.c.slug, memberships.c.role, organizations.c.plan)
        .select_from(memberships.join(organizations, organizations.c.id == memberships.c.org_id))
        .where(memberships.c.user_id == user_id)
        .order_by(organizations.c.slug)
    )
    return [OrganizationView(r.id, r.slug, r.role, r.plan) for r in rows]


async def member_organization(conn: AsyncConnection, user_id: str, org_slug: str) -> OrganizationView:
    """The user's organization of that slug; NOT_FOUND when the user is not a member."""
    for org in await list_organizations(conn, user_id):
        if org.slug == org_slug:
            return org
    raise NotFound(f"you are not a member of {org_slug!r}")


async def switch_organization(conn: AsyncConnection, principal: Principal, org_slug: str) -> OrganizationView:
    org = await member_organization(conn, principal.user_id, org_slug)
    await conn.execute(update(sessions).where(sessions.c.id == principal.credential_id).values(org_id=org.id))
    return org
