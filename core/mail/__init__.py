"""Outgoing mail (docs/mail.md): code queues a message with `send_later` in its own transaction,
and the workers send it over SMTP (HERALD_SMTP_URL) as a job of the lease queue. Mail is off
while HERALD_SMTP_URL is empty: `send_later` then records nothing and answers False."""

from __future__ import annotations

from core.mail.outgoing import MailRecord, get_mail, mail_to, send_later

__all__ = ["MailRecord", "get_mail", "mail_to", "send_later"]
