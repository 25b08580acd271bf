"""Mail over TLS (docs/operations.md, "Mail"): a worker submits through STARTTLS
(`smtp+starttls://`) or TLS from the first byte (`smtps://`) to a server whose certificate it
trusts, logging in only on the encrypted line; to a server whose certificate it does not trust it
sends nothing, and gives the message up after its attempts."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from core.db.types import utcnow
from core.mail import MailRecord, mail_to, send_later
from core.mail.outgoing import MAX_ATTEMPTS
from core.settings import CoreSettings
from harness.smtp import MailServer
from harness.stack import Stack, stack_env, stop_processes
from tests.tls_certs import CertificateAuthority

# TLS is the SMTP client's and the server's business: the database decides nothing here.
pytestmark = pytest.mark.one_backend

LOGIN = ("herald", f"tls-{uuid.uuid4().hex}")


@pytest.fixture(scope="module")
def authority() -> CertificateAuthority:
    return CertificateAuthority.create()


@pytest.fixture
def ca_file(authority: CertificateAuthority, tmp_path: Path) -> Path:
    """The authority as a CA bundle (SSL_CERT_FILE: OpenSSL's default trust, which aiosmtplib uses)."""
    path = tmp_path / "ca.pem"
    path.write_bytes(authority.certificate.public_bytes(serialization.Encoding.PEM))
    return path


@pytest.fixture
def workers(database_url: str, tmp_path: Path) -> Iterator[Stack]:
    """Workers alone on the session's database; each test starts its own with its settings."""
    stack = Stack(database_url, tmp_path, core_target="", base_url="", env=stack_env(database_url, tmp_path))
    yield stack
    stop_processes(stack.processes)


async def queued(engine, server: MailServer) -> str:
    to = f"tls-{uuid.uuid4().hex[:10]}@example.com"
    async with engine.begin() as conn:
        assert await send_later(
            conn,
            to=to,
            subject="Over TLS",
            text="Encrypted on the way.",
            now=utcnow(),
            org_id=None,
            kind="notification",
            settings=CoreSettings(smtp_url=server.url),
        )
    return to


async def finished(engine, to: str, within: float = 30.0) -> MailRecord:
    deadline = time.monotonic() + within
    while True:
        async with engine.connect() as conn:
            (mail,) = await mail_to(conn, to)
        if mail.status != "queued":
            return mail
        assert time.monotonic() < deadline, mail
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("security", ["starttls", "tls"])
async def test_mail_goes_out_encrypted_to_a_trusted_server(
    engine, workers: Stack, authority: CertificateAuthority, ca_file: Path, security: str
) -> None:
    tls = authority.server_context("localhost")
    with MailServer(login=LOGIN, security=security, tls=tls, name="localhost") as server:
        workers.start_worker(HERALD_SMTP_URL=server.url, SSL_CERT_FILE=str(ca_file), HERALD_JOBS_POLL_SECONDS="0.05")
        to = await queued(engine, server)
        received = await server.wait_for(to)
        assert (received.tls, received.login, received.body.strip()) == (True, "herald", "Encrypted on the way.")
        assert (await finished(engine, to)).status == "sent"


async def test_nothing_goes_to_a_server_whose_certificate_is_not_trusted(
    engine, workers: Stack, authority: CertificateAuthority
) -> None:
    tls = authority.server_context("localhost")  # signed by an authority the worker does not trust
    with MailServer(login=LOGIN, security="starttls", tls=tls, name="localhost") as server:
        workers.start_worker(
            HERALD_SMTP_URL=server.url,
            HERALD_JOBS_POLL_SECONDS="0.05",
            HERALD_JOBS_BACKOFF_SECONDS="0.01",
            HERALD_JOBS_BACKOFF_CAP_SECONDS="0.01",
        )
        to = await queued(engine, server)
        mail = await finished(engine, to)
        assert (mail.status, mail.attempts) == ("failed", MAX_ATTEMPTS)
        assert mail.last_error.startswith("SMTP_UNREACHABLE: smtp+starttls://herald@localhost:")
        assert "CERTIFICATE_VERIFY_FAILED" in mail.last_error
        assert server.received == []
