"""The `mail.send` jobs (core/jobs/runner.py): a worker submits each queued message to the SMTP
server of HERALD_SMTP_URL. Only workers with mail on have this handler, so only they claim them.

Each attempt runs outside any transaction; its outcome is recorded fenced on the job's lease, in
the transaction that ends the job, so a message is marked sent or failed once even when two
workers ran it. A failed attempt that will be retried is noted on the message as it happens
(`attempts`, `last_error`: why it has not arrived yet); those notes are not fenced, and say no
more than the job's own row does. A worker that dies after the server took the message but
before recording it leaves the job to another, which sends it again, with the same Message-ID.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.db.engine import transaction
from core.db.models import outgoing_mail
from core.jobs.queue import Job
from core.jobs.runner import JobFailure
from core.mail import smtp
from core.mail.outgoing import JOB_KIND, MailRecord, waiting
from core.settings import CoreSettings

log = logging.getLogger(__name__)


class MailJobs:
    kind = JOB_KIND

    def __init__(self, settings: CoreSettings, engine: AsyncEngine) -> None:
        server = settings.smtp_server
        assert server is not None, "mail is off: no handler"
        self.server = server
        self.sender = settings.mail_sender
        self.engine = engine
        log.info("sending mail through %s as %s", server, self.sender)

    async def work(self, job: Job) -> bool:
        """True once the server took the message; False when there was nothing to send."""
        async with transaction(self.engine) as conn:
            found = await waiting(conn, job.subject_id)
        if found is None:
            return False  # gone with its organization, or recorded by a worker whose lease ran out
        mail, body = found
        try:
            await smtp.submit(self.server, smtp.compose(mail, body, self.sender))
        except JobFailure as failure:
            await self._note(mail, job, failure)
            raise
        return True

    async def _note(self, mail: MailRecord, job: Job, failure: JobFailure) -> None:
        again = failure.retryable and job.attempts < job.max_attempts
        log.warning(
            "mail %s: attempt %d of %d failed (%s: %s)%s",
            mail.id,
            job.attempts,
            job.max_attempts,
            failure.code,
            failure.message,
            "; trying again later" if again else "",
        )
        if again:
            async with transaction(self.engine, writes=True) as conn:
                await conn.execute(
                    _queued(mail.id).values(
                        attempts=job.attempts, last_error=f"{failure.code}: {failure.message}"[:500]
                    )
                )

    async def record(self, conn: AsyncConnection, job: Job, outcome: bool, now: datetime) -> None:
        if outcome:
            await conn.execute(
                _queued(job.subject_id).values(
                    status="sent", attempts=job.attempts, last_error="", sent_at=now, body=""
                )
            )

    async def give_up(self, conn: AsyncConnection, job: Job, failure: JobFailure, now: datetime) -> None:
        await conn.execute(
            _queued(job.subject_id).values(
                status="failed", attempts=job.attempts, last_error=f"{failure.code}: {failure.message}"[:500], body=""
            )
        )


def _queued(mail_id: str):  # an UPDATE statement
    """An update of the message while it waits (once sent or failed, it stays so)."""
    return update(outgoing_mail).where(outgoing_mail.c.id == mail_id, outgoing_mail.c.status == "queued")
