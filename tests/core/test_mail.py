"""Outgoing mail (core/mail, docs/mail.md) against a real SMTP server on loopback (harness/smtp.py)
and real worker processes, on both databases (the message and its job are rows of the lease
queue): a queued message arrives as it was written, a server down for the first attempts gets it
once it is back (exactly once), a 5xx refusal fails it after one attempt, two workers send each
message once, mail off records nothing, and the SMTP password reaches no log of a stack that
runs with it at DEBUG."""

from __future__ import annotations

import asyncio
import base64
import email.utils
import subprocess
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import quote

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.models import jobs, outgoing_mail
from core.db.types import utcnow
from core.errors import ValidationError
from core.mail import MailRecord, mail_to, send_later
from core.settings import CoreSettings
from harness.smtp import MailServer
from harness.stack import Stack, free_port, stack_env, stop_processes

LOGIN = ("herald", f"pa55/w?rd&{uuid.uuid4().hex}")  # characters the URL must percent-encode
PORT = free_port()
URL = MailServer(port=PORT, login=LOGIN).url
SENDER = "Herald Tests <herald@example.test>"
ON = CoreSettings(smtp_url=URL, mail_from=SENDER)
OFF = CoreSettings(smtp_url="")


@pytest.fixture(scope="module")
def mail_stack(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Workers alone (nothing here calls the core) on the session's database, each with mail on,
    logging everything, retrying failed attempts within tenths of a second."""
    workdir = tmp_path_factory.mktemp("mail")
    env = stack_env(
        database_url,
        workdir,
        HERALD_SMTP_URL=URL,
        HERALD_MAIL_FROM=SENDER,
        HERALD_LOG_LEVEL="DEBUG",
        HERALD_JOBS_POLL_SECONDS="0.05",
        HERALD_JOBS_BACKOFF_SECONDS="0.2",
        HERALD_JOBS_BACKOFF_CAP_SECONDS="0.4",
    )
    stack = Stack(database_url, workdir, core_target="", base_url="", env=env)
    yield stack
    stop_processes(stack.processes)


@pytest.fixture(scope="module")
def smtp(mail_stack: Stack) -> Iterator[MailServer]:
    with MailServer(port=PORT, login=LOGIN) as server:
        yield server


def start_worker(stack: Stack, name: str) -> subprocess.Popen:
    """A worker of the stack (its settings: mail on, DEBUG), once its job loop runs."""
    proc = stack.spawn("core", "worker", log_name=name)
    log = stack.workdir / f"{name}.log"
    deadline = time.monotonic() + 60
    while "running jobs" not in (log.read_text(errors="replace") if log.exists() else ""):
        assert proc.poll() is None and time.monotonic() < deadline, stack.logs()
        time.sleep(0.05)
    return proc


@pytest.fixture(scope="module")
def mail_worker(mail_stack: Stack, smtp: MailServer) -> Iterator[None]:
    proc = start_worker(mail_stack, "mail-worker")
    yield
    stop_processes([proc])


def read_logs(stack: Stack) -> dict[str, str]:
    return {p.name: p.read_text(errors="replace") for p in stack.workdir.glob("*.log")}


def address(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:10]}@example.com"


async def queue(
    engine: AsyncEngine,
    to: str,
    *,
    settings: CoreSettings = ON,
    kind: str = "invitation",
    subject: str = "Join Acme on Herald",
    text: str = "Your link: https://herald.example/i/x",
    org_id: str | None = None,
) -> bool:
    async with engine.begin() as conn:
        return await send_later(
            conn, to=to, subject=subject, text=text, now=utcnow(), org_id=org_id, kind=kind, settings=settings
        )


async def only_mail(engine: AsyncEngine, to: str) -> MailRecord:
    async with engine.connect() as conn:
        found = await mail_to(conn, to)
    assert len(found) == 1, found
    return found[0]


async def until(engine: AsyncEngine, to: str, done, within: float = 30.0) -> MailRecord:
    """The message to `to` once `done(it)` holds (polled)."""
    deadline = time.monotonic() + within
    while not done(mail := await only_mail(engine, to)):
        assert time.monotonic() < deadline, f"still {mail}"
        await asyncio.sleep(0.05)
    return mail


def finished(mail: MailRecord) -> bool:
    return mail.status != "queued"


async def test_a_queued_message_arrives_as_it_was_written(orgs, engine, smtp, mail_worker) -> None:
    org = await orgs()
    to = address("ann")
    subject = "Rejoignez l’équipe Acme — on Herald"
    text = "Bonjour Ann,\n\nZoë invited you to Acme: https://herald.example/invitations/hinv_abc\n\n— Herald\n"
    assert await queue(engine, f"Ann Example <{to}>", org_id=org.org_id, subject=subject, text=text)

    received = await smtp.wait_for(to)
    message = received.message
    assert (message["From"], message["To"], message["Subject"]) == (SENDER, f"Ann Example <{to}>", subject)
    assert received.body.replace("\r\n", "\n") == text
    assert (message.get_content_type(), message.get_content_charset()) == ("text/plain", "utf-8")
    assert (received.sender, received.recipients, received.login) == ("herald@example.test", (to,), "herald")
    mail = await until(engine, f"Ann Example <{to}>", finished)
    assert message["Message-ID"] == f"<{mail.id}@example.test>"
    assert abs(email.utils.parsedate_to_datetime(message["Date"]) - mail.created_at) < timedelta(seconds=1)
    assert (mail.status, mail.attempts, mail.last_error, mail.org_id) == ("sent", 1, "", org.org_id)
    assert mail.sent_at is not None and mail.sent_at >= mail.created_at
    async with engine.connect() as conn:  # the body (an invitation's link) is not kept once sent
        assert (await conn.execute(select(outgoing_mail.c.body).where(outgoing_mail.c.id == mail.id))).scalar() == ""


async def test_mail_about_no_organization_is_sent_too(engine, smtp, mail_worker) -> None:
    to = address("verify")
    assert await queue(engine, to, kind="email_verification", subject="Confirm your address", text="Code: 123456")
    assert (await smtp.wait_for(to)).body.strip() == "Code: 123456"
    mail = await until(engine, to, finished)
    assert (mail.status, mail.kind, mail.org_id) == ("sent", "email_verification", None)


async def test_a_server_down_for_the_first_attempts_gets_the_message_once_back(engine, smtp, mail_worker) -> None:
    to = address("outage")
    smtp.stop()
    try:
        assert await queue(engine, to)
        waiting = await until(engine, to, lambda m: m.attempts >= 2)
        assert waiting.status == "queued"
        assert waiting.last_error.startswith(f"SMTP_UNREACHABLE: smtp://herald@127.0.0.1:{PORT}")
        assert smtp.to(to) == []
    finally:
        smtp.start()
    await smtp.wait_for(to)
    mail = await until(engine, to, finished)
    assert (mail.status, mail.last_error) == ("sent", "")
    assert mail.attempts >= 3
    await asyncio.sleep(1.5)  # several backoffs: nothing sends it again
    assert len(smtp.to(to)) == 1


async def test_a_5xx_refusal_fails_the_message_for_good(engine, smtp, mail_worker) -> None:
    to = address("nobody")
    smtp.refuse.add(to)
    assert await queue(engine, to)
    mail = await until(engine, to, finished)
    assert (mail.status, mail.attempts, mail.sent_at) == ("failed", 1, None)
    assert mail.last_error.startswith("SMTP_REFUSED: 550 5.1.1")
    async with engine.connect() as conn:
        job = (await conn.execute(select(jobs.c.status, jobs.c.attempts).where(jobs.c.subject_id == mail.id))).one()
    assert tuple(job) == ("failed", 1)
    await asyncio.sleep(1.5)  # several backoffs: no second attempt
    assert smtp.refusals.count(to) == 1
    assert smtp.to(to) == []


async def test_two_workers_send_each_message_once(engine, mail_stack, smtp, mail_worker) -> None:
    second = start_worker(mail_stack, "mail-worker-2")
    try:
        recipients = [address(f"batch{i}") for i in range(12)]
        for to in recipients:
            assert await queue(engine, to)
        for to in recipients:
            await smtp.wait_for(to)
            assert (await until(engine, to, finished)).status == "sent"
        await asyncio.sleep(1.0)
        assert [len(smtp.to(to)) for to in recipients] == [1] * len(recipients)
    finally:
        stop_processes([second])


async def test_mail_off_records_nothing(engine) -> None:
    to = address("off")

    async def count(table, where) -> int:
        async with engine.connect() as conn:
            return (await conn.execute(select(func.count()).select_from(table).where(where))).scalar()

    jobs_before = await count(jobs, jobs.c.kind == "mail.send")
    assert await queue(engine, to, settings=OFF) is False
    assert await count(outgoing_mail, outgoing_mail.c.recipient == to) == 0
    assert await count(jobs, jobs.c.kind == "mail.send") == jobs_before


@pytest.mark.parametrize(
    "to, subject",
    [("ann@example.com, bob@example.com", "Hi"), ("not an address", "Hi"), ("ann@example.com", "Hi\r\nBcc: x@y")],
)
async def test_a_malformed_address_or_subject_records_nothing(engine, to: str, subject: str) -> None:
    with pytest.raises(ValidationError):
        await queue(engine, to, subject=subject)
    async with engine.connect() as conn:
        assert await mail_to(conn, to) == []


async def test_the_smtp_password_reaches_no_log(engine, mail_stack, smtp, mail_worker) -> None:
    """Last in the module: the logs hold whatever ran before it too (an unreachable server's attempts)."""
    sent, refused = address("logged"), address("refused")
    smtp.refuse.add(refused)
    assert await queue(engine, sent) and await queue(engine, refused)
    assert (await smtp.wait_for(sent)).login == "herald"
    await until(engine, refused, finished)

    user, password = LOGIN
    forms = {
        password,
        quote(password, safe=""),
        base64.b64encode(f"\0{user}\0{password}".encode()).decode(),  # AUTH PLAIN
        base64.b64encode(password.encode()).decode(),  # AUTH LOGIN
    }
    logs = read_logs(mail_stack)
    assert f"sending mail through smtp://herald@127.0.0.1:{PORT} as {SENDER}" in logs["mail-worker.log"]
    assert "SMTP_REFUSED: 550" in logs["mail-worker.log"]
    assert [(name, form[:6]) for name, text in logs.items() for form in forms if form in text] == []
    async with engine.connect() as conn:
        errors = [*(await conn.execute(select(jobs.c.last_error))).scalars()]
        errors += (await conn.execute(select(outgoing_mail.c.last_error))).scalars()
    assert any(errors) and not [e for e in errors for form in forms if form in e]
