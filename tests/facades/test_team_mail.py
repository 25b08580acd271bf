"""The team's mail when mail is configured (issue 32; docs/teams.md): a stack of its own with
HERALD_SMTP_URL and a worker that sends queued messages to a real SMTP server on loopback
(harness/smtp.py). An invitation's link arrives and works once; a mention arrives by the member's
choice; a sign-up confirms its address through the link it is sent before its organization may
publish. No request talks to the SMTP server itself."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import grpc
import httpx
import pytest
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc, identity_pb2, identity_pb2_grpc
from herald.posts.v1 import posts_pb2, posts_pb2_grpc

from core import admin
from harness.smtp import MailServer
from harness.stack import Stack, free_port, stop_processes
from tests.conftest import stack_of_its_own
from tests.core.rpc_helpers import error_info

PORT = free_port()
SENDER = "Herald <herald@example.test>"
PASSWORD = "a long enough password"
mailing = stack_of_its_own(
    "team-mail",
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


@pytest.mark.usefixtures("mail_worker")
async def test_a_sign_up_confirms_its_address_before_it_publishes(mailing, smtp, engine) -> None:
    email, slug = f"new-{uuid.uuid4().hex[:8]}@example.com", f"org-{uuid.uuid4().hex[:8]}"
    channel = grpc.aio.insecure_channel(mailing.core_target)
    accounts = accounts_pb2_grpc.AccountServiceStub(channel)
    await accounts.SignUp(accounts_pb2.SignUpRequest(email=email, password=PASSWORD, organization=slug))
    await admin.add_profile(engine, org=slug, slug="acme-x", platform="x", tags=[])
    session = (await accounts.SignIn(accounts_pb2.SignInRequest(email=email, password=PASSWORD))).token
    auth = (("authorization", f"Bearer {session}"),)
    identity = identity_pb2_grpc.IdentityServiceStub(channel)
    assert (await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=auth)).awaiting_verification
    stub = posts_pb2_grpc.PostServiceStub(channel)
    post = posts_pb2.CreatePostsRequest(content="hello", profiles=["acme-x"])
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.CreatePosts(post, metadata=auth)
    assert error_info(refused.value).reason == "EMAIL_NOT_VERIFIED"
    draft = posts_pb2.CreatePostsRequest(content="hello", profiles=["acme-x"], draft=True)
    assert (await stub.CreatePosts(draft, metadata=auth)).posts[0].status == posts_pb2.POST_STATUS_DRAFT

    received = await smtp.wait_for(email)
    link = next(word for word in received.body.split() if "/verify-email/" in word)
    assert link.startswith(f"{mailing.base_url}/verify-email/hev_")
    async with httpx.AsyncClient(timeout=30) as http:
        page = await http.get(link)
        assert page.status_code == 200 and "confirmed" in page.text
        assert (await http.get(link)).status_code == 404  # used once
    assert not (await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=auth)).awaiting_verification
    assert (await stub.CreatePosts(post, metadata=auth)).posts[0].status == posts_pb2.POST_STATUS_QUEUED
    # Confirmed: nothing more to send.
    resent = await accounts.ResendVerification(accounts_pb2.ResendVerificationRequest(), metadata=auth)
    assert resent.sent is False and len(smtp.to(email)) == 1
    await channel.close()
