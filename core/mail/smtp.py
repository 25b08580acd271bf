"""One message as it goes out, and its submission to the SMTP server (aiosmtplib).

A message is plain text in UTF-8 (the standard library's EmailMessage; aiosmtplib sends it 8-bit
where the server offers 8BITMIME and re-encodes it 7-bit where not). Its Message-ID is made of
its own id and its Date is when it was queued, so a message sent again after a worker died
mid-send is the same message to whoever deduplicates.

What the server answers decides what happens next (SMTP's own rule, RFC 5321 section 4.2.1):
a 4xx answer or no answer at all (a refused connection, a timeout, a dropped line) is worth
another attempt; a 5xx answer (an unknown recipient, a refused login) is final.
"""

from __future__ import annotations

import email.utils
from email.message import EmailMessage

import aiosmtplib

from core.jobs.runner import JobFailure
from core.mail.config import SmtpServer, one_address
from core.mail.outgoing import MailRecord

# One submission's deadline, well under the job lease (HERALD_JOBS_LEASE_SECONDS, 120 s): a slow
# server's attempt is over before another worker may take the message over.
TIMEOUT_SECONDS = 30.0
MAX_ERROR = 500


def compose(mail: MailRecord, body: str, sender: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = mail.recipient
    message["Subject"] = mail.subject
    message["Date"] = email.utils.format_datetime(mail.created_at)
    address = one_address(sender)  # checked by the settings
    message["Message-ID"] = f"<{mail.id}@{address.domain if address else 'localhost'}>"
    message.set_content(body, charset="utf-8")
    return message


async def submit(server: SmtpServer, message: EmailMessage) -> None:
    """Hands the message to the server; a JobFailure says why it was not taken and whether
    another attempt may help."""
    try:
        await aiosmtplib.send(
            message,
            hostname=server.host,
            port=server.port,
            username=server.username or None,
            password=server.password.get_secret_value() or None,
            use_tls=server.security == "tls",
            start_tls=server.security == "starttls",
            timeout=TIMEOUT_SECONDS,
        )
    except aiosmtplib.SMTPRecipientsRefused as refused:  # our one recipient
        raise _answered(refused.recipients[0].code, refused.recipients[0].message) from None
    except aiosmtplib.SMTPResponseException as answer:  # the login, the sender, the data, a greeting
        raise _answered(answer.code, answer.message) from None
    except aiosmtplib.SMTPNotSupported as error:  # no STARTTLS, or no SMTPUTF8 for such an address
        raise JobFailure("SMTP_NOT_SUPPORTED", _short(f"{server}: {error}"), retryable=False) from None
    except (aiosmtplib.SMTPException, OSError) as error:  # refused, unreachable, timed out, dropped
        reason = str(error) or type(error).__name__
        raise JobFailure("SMTP_UNREACHABLE", _short(f"{server}: {reason}"), retryable=True) from None


def _answered(code: int, text: str) -> JobFailure:
    final = 500 <= code < 600
    return JobFailure(
        "SMTP_REFUSED" if final else "SMTP_DEFERRED", _short(f"{code} {text}".strip()), retryable=not final
    )


def _short(text: str) -> str:
    return " ".join(text.split())[:MAX_ERROR]
