"""The organization's members (issue 32; docs/teams.md): GET /v1/members, PATCH and DELETE
/v1/members/{user_id}. Only an owner touches an owner, the last owner stays, a removed member's
key, agent token and session stop on their next request, and agents never change membership."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from herald.identity.v1 import members_pb2, members_pb2_grpc

from harness.oauth_flow import register, sign_in, tokens_for
from tests.core.rpc_helpers import error_info


async def _members(http, who) -> list[dict]:
    response = await http.get("/v1/members", headers=who.auth)
    assert response.status_code == 200, response.text
    return response.json()["members"]


async def test_members_are_listed_owners_first_then_by_email(http, orgs) -> None:
    org = await orgs()
    viewer = await orgs.member(org, "viewer", email=f"a-{org.slug}@example.com")
    editor = await orgs.member(org, "editor", email=f"b-{org.slug}@example.com")
    listed = await _members(http, viewer)
    assert [(m["email"], m["role"], m["you"]) for m in listed] == [
        (org.email, "owner", False),
        (viewer.email, "viewer", True),
        (editor.email, "editor", False),
    ]
    assert [m["user_id"] for m in listed] == [org.user_id, viewer.user_id, editor.user_id]
    assert all(m["joined_at"].endswith("Z") for m in listed)


async def test_an_admin_changes_roles_but_never_an_owners(http, orgs) -> None:
    org = await orgs()
    admin = await orgs.member(org, "admin")
    editor = await orgs.member(org, "editor")
    changed = await http.patch(f"/v1/members/{editor.user_id}", json={"role": "contributor"}, headers=admin.auth)
    assert (changed.status_code, changed.json()["role"], changed.json()["you"]) == (200, "contributor", False)
    # An admin neither makes an owner nor touches one.
    for user_id, role in ((editor.user_id, "owner"), (org.user_id, "viewer")):
        refused = await http.patch(f"/v1/members/{user_id}", json={"role": role}, headers=admin.auth)
        assert (refused.status_code, refused.json()["code"]) == (403, "FORBIDDEN"), refused.text
    refused = await http.delete(f"/v1/members/{org.user_id}", headers=admin.auth)
    assert (refused.status_code, refused.json()["code"]) == (403, "FORBIDDEN")
    # An unknown role changes nothing; an empty body changes nothing either.
    unknown = await http.patch(f"/v1/members/{editor.user_id}", json={"role": "superuser"}, headers=admin.auth)
    assert (unknown.status_code, unknown.json()["code"]) == (400, "VALIDATION_ERROR")
    same = await http.patch(f"/v1/members/{editor.user_id}", json={}, headers=admin.auth)
    assert same.json()["role"] == "contributor"
    roles = {m["user_id"]: m["role"] for m in await _members(http, org)}
    assert roles == {org.user_id: "owner", admin.user_id: "admin", editor.user_id: "contributor"}


async def test_the_last_owner_can_be_neither_demoted_nor_removed(http, orgs) -> None:
    org = await orgs()
    for refused in (
        await http.patch(f"/v1/members/{org.user_id}", json={"role": "admin"}, headers=org.auth),
        await http.delete(f"/v1/members/{org.user_id}", headers=org.auth),
    ):
        assert (refused.status_code, refused.json()["code"]) == (409, "LAST_OWNER"), refused.text
    # With a second owner, the first may step down.
    second = await orgs.member(org, "owner")
    stepped = await http.patch(f"/v1/members/{org.user_id}", json={"role": "admin"}, headers=org.auth)
    assert stepped.json()["role"] == "admin"
    last = await http.delete(f"/v1/members/{second.user_id}", headers=second.auth)
    assert (last.status_code, last.json()["code"]) == (409, "LAST_OWNER")


async def test_two_owners_demoting_each_other_at_once_leave_one_owner(http, orgs) -> None:
    org = await orgs()
    other = await orgs.member(org, "owner")
    answers = await asyncio.gather(
        http.patch(f"/v1/members/{other.user_id}", json={"role": "editor"}, headers=org.auth),
        http.patch(f"/v1/members/{org.user_id}", json={"role": "editor"}, headers=other.auth),
    )
    # The second to act is either no longer an owner (403: its role changed under it) or, when
    # both were read as owners, finds itself the last one (409): either way one change counts.
    codes = sorted(a.status_code for a in answers)
    assert codes in ([200, 403], [200, 409]), [a.text for a in answers]
    winner = org if answers[0].status_code == 200 else other
    assert [m["role"] for m in await _members(http, winner)].count("owner") == 1


async def test_a_removed_members_key_agent_token_and_session_stop_at_once(http, channel, orgs) -> None:
    org = await orgs()
    editor = await orgs.member(org, "editor")
    session = await sign_in(channel, editor.email)
    token = (await tokens_for(http, session, (await register(http))["client_id"], "posts:read"))["access_token"]
    assert (await http.get("/v1/posts", headers=editor.auth)).status_code == 200
    removed = await http.delete(f"/v1/members/{editor.user_id}", headers=org.auth)
    assert (removed.status_code, removed.json()["email"]) == (200, editor.email)
    assert (await http.get("/v1/posts", headers=editor.auth)).status_code == 401
    stub = members_pb2_grpc.MemberServiceStub(channel)
    for credential in (token, session):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.ListMembers(
                members_pb2.ListMembersRequest(), metadata=(("authorization", f"Bearer {credential}"),)
            )
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert [m["user_id"] for m in await _members(http, org)] == [org.user_id]
    # Joining again later brings none of the old credentials back.
    await orgs.member(org, "editor", email=editor.email)
    assert (await http.get("/v1/posts", headers=editor.auth)).status_code == 401


async def test_another_organizations_member_is_not_found_and_agents_only_read(http, channel, orgs) -> None:
    org, stranger = await orgs(), await orgs()
    for answer in (
        await http.patch(f"/v1/members/{stranger.user_id}", json={"role": "viewer"}, headers=org.auth),
        await http.delete(f"/v1/members/{stranger.user_id}", headers=org.auth),
    ):
        assert (answer.status_code, answer.json()["code"]) == (404, "NOT_FOUND")
    assert [m["role"] for m in await _members(http, stranger)] == ["owner"]

    session = await sign_in(channel, org.email)
    token = (await tokens_for(http, session, (await register(http))["client_id"], "posts:read posts:write"))[
        "access_token"
    ]
    stub = members_pb2_grpc.MemberServiceStub(channel)
    agent = (("authorization", f"Bearer {token}"),)
    listed = await stub.ListMembers(members_pb2.ListMembersRequest(), metadata=agent)
    assert [m.user_id for m in listed.members] == [org.user_id]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.UpdateMember(members_pb2.UpdateMemberRequest(user_id=org.user_id, role="admin"), metadata=agent)
    assert error_info(refused.value).reason == "FORBIDDEN"
