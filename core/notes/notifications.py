"""Each member's notifications (docs/teams.md, "Comments and notifications"): made in the
transaction of what caused them (a worker's pass over events, a comment), once per fact
(`dedupe_key`), into the inbox and, by the member's choice, email (core/mail, sent by a worker).
Reading, marking read and the settings are the member's own: every query names the user and the
organization."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.engine import is_sqlite
from core.db.models import notification_settings, notifications, organizations, users
from core.errors import ValidationError
from core.ids import new_id
from core.mail import send_later
from core.notes.kinds import KINDS
from core.pagination import Page, encode_token
from core.settings import CoreSettings

MAX_MARKED = 200


@dataclass(frozen=True, slots=True)
class NotificationRecord:
    id: str
    kind: str
    text: str
    subject_id: str
    link: str
    created_at: datetime
    read_at: datetime | None


@dataclass(frozen=True, slots=True)
class Channel:
    kind: str
    inbox: bool
    email: bool


async def settings_of(conn: AsyncConnection, org_id: str, user_ids: list[str]) -> dict[str, dict[str, Channel]]:
    """Each user's channel per kind: their choice, else the kind's default."""
    chosen: dict[str, dict[str, Channel]] = {u: {} for u in user_ids}
    if user_ids:
        rows = await conn.execute(
            select(notification_settings).where(
                notification_settings.c.org_id == org_id, notification_settings.c.user_id.in_(user_ids)
            )
        )
        for r in rows:
            if r.kind in KINDS:
                chosen[r.user_id][r.kind] = Channel(r.kind, r.inbox, r.email)
    return {
        user: {kind: mine.get(kind, Channel(kind, k.inbox, k.email)) for kind, k in KINDS.items()}
        for user, mine in chosen.items()
    }


async def notify(
    conn: AsyncConnection,
    org_id: str,
    user_ids: list[str],
    kind: str,
    *,
    text: str,
    subject_id: str,
    link: str,
    dedupe_key: str,
    now: datetime,
    settings: CoreSettings,
) -> int:
    """The notification to each user, by their choice (inbox, email); a fact already told to a
    user (their dedupe_key) is not told again. How many inbox rows were made."""
    if kind not in KINDS:
        raise ValueError(f"unknown notification kind {kind!r}")  # a programming error
    users_ = list(dict.fromkeys(user_ids))
    if not users_:
        return 0
    channels = await settings_of(conn, org_id, users_)
    made = 0
    insert = sqlite_insert if is_sqlite(conn.engine) else pg_insert
    for user_id in users_:
        channel = channels[user_id][kind]
        if not channel.inbox and not channel.email:
            continue
        row = {
            "id": new_id("ntf"),
            "org_id": org_id,
            "user_id": user_id,
            "kind": kind,
            "text": text,
            "subject_id": subject_id,
            "link": link,
            "dedupe_key": dedupe_key[:128],
            "created_at": now,
            # Not for the inbox: kept (so it is told once), left out of the inbox.
            "read_at": None if channel.inbox else now,
            "inbox": channel.inbox,
        }
        inserted = await conn.execute(
            insert(notifications).values(**row).on_conflict_do_nothing().returning(notifications.c.id)
        )
        if inserted.first() is None:
            continue  # told before
        made += channel.inbox
        if channel.email:
            await _email(conn, org_id, user_id, kind, text, link, now, settings)
    return made


async def _email(
    conn: AsyncConnection, org_id: str, user_id: str, kind: str, text: str, link: str, now: datetime, settings
) -> None:
    row = (
        await conn.execute(
            select(users.c.email, organizations.c.name)
            .select_from(users.join(organizations, organizations.c.id == org_id))
            .where(users.c.id == user_id)
        )
    ).first()
    if row is None:
        return
    url = f"{settings.base_url.rstrip('/')}{link}" if link else settings.base_url
    body = f"{text}\n\n{url}\n\nYou get this because of your notification settings in {row.name}: {settings.base_url.rstrip('/')}/dashboard/notifications"
    await send_later(
        conn,
        to=row.email,
        subject=f"[{row.name}] {text[:150]}",
        text=body,
        now=now,
        org_id=org_id,
        kind="notification",
        settings=settings,
    )


def _token(r: NotificationRecord) -> str:
    return encode_token(f"{r.created_at.isoformat()}|{r.id}")


async def list_for(
    conn: AsyncConnection, org_id: str, user_id: str, page: Page, *, unread_only: bool
) -> tuple[list[NotificationRecord], str, int]:
    """The user's notifications, newest first, one page; the next page's token; the unread count."""
    n = notifications.c
    mine = and_(n.user_id == user_id, n.org_id == org_id, n.inbox)
    stmt = select(n.id, n.kind, n.text, n.subject_id, n.link, n.created_at, n.read_at).where(mine)
    if unread_only:
        stmt = stmt.where(n.read_at.is_(None))
    if page.after:
        at, _, last_id = page.after.partition("|")
        try:
            when = datetime.fromisoformat(at)
        except ValueError:
            raise ValidationError("page_token is malformed") from None
        stmt = stmt.where((n.created_at < when) | ((n.created_at == when) & (n.id < last_id)))
    rows = (await conn.execute(stmt.order_by(n.created_at.desc(), n.id.desc()).limit(page.size + 1))).all()
    found = [NotificationRecord(r.id, r.kind, r.text, r.subject_id, r.link, r.created_at, r.read_at) for r in rows]
    token = _token(found[page.size - 1]) if len(found) > page.size else ""
    return found[: page.size], token, await unread(conn, org_id, user_id)


async def unread(conn: AsyncConnection, org_id: str, user_id: str) -> int:
    n = notifications.c
    return (
        await conn.scalar(select(func.count()).where(n.user_id == user_id, n.org_id == org_id, n.read_at.is_(None)))
        or 0
    )


async def mark_read(
    conn: AsyncConnection, org_id: str, user_id: str, ids: list[str], *, everything: bool, now: datetime
) -> int:
    if len(ids) > MAX_MARKED:
        raise ValidationError(f"ids takes at most {MAX_MARKED} notifications; send all: true for every one")
    if not ids and not everything:
        raise ValidationError("send the ids to mark read, or all: true")
    n = notifications.c
    stmt = update(notifications).where(n.user_id == user_id, n.org_id == org_id, n.read_at.is_(None))
    if not everything:
        stmt = stmt.where(n.id.in_(ids))
    await conn.execute(stmt.values(read_at=now))
    return await unread(conn, org_id, user_id)


async def update_settings(conn: AsyncConnection, org_id: str, user_id: str, channels: list[Channel]) -> None:
    unknown = sorted({c.kind for c in channels} - set(KINDS))
    if unknown:
        raise ValidationError(f"unknown notification kinds: {', '.join(k[:40] for k in unknown)}")
    insert = sqlite_insert if is_sqlite(conn.engine) else pg_insert
    for c in channels:
        stmt = insert(notification_settings).values(
            user_id=user_id, org_id=org_id, kind=c.kind, inbox=c.inbox, email=c.email
        )
        await conn.execute(
            stmt.on_conflict_do_update(
                index_elements=["user_id", "org_id", "kind"], set_={"inbox": c.inbox, "email": c.email}
            )
        )
