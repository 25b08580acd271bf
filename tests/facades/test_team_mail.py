"""An invitation is emailed when mail is configured (issue 32; docs/teams.md, "Invitations"): a
stack of its own with HERALD_SMTP_URL, a worker that sends the queued message to a real SMTP server
on loopback (harness/smtp.py), and the link in the message is the one the inviter was shown, which
works once. The request itself never talks to the SMTP server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import grpc
import httpx
import pytest
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc

from harness.smtp import MailServer
from harness.stack import Stack, free_port, stop_processes
from tests.conftest import stack_of_its_own

PORT = free_port()
SENDER = "Herald <herald@example.test>"
mailing = stack_of_its_own(
    "invitation-mail",
    HERALD_SMTP_URL=MailServer(port=PORT).url,
    HERALD_MAIL_FROM=SENDER,
    HERALD_JOBS_POLL_SECONDS="0.05",
)


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with MailServer(port=PORT) as server:
        yield server


@pytest.fixture(scope="module")
def mail_worker(mailing: Stack, smtp: MailServer) -> Iterator[None]:
    proc = mailing.spawn("core", "worker", log_name="invitation-mail-worker")
    yield
    stop_processes([proc])


@pytest.mark.usefixtures("mail_worker")
async def test_the_invitation_link_arrives_by_email_and_works_once(mailing, smtp, orgs) -> None:
    org = await orgs()
    email = f"mailed-{org.slug}@example.com"
    async with httpx.AsyncClient(base_url=mailing.base_url, timeout=30) as http:
        created = await http.post("/v1/invitations", json={"email": email, "role": "editor"}, headers=org.auth)
        assert created.status_code == 201, created.text
        assert created.json()["emailed"] is True
        url = created.json()["url"]
    received = await smtp.wait_for(email)
    message = received.message
    assert (message["From"], message["To"], message["Subject"]) == (SENDER, email, f"Join {org.slug} on Herald")
    assert url in received.body and f"{org.email} invited you" in received.body and "editor" in received.body
    # The link in the mail is the one that works, once.
    channel = grpc.aio.insecure_channel(mailing.core_target)
    accounts = accounts_pb2_grpc.AccountServiceStub(channel)
    token = url.rsplit("/", 1)[1]
    session = await accounts.SignUpByInvitation(
        accounts_pb2.SignUpByInvitationRequest(token=token, password="a long enough password")
    )
    assert (session.email, session.organization.role) == (email, "editor")
    await channel.close()
    assert len(smtp.to(email)) == 1


@pytest.mark.usefixtures("mail_worker")
async def test_a_mention_is_emailed_by_the_members_choice(mailing, smtp, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "acme-x")
    editor = await orgs.member(org, "editor")
    async with httpx.AsyncClient(base_url=mailing.base_url, timeout=30) as http:
        post = (
            await http.post(
                "/v1/posts", json={"content": "hi", "profiles": ["acme-x"], "draft": True}, headers=org.auth
            )
        ).json()["posts"][0]
        said = await http.post(
            f"/v1/posts/{post['id']}/comments", json={"body": f"@{editor.email} have a look"}, headers=org.auth
        )
        assert said.status_code == 201, said.text
        received = await smtp.wait_for(editor.email)
        assert received.message["Subject"].startswith(f"[{org.slug}] {org.email} mentioned you")
        assert f"{mailing.base_url}/dashboard/posts/{post['id']}" in received.body
        # Turned off by email: the next mention is in the inbox only.
        await http.patch(
            "/v1/notification-settings",
            json={"channels": [{"kind": "mentioned", "inbox": True, "email": False}]},
            headers=editor.auth,
        )
        await http.post(f"/v1/posts/{post['id']}/comments", json={"body": f"@{editor.email} again"}, headers=org.auth)
        inbox = (await http.get("/v1/notifications", headers=editor.auth)).json()
        assert [n["kind"] for n in inbox["notifications"]] == ["mentioned", "mentioned"]
    await asyncio.sleep(1.0)  # the worker polls every 50 ms: a second mail would be here by now
    assert len(smtp.to(editor.email)) == 1
