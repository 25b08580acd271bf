"""HERALD_SMTP_URL and HERALD_MAIL_FROM (docs/operations.md, "Mail"), read from the environment
as every process reads them: the three schemes and their ports, a login percent-encoded, mail off
when empty, and the password in no repr, no log form of the server and no error, a process's
refusal to start included."""

from __future__ import annotations

import subprocess
import sys

import pytest

from core.mail.config import SmtpUrlError
from core.settings import CoreSettings
from harness.stack import ROOT

PASSWORD = "hunter2-p@ss/word"


def settings(monkeypatch: pytest.MonkeyPatch, **env: str) -> CoreSettings:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return CoreSettings()


@pytest.mark.parametrize(
    "url, expected",
    [
        ("smtp://127.0.0.1:2525", ("plain", "127.0.0.1", 2525, "")),
        ("smtp://relay.internal", ("plain", "relay.internal", 25, "")),
        (
            "smtp+starttls://herald:hunter2-p%40ss%2Fword@mail.example.com",
            ("starttls", "mail.example.com", 587, "herald"),
        ),
        ("smtps://herald%40example.com:x@mail.example.com/", ("tls", "mail.example.com", 465, "herald@example.com")),
        ("smtps://[::1]:4650", ("tls", "::1", 4650, "")),
    ],
)
def test_the_url_names_the_server(monkeypatch, url: str, expected: tuple) -> None:
    server = settings(monkeypatch, HERALD_SMTP_URL=url).smtp_server
    assert (server.security, server.host, server.port, server.username) == expected


def test_the_password_is_read_but_never_shown(monkeypatch) -> None:
    url = "smtp+starttls://herald:hunter2-p%40ss%2Fword@mail.example.com:587"
    configured = settings(monkeypatch, HERALD_SMTP_URL=url)
    server = configured.smtp_server
    assert server.password.get_secret_value() == PASSWORD
    assert str(server) == "smtp+starttls://herald@mail.example.com:587"
    at = settings(monkeypatch, HERALD_SMTP_URL="smtps://herald%40example.com:hunter2@[::1]").smtp_server
    assert str(at) == "smtps://herald%40example.com@[::1]:465"
    for shown in (repr(configured), str(configured), repr(server), str(server)):
        assert "hunter2" not in shown


def test_mail_is_off_by_default(monkeypatch) -> None:
    monkeypatch.delenv("HERALD_SMTP_URL", raising=False)
    assert CoreSettings().smtp_server is None
    assert settings(monkeypatch, HERALD_SMTP_URL="  ").smtp_server is None


@pytest.mark.parametrize(
    "url, says",
    [
        ("http://herald:hunter2@mail.example.com", "must start with smtp://"),
        ("smtp://herald:hunter2@mail.example.com:99999", "valid port"),
        ("smtp://herald:hunter2@mail.example.com:abc", "valid port"),
        ("smtp://herald:hunter2@", "names no host"),
        ("smtp://herald:hunter2@mail.example.com/inbox?x=1", "no path, query or fragment"),
        ("smtp://:hunter2@mail.example.com", "both a user and a password"),
    ],
)
def test_an_invalid_url_is_refused_without_repeating_it(monkeypatch, url: str, says: str) -> None:
    with pytest.raises(SmtpUrlError) as refused:
        settings(monkeypatch, HERALD_SMTP_URL=url)
    assert says in str(refused.value) and "hunter2" not in str(refused.value)


def test_a_process_with_an_invalid_url_does_not_start_and_does_not_print_it(tmp_path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HERALD_DATA_DIR": str(tmp_path),
        "HERALD_SMTP_URL": "smtpx://herald:hunter2@mail.example.com",
    }
    done = subprocess.run(
        [sys.executable, "-m", "core", "migrate"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "HERALD_SMTP_URL must start with smtp://" in done.stderr
    assert "hunter2" not in done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == []  # it stopped before anything


def test_the_sender_defaults_to_herald_at_the_base_urls_host(monkeypatch) -> None:
    assert settings(monkeypatch, HERALD_BASE_URL="https://herald.example.org").mail_sender == (
        "Herald <herald@herald.example.org>"
    )
    assert settings(monkeypatch, HERALD_BASE_URL="http://127.0.0.1:8080").mail_sender == "Herald <herald@[127.0.0.1]>"
    chosen = settings(monkeypatch, HERALD_MAIL_FROM="Acme Social <social@acme.example>")
    assert chosen.mail_sender == "Acme Social <social@acme.example>"


@pytest.mark.parametrize(
    "sender", ["a@example.com, b@example.com", "not an address", "x@example.com\nBcc: y@example.com"]
)
def test_the_sender_is_one_address(monkeypatch, sender: str) -> None:
    with pytest.raises(ValueError, match="HERALD_MAIL_FROM must be one address"):
        settings(monkeypatch, HERALD_MAIL_FROM=sender)
