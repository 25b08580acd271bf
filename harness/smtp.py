"""A real SMTP server on a loopback port, for the tests of anything Herald mails (core/mail).

aiosmtpd's Controller runs the server in a thread of its own; `MailServer` keeps what it receives
(each message parsed, with its envelope and the user who logged in) and can refuse recipients
with a 5xx answer, require a login, speak TLS (STARTTLS or from the first byte), and be stopped
and started again on the same port (a relay that is down for a while). Tests wait for a message
with `wait_for`:

    with MailServer(login=("herald", "secret")) as smtp:
        ...  # a worker with HERALD_SMTP_URL=smtp.url
        received = await smtp.wait_for("ann@example.com")
        assert received.message["Subject"] == "…"
"""

from __future__ import annotations

import asyncio
import email.policy
import ssl
import threading
import time
from dataclasses import dataclass
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any, Literal
from urllib.parse import quote

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from harness.stack import free_port

Security = Literal["plain", "starttls", "tls"]
SCHEMES = {"plain": "smtp", "starttls": "smtp+starttls", "tls": "smtps"}


@dataclass(frozen=True)
class Received:
    sender: str  # the envelope's (MAIL FROM)
    recipients: tuple[str, ...]  # the envelope's (RCPT TO)
    message: EmailMessage
    login: str | None  # the user who logged in, if any
    tls: bool  # whether the connection was encrypted

    @property
    def body(self) -> str:
        return self.message.get_content()


class MailServer:
    """An SMTP server on 127.0.0.1 (on `port`, or a free one). `login`: the only (user, password)
    accepted, and then required before MAIL (530 without); `security` with `tls`: a server context (see
    tests/tls_certs.py) for STARTTLS (required) or TLS from the first byte, whose certificate names
    `name`, the host the URL gives (one that resolves to 127.0.0.1: `localhost`)."""

    def __init__(
        self,
        *,
        port: int | None = None,
        login: tuple[str, str] | None = None,
        security: Security = "plain",
        tls: ssl.SSLContext | None = None,
        name: str = "127.0.0.1",
    ) -> None:
        assert (security == "plain") == (tls is None), "a TLS server needs a context, and only it"
        self.port = port or free_port()
        self.login = login
        self.security = security
        self.tls = tls
        self.name = name
        # Recipients answered 550 (tests add theirs); every such RCPT is counted in `refusals`.
        self.refuse: set[str] = set()
        self.refusals: list[str] = []
        self._received: list[Received] = []
        self._lock = threading.Lock()
        self._controller: Controller | None = None

    @property
    def url(self) -> str:
        """HERALD_SMTP_URL for this server (the password percent-encoded)."""
        user = f"{quote(self.login[0], safe='')}:{quote(self.login[1], safe='')}@" if self.login else ""
        return f"{SCHEMES[self.security]}://{user}{self.name}:{self.port}"

    @property
    def received(self) -> list[Received]:
        with self._lock:
            return list(self._received)

    def to(self, address: str) -> list[Received]:
        """What arrived for `address` (an envelope recipient), in order."""
        return [r for r in self.received if address in r.recipients]

    async def wait_for(self, address: str, within: float = 30.0) -> Received:
        """The first message for `address`, once it arrived."""
        deadline = time.monotonic() + within
        while not self.to(address):
            assert time.monotonic() < deadline, f"no mail for {address} within {within} s"
            await asyncio.sleep(0.05)
        return self.to(address)[0]

    def start(self) -> MailServer:
        assert self._controller is None, "already running"
        smtp: dict[str, Any] = {"server_hostname": "smtp.test"}
        if self.login is not None:
            # Over STARTTLS, only once the line is encrypted (TLS from the first byte always is).
            # MAIL without a login is refused by the handler, not by aiosmtpd's `auth_required`,
            # which warns at each connection when a login may be sent in the clear.
            smtp.update(authenticator=self._authenticate, auth_require_tls=self.security == "starttls")
        if self.security == "starttls":
            smtp.update(tls_context=self.tls, require_starttls=True)
        controller = Controller(
            _Handler(self),
            hostname="127.0.0.1",
            port=self.port,
            ssl_context=self.tls if self.security == "tls" else None,
            **smtp,
        )
        controller.start()
        self._controller = controller
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def __enter__(self) -> MailServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _authenticate(self, server, session, envelope, mechanism: str, auth_data: Any) -> AuthResult:
        assert self.login is not None
        ok = (
            isinstance(auth_data, LoginPassword)
            and (
                auth_data.login.decode(),
                auth_data.password.decode(),
            )
            == self.login
        )
        return AuthResult(success=ok, handled=False, auth_data=auth_data)

    def _refused(self, address: str) -> bool:
        with self._lock:
            if address in self.refuse:
                self.refusals.append(address)
                return True
        return False

    def _keep(self, received: Received) -> None:
        with self._lock:
            self._received.append(received)


class _Handler:
    """aiosmtpd's handler hooks, on the server's thread."""

    def __init__(self, server: MailServer) -> None:
        self.server = server

    async def handle_MAIL(self, server, session, envelope, address: str, mail_options: list[str]) -> str:
        if self.server.login is not None and not session.authenticated:
            return "530 5.7.0 Authentication required"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address: str, rcpt_options: list[str]) -> str:
        if self.server._refused(address):
            return f"550 5.1.1 <{address}>: no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        message = BytesParser(policy=email.policy.default).parsebytes(envelope.content)
        login = session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None
        encrypted = server.transport.get_extra_info("ssl_object") is not None  # from the start, or STARTTLS
        self.server._keep(Received(envelope.mail_from, tuple(envelope.rcpt_tos), message, login, encrypted))
        return "250 2.0.0 Message accepted for delivery"
