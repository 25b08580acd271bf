"""Invitations (issue 32; docs/teams.md, "Invitations"): POST/GET/DELETE /v1/invitations, and the
link's use through the core as the invitation page uses it (GetInvitation, SignUpByInvitation for
a new person, AcceptInvitation for a signed-in one). A link is single-use, works 7 days, only for
the invited email, and a used, expired or revoked one says so."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc, members_pb2, members_pb2_grpc
from sqlalchemy import update

from core.db.models import invitations
from harness.oauth_flow import sign_in
from tests.core.rpc_helpers import error_info

PASSWORD = "a long enough password"


async def _invite(http, who, email: str, role: str = "editor") -> dict:
    response = await http.post("/v1/invitations", json={"email": email, "role": role}, headers=who.auth)
    assert response.status_code == 201, response.text
    return response.json()


def _token(created: dict) -> str:
    return created["url"].rsplit("/", 1)[1]


async def _refused(call, reason: str) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call
    assert error_info(refused.value).reason == reason, refused.value.details()
    return refused.value


async def test_an_invited_person_signs_up_through_the_link_and_joins_with_the_role(http, channel, stack, orgs) -> None:
    org = await orgs()
    email = f"new-{org.slug}@example.com"
    created = await _invite(http, org, f"  {email.upper()} ", "contributor")
    invitation = created["invitation"]
    assert created["url"].startswith(f"{stack.base_url}/invitations/hinv_") and created["emailed"] is False
    assert (invitation["email"], invitation["role"], invitation["state"], invitation["invited_by"]) == (
        email,
        "contributor",
        "pending",
        org.email,
    )
    listed = (await http.get("/v1/invitations", headers=org.auth)).json()["invitations"]
    assert [i["id"] for i in listed] == [invitation["id"]] and "url" not in listed[0]

    members = members_pb2_grpc.MemberServiceStub(channel)
    view = await members.GetInvitation(members_pb2.GetInvitationRequest(token=_token(created)))
    assert (view.organization_slug, view.email, view.role, view.state, view.has_account) == (
        org.slug,
        email,
        "contributor",
        "pending",
        False,
    )
    accounts = accounts_pb2_grpc.AccountServiceStub(channel)
    session = await accounts.SignUpByInvitation(
        accounts_pb2.SignUpByInvitationRequest(token=_token(created), password=PASSWORD)
    )
    assert (session.email, session.organization.slug, session.organization.role) == (email, org.slug, "contributor")
    roles = {m["email"]: m["role"] for m in (await http.get("/v1/members", headers=org.auth)).json()["members"]}
    assert roles == {org.email: "owner", email: "contributor"}
    # Used once: the link says so, and the list no longer shows it.
    await _refused(
        accounts.SignUpByInvitation(accounts_pb2.SignUpByInvitationRequest(token=_token(created), password=PASSWORD)),
        "INVITATION_CLOSED",
    )
    assert (await members.GetInvitation(members_pb2.GetInvitationRequest(token=_token(created)))).state == "accepted"
    assert (await http.get("/v1/invitations", headers=org.auth)).json()["invitations"] == []
    # The new member signs in with the password they chose.
    assert await sign_in(channel, email, password=PASSWORD)


async def test_a_person_with_an_account_signs_in_and_accepts_only_with_the_invited_email(http, channel, orgs) -> None:
    org, elsewhere, stranger = await orgs(), await orgs(), await orgs()
    created = await _invite(http, org, elsewhere.email, "viewer")
    members = members_pb2_grpc.MemberServiceStub(channel)
    assert (await members.GetInvitation(members_pb2.GetInvitationRequest(token=_token(created)))).has_account
    # Signing up with it is refused: the email has an account.
    accounts = accounts_pb2_grpc.AccountServiceStub(channel)
    await _refused(
        accounts.SignUpByInvitation(accounts_pb2.SignUpByInvitationRequest(token=_token(created), password=PASSWORD)),
        "CONFLICT",
    )
    # Someone else's session cannot use the link.
    other = (("authorization", f"Bearer {await sign_in(channel, stranger.email)}"),)
    await _refused(
        members.AcceptInvitation(members_pb2.AcceptInvitationRequest(token=_token(created)), metadata=other),
        "FORBIDDEN",
    )
    session = await sign_in(channel, elsewhere.email)
    mine = (("authorization", f"Bearer {session}"),)
    joined = await members.AcceptInvitation(members_pb2.AcceptInvitationRequest(token=_token(created)), metadata=mine)
    assert (joined.organization_slug, joined.role) == (org.slug, "viewer")
    # The session moved to the organization joined, with the role.
    listed = await members.ListMembers(members_pb2.ListMembersRequest(), metadata=mine)
    assert {(m.email, m.role) for m in listed.members} == {(org.email, "owner"), (elsewhere.email, "viewer")}
    await _refused(
        members.AcceptInvitation(members_pb2.AcceptInvitationRequest(token=_token(created)), metadata=mine),
        "INVITATION_CLOSED",
    )


async def test_expired_revoked_and_replaced_links_are_refused(http, channel, engine, orgs) -> None:
    org = await orgs()
    members = members_pb2_grpc.MemberServiceStub(channel)
    accounts = accounts_pb2_grpc.AccountServiceStub(channel)

    def use(created):
        return accounts.SignUpByInvitation(
            accounts_pb2.SignUpByInvitationRequest(token=_token(created), password=PASSWORD)
        )

    expired = await _invite(http, org, f"late-{org.slug}@example.com")
    async with engine.begin() as conn:
        await conn.execute(
            update(invitations)
            .where(invitations.c.id == expired["invitation"]["id"])
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
    failure = await _refused(use(expired), "INVITATION_CLOSED")
    assert ("state", "expired") in {(k, v) for k, v in error_info(failure).metadata.items()}
    listed = (await http.get("/v1/invitations", headers=org.auth)).json()["invitations"]
    assert [(i["id"], i["state"]) for i in listed] == [(expired["invitation"]["id"], "expired")]

    revoked = await _invite(http, org, f"gone-{org.slug}@example.com")
    answer = await http.delete(f"/v1/invitations/{revoked['invitation']['id']}", headers=org.auth)
    assert (answer.status_code, answer.json()["state"]) == (200, "revoked")
    again = await http.delete(f"/v1/invitations/{revoked['invitation']['id']}", headers=org.auth)
    assert (again.status_code, again.json()["code"], again.json()["state"]) == (410, "INVITATION_CLOSED", "revoked")
    await _refused(use(revoked), "INVITATION_CLOSED")

    # Inviting the same email again replaces the pending link.
    first = await _invite(http, org, f"twice-{org.slug}@example.com", "viewer")
    second = await _invite(http, org, f"twice-{org.slug}@example.com", "editor")
    await _refused(use(first), "INVITATION_CLOSED")
    assert (await use(second)).organization.role == "editor"
    # An unknown token is not found; nothing tells it apart from a malformed one.
    for token in ("hinv_nope", "nope", "hinv_" + "x" * 200):
        await _refused(members.GetInvitation(members_pb2.GetInvitationRequest(token=token)), "NOT_FOUND")


async def test_two_uses_of_one_link_at_once_make_one_member(http, channel, orgs) -> None:
    org = await orgs()
    created = await _invite(http, org, f"race-{org.slug}@example.com")
    accounts = accounts_pb2_grpc.AccountServiceStub(channel)
    request = accounts_pb2.SignUpByInvitationRequest(token=_token(created), password=PASSWORD)
    outcomes = await asyncio.gather(
        accounts.SignUpByInvitation(request), accounts.SignUpByInvitation(request), return_exceptions=True
    )
    succeeded = [o for o in outcomes if not isinstance(o, Exception)]
    assert len(succeeded) == 1, outcomes
    assert all(error_info(o).reason in ("INVITATION_CLOSED", "CONFLICT") for o in outcomes if isinstance(o, Exception))
    emails = [m["email"] for m in (await http.get("/v1/members", headers=org.auth)).json()["members"]]
    assert sorted(emails) == sorted([org.email, f"race-{org.slug}@example.com"])


async def test_who_may_invite(http, orgs) -> None:
    org = await orgs()
    admin, editor = await orgs.member(org, "admin"), await orgs.member(org, "editor")
    refused = await http.post("/v1/invitations", json={"email": "x@example.com", "role": "viewer"}, headers=editor.auth)
    assert (refused.status_code, refused.json()["permission"]) == (403, "manage_members")
    owner = await http.post("/v1/invitations", json={"email": "x@example.com", "role": "owner"}, headers=admin.auth)
    assert (owner.status_code, owner.json()["code"]) == (403, "FORBIDDEN")
    member = await http.post("/v1/invitations", json={"email": editor.email, "role": "viewer"}, headers=admin.auth)
    assert (member.status_code, member.json()["code"]) == (409, "CONFLICT")
    for body in ({"email": "not an email", "role": "viewer"}, {"email": "x@example.com", "role": "boss"}):
        bad = await http.post("/v1/invitations", json=body, headers=admin.auth)
        assert (bad.status_code, bad.json()["code"]) == (400, "VALIDATION_ERROR"), bad.text
    assert (await http.get("/v1/invitations", headers=admin.auth)).json()["invitations"] == []


async def test_an_account_with_no_organization_joins_with_its_password(http, channel, orgs) -> None:
    """Removed from its only organization, an account can still use an invitation: its password
    checked as sign-in checks it, and a session in the organization joined."""
    first, second = await orgs(), await orgs()
    leaving = await orgs.member(first, "editor")
    assert (await http.delete(f"/v1/members/{leaving.user_id}", headers=first.auth)).status_code == 200
    created = await _invite(http, second, leaving.email, "viewer")
    accounts = accounts_pb2_grpc.AccountServiceStub(channel)
    wrong = accounts_pb2.SignInByInvitationRequest(token=_token(created), password="not the password")
    await _refused(accounts.SignInByInvitation(wrong), "UNAUTHORIZED")
    right = accounts_pb2.SignInByInvitationRequest(token=_token(created), password="correct horse battery")
    session = await accounts.SignInByInvitation(right)
    assert (session.email, session.organization.slug, session.organization.role) == (
        leaving.email,
        second.slug,
        "viewer",
    )
    await _refused(accounts.SignInByInvitation(right), "INVITATION_CLOSED")
