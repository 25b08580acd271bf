"""What HERALD_SMTP_URL and HERALD_MAIL_FROM say (docs/operations.md, "Mail"): the SMTP server
Herald submits its mail to, and the address mail comes from.

The URL carries the server's password, so nothing here ever puts the URL itself in a message:
an invalid one is an `SmtpUrlError` naming what is wrong with it, and a parsed one (`SmtpServer`)
shows itself without the password. `SmtpUrlError` is not a ValueError on purpose: raised from a
settings validator, a ValueError becomes pydantic's validation error, which quotes the input
whole.
"""

from __future__ import annotations

import email.policy
from dataclasses import dataclass, field
from email.headerregistry import Address
from typing import Literal
from urllib.parse import quote, unquote, urlsplit

from pydantic import SecretStr

Security = Literal["plain", "starttls", "tls"]

# Each scheme: how the connection is secured, and the port when the URL names none.
SCHEMES: dict[str, tuple[Security, int]] = {
    "smtp": ("plain", 25),  # no TLS at all: a relay on this machine or a private network
    "smtp+starttls": ("starttls", 587),  # plain, then STARTTLS (required), as submission servers want
    "smtps": ("tls", 465),  # TLS from the first byte
}


class SmtpUrlError(Exception):
    """HERALD_SMTP_URL cannot be used; the message never repeats the URL."""


@dataclass(frozen=True, slots=True)
class SmtpServer:
    scheme: str
    security: Security
    host: str
    port: int
    username: str = ""
    password: SecretStr = field(default=SecretStr(""), repr=False)

    def __str__(self) -> str:
        """The URL without its password: what logs say mail is sent through."""
        user = f"{quote(self.username, safe='')}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{user}{host}:{self.port}"


def parse_smtp_url(url: str) -> SmtpServer:
    """`smtp://`, `smtp+starttls://` or `smtps://`, then `user:password@` (percent-encoded) if the
    server wants a login, then the host and an optional port."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # its message may quote the port, never the password: ours says less
        raise SmtpUrlError("HERALD_SMTP_URL is not a URL with a valid port") from None
    if parts.scheme not in SCHEMES:
        raise SmtpUrlError(f"HERALD_SMTP_URL must start with {', '.join(f'{s}://' for s in SCHEMES)}")
    if not parts.hostname:
        raise SmtpUrlError("HERALD_SMTP_URL names no host")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise SmtpUrlError("HERALD_SMTP_URL takes no path, query or fragment")
    username, password = unquote(parts.username or ""), unquote(parts.password or "")
    if bool(username) != bool(password):
        raise SmtpUrlError("HERALD_SMTP_URL must name both a user and a password, or neither")
    security, default_port = SCHEMES[parts.scheme]
    return SmtpServer(parts.scheme, security, parts.hostname, port or default_port, username, SecretStr(password))


def one_address(value: str) -> Address | None:
    """`value` as one address (`ann@example.com`, `Ann <ann@example.com>`), or None when it is not
    exactly one well-formed address on one line."""
    if "\r" in value or "\n" in value:
        return None
    try:
        header = email.policy.default.header_factory("To", value)
        addresses = header.addresses
    except Exception:  # the parser raises more than its defects for some inputs ("ann@")
        return None
    if header.defects or len(addresses) != 1 or not addresses[0].username or not addresses[0].domain:
        return None
    return addresses[0]


def default_sender(host: str) -> str:
    """`Herald <herald@host>` for the base URL's host (an IP address as a domain literal)."""
    host = host or "localhost"
    domain = f"[{host}]" if host.replace(".", "").isdigit() or ":" in host else host
    return f"Herald <herald@{domain}>"
