"""Queueing mail, and reading what became of it (docs/mail.md).

`send_later` records the message and its job in the caller's transaction, so a message exists
exactly when what it is about (an invitation) was committed, and nothing is sent inside a request:
a worker sends it (core/mail/jobs.py). With mail off it records nothing and says so, and the caller
shows what it would have mailed instead (an invitation's link, to copy).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import outgoing_mail
from core.db.models.mail import MAIL_KINDS
from core.errors import ValidationError
from core.ids import new_id
from core.jobs import queue
from core.mail.config import one_address
from core.settings import CoreSettings

# The job kind the workers send mail under.
JOB_KIND = "mail.send"
# Attempts before a message that keeps meeting a closed port or a 4xx answer fails: with the
# queue's default backoff (2 s doubling, at most 60 s between) about a quarter of an hour.
MAX_ATTEMPTS = 20
MAX_SUBJECT = 500


@dataclass(frozen=True, slots=True)
class MailRecord:
    id: str
    org_id: str | None
    kind: str
    recipient: str
    subject: str
    status: str  # queued, sent, failed
    attempts: int
    last_error: str
    created_at: datetime
    sent_at: datetime | None


async def send_later(
    conn: AsyncConnection,
    *,
    to: str,
    subject: str,
    text: str,
    now: datetime,
    org_id: str | None,
    kind: str,
    settings: CoreSettings | None = None,
) -> bool:
    """Queues one plain-text message to `to` in the caller's transaction: False, and nothing
    recorded, when mail is off. `settings` are the process's; by default those of the RPC being
    served (core/rpc/context.py), where the messages' callers run.

    A malformed address or subject is a VALIDATION_ERROR; an unknown `kind` a bug (ValueError)."""
    if settings is None:
        from core.rpc.context import current_call

        settings = current_call().settings
    if settings.smtp_server is None:
        return False
    if kind not in MAIL_KINDS:
        raise ValueError(f"unknown kind of mail {kind!r} (one of {', '.join(MAIL_KINDS)})")
    if one_address(to) is None:
        raise ValidationError(f"{to[:80]!r} is not one email address")
    if "\r" in subject or "\n" in subject or len(subject) > MAX_SUBJECT:
        raise ValidationError(f"a subject is one line of at most {MAX_SUBJECT} characters")
    mail_id = new_id("mail")
    await conn.execute(
        insert(outgoing_mail).values(
            id=mail_id,
            org_id=org_id,
            kind=kind,
            recipient=to,
            subject=subject,
            body=text,
            status="queued",
            attempts=0,
            last_error="",
            created_at=now,
            sent_at=None,
        )
    )
    await queue.enqueue(conn, JOB_KIND, mail_id, org_id, now, max_attempts=MAX_ATTEMPTS)
    return True


_RECORD = select(
    outgoing_mail.c.id,
    outgoing_mail.c.org_id,
    outgoing_mail.c.kind,
    outgoing_mail.c.recipient,
    outgoing_mail.c.subject,
    outgoing_mail.c.status,
    outgoing_mail.c.attempts,
    outgoing_mail.c.last_error,
    outgoing_mail.c.created_at,
    outgoing_mail.c.sent_at,
)


async def get_mail(conn: AsyncConnection, mail_id: str) -> MailRecord | None:
    row = (await conn.execute(_RECORD.where(outgoing_mail.c.id == mail_id))).one_or_none()
    return None if row is None else MailRecord(*row)


async def waiting(conn: AsyncConnection, mail_id: str) -> tuple[MailRecord, str] | None:
    """The message and its body while it waits to be sent; None once sent, failed or deleted."""
    row = (
        await conn.execute(
            _RECORD.add_columns(outgoing_mail.c.body).where(
                outgoing_mail.c.id == mail_id, outgoing_mail.c.status == "queued"
            )
        )
    ).one_or_none()
    return None if row is None else (MailRecord(*row[:-1]), row.body)


async def mail_to(conn: AsyncConnection, recipient: str) -> list[MailRecord]:
    """Every message to `recipient` (exactly as it was given), oldest first."""
    rows = await conn.execute(_RECORD.where(outgoing_mail.c.recipient == recipient).order_by(outgoing_mail.c.id))
    return [MailRecord(*row) for row in rows]
