"""The audit log (issue 32; docs/teams.md, "Audit log"): GET /v1/audit-log lists every change a
member made, with who, which credential (an API key, an agent's client, a dashboard session), the
method, the resource and the request's id; written in the change's own transaction, so a refused or
failed call leaves none. Owners and admins read it with a key or a session; nobody else."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from herald.audit.v1 import audit_pb2, audit_pb2_grpc
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc, members_pb2, members_pb2_grpc
from sqlalchemy import select

from core.db.models import api_keys
from harness.oauth_flow import MCP_HEADERS, register, sign_in, tokens_for
from tests.core.rpc_helpers import error_info

LATER = (datetime.now(UTC) + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")


async def _log(http, who, **query) -> dict:
    answer = await http.get("/v1/audit-log", params=query, headers=who.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def _key_id(engine, org) -> str:
    """The id (`key_…`) of the organization's first API key: the one its requests carry."""
    async with engine.connect() as conn:
        return (await conn.execute(select(api_keys.c.id).where(api_keys.c.key_id == org.api_key[4:20]))).scalar_one()


def _rid() -> str:
    return f"audit-{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def org(orgs):
    org = await orgs(credits=100)
    await orgs.profile(org, "acme-x")
    return org


async def test_an_api_keys_post_and_an_agents_are_recorded_with_their_credentials(http, channel, engine, org) -> None:
    mine = _rid()
    created = await http.post(
        "/v1/posts",
        json={"content": "from a key", "profiles": ["acme-x"], "schedule_at": LATER},
        headers={**org.auth, "X-Request-Id": mine},
    )
    assert created.status_code == 201, created.text
    client = await register(http, client_name="Audit agent")
    token = (await tokens_for(http, await sign_in(channel, org.email), client["client_id"], "posts:read posts:write"))[
        "access_token"
    ]
    theirs = _rid()
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "create_post", "arguments": {"content": "from an agent", "profiles": ["acme-x"]}},
    }
    called = await http.post(
        "/mcp", json=body, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}", "X-Request-Id": theirs}
    )
    result = called.json()["result"]
    assert not result.get("isError"), result
    events = (await _log(http, org, method="posts.CreatePosts"))["events"]
    assert [e["request_id"] for e in events] == [theirs, mine]  # newest first
    agent, key = events
    assert {k: agent[k] for k in ("actor_user_id", "actor_email", "via", "credential_id", "credential_name")} == {
        "actor_user_id": org.user_id,
        "actor_email": org.email,
        "via": "agent",
        "credential_id": client["client_id"],
        "credential_name": "Audit agent",
    }
    assert (agent["resource_kind"], agent["resource_id"]) == (
        "post_group",
        result["structuredContent"]["posts"][0]["group_id"],
    )
    assert (key["via"], key["credential_id"], key["actor_email"]) == ("api_key", await _key_id(engine, org), org.email)
    assert key["credential_name"] == org.api_key[:12]  # the key's display prefix, as the keys page shows it
    assert (key["resource_kind"], key["resource_id"]) == ("post_group", created.json()["posts"][0]["group_id"])
    assert key["at"] <= agent["at"] and key["id"].startswith("aud_")
    # The post's own changes name the post; the log finds them by its id.
    post_id = created.json()["posts"][0]["id"]
    assert (await http.delete(f"/v1/posts/{post_id}", headers=org.auth)).status_code == 200
    about = (await _log(http, org, resource_id=post_id))["events"]
    assert [(e["method"], e["resource_kind"]) for e in about] == [("posts.CancelPost", "post")]


async def test_member_changes_are_recorded_and_filtered(http, orgs, org) -> None:
    admin = await orgs.member(org, "admin")
    editor, viewer = await orgs.member(org, "editor"), await orgs.member(org, "viewer")
    start = datetime.now(UTC) - timedelta(seconds=1)
    changed = await http.patch(f"/v1/members/{editor.user_id}", json={"role": "contributor"}, headers=admin.auth)
    assert changed.status_code == 200, changed.text
    removed = await http.delete(f"/v1/members/{viewer.user_id}", headers=org.auth)
    assert removed.status_code == 200, removed.text
    invited = await http.post(
        "/v1/invitations", json={"email": "new@example.com", "role": "editor"}, headers=admin.auth
    )
    assert invited.status_code == 201, invited.text
    events = (await _log(http, org))["events"]
    assert [(e["method"], e["actor_user_id"], e["resource_kind"], e["resource_id"]) for e in events] == [
        ("identity.CreateInvitation", admin.user_id, "invitation", invited.json()["invitation"]["id"]),
        ("identity.RemoveMember", org.user_id, "member", viewer.user_id),
        ("identity.UpdateMember", admin.user_id, "member", editor.user_id),
    ]
    assert all(e["via"] == "api_key" and e["request_id"].startswith("req_") for e in events)
    # Each filter, and all of them together.
    by_admin = (await _log(http, admin, actor_user_id=admin.user_id))["events"]
    assert [e["method"] for e in by_admin] == ["identity.CreateInvitation", "identity.UpdateMember"]
    removal = (await _log(http, org, method="identity.RemoveMember"))["events"]
    assert [e["resource_id"] for e in removal] == [viewer.user_id]
    about = (await _log(http, org, resource_id=editor.user_id, actor_user_id=admin.user_id))["events"]
    assert [e["method"] for e in about] == ["identity.UpdateMember"]
    middle = datetime.fromisoformat(events[1]["at"].replace("Z", "+00:00"))
    since = (await _log(http, org, after=events[1]["at"]))["events"]
    assert [e["id"] for e in since] == [events[0]["id"], events[1]["id"]]  # at or after: inclusive
    until = (await _log(http, org, after=start.isoformat(), before=events[1]["at"]))["events"]
    assert [e["id"] for e in until] == [events[2]["id"]]  # before: exclusive
    assert (await _log(http, org, before=(middle - timedelta(days=1)).isoformat()))["events"] == []
    assert (await _log(http, org, method="posts.CreatePosts"))["events"] == []
    for bad in ({"after": "yesterday"}, {"method": "not a method"}, {"page_token": "nonsense"}, {"page_size": "500"}):
        refused = await http.get("/v1/audit-log", params=bad, headers=org.auth)
        assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR"), (bad, refused.text)


async def test_joining_through_an_invitation_is_recorded_in_the_organization_joined(http, channel, orgs, org) -> None:
    other = await orgs()
    invited = await http.post("/v1/invitations", json={"email": other.email, "role": "viewer"}, headers=org.auth)
    link = invited.json()["url"]
    session = (("authorization", f"Bearer {await sign_in(channel, other.email)}"),)
    stub = members_pb2_grpc.MemberServiceStub(channel)
    joined = await stub.AcceptInvitation(
        members_pb2.AcceptInvitationRequest(token=link.rsplit("/", 1)[1]), metadata=session
    )
    assert joined.organization_id == org.org_id
    events = (await _log(http, org))["events"]
    assert [(e["method"], e["actor_email"], e["via"]) for e in events] == [
        ("identity.AcceptInvitation", other.email, "dashboard"),
        ("identity.CreateInvitation", org.email, "api_key"),
    ]
    assert events[0]["credential_id"].startswith("ses_") and events[0]["credential_name"] is None
    assert (await _log(http, other))["events"] == []


async def test_joining_through_a_link_at_sign_up_or_sign_in_is_recorded_as_the_new_members_act(
    http, channel, orgs, org
) -> None:
    """Both calls are anonymous (the link is the credential), so the unit of work records nothing:
    the join itself writes the event, with the session it opened, in the organization joined."""
    accounts = accounts_pb2_grpc.AccountServiceStub(channel)
    newcomer = f"new-{uuid.uuid4().hex[:8]}@example.com"
    link = (await http.post("/v1/invitations", json={"email": newcomer, "role": "viewer"}, headers=org.auth)).json()
    signed_up = await accounts.SignUpByInvitation(
        accounts_pb2.SignUpByInvitationRequest(token=link["url"].rsplit("/", 1)[1], password="a long enough password")
    )
    elsewhere = await orgs()
    leaving = await orgs.member(elsewhere, "editor")
    assert (await http.delete(f"/v1/members/{leaving.user_id}", headers=elsewhere.auth)).status_code == 200
    link = (
        await http.post("/v1/invitations", json={"email": leaving.email, "role": "editor"}, headers=org.auth)
    ).json()
    signed_in = await accounts.SignInByInvitation(
        accounts_pb2.SignInByInvitationRequest(token=link["url"].rsplit("/", 1)[1], password="correct horse battery")
    )
    joins = [e for e in (await _log(http, org))["events"] if e["method"].endswith("ByInvitation")]
    assert [(e["method"], e["actor_email"], e["via"], e["resource_kind"], e["resource_id"]) for e in joins] == [
        ("identity.SignInByInvitation", leaving.email, "dashboard", "member", leaving.user_id),
        ("identity.SignUpByInvitation", newcomer, "dashboard", "member", signed_up.user_id),
    ]
    assert [e["credential_id"] for e in joins] == [signed_in.session_id, signed_up.session_id]
    assert not [e for e in (await _log(http, elsewhere))["events"] if e["method"].endswith("ByInvitation")]


async def test_a_refused_or_failed_call_leaves_no_event(http, orgs, org) -> None:
    editor = await orgs.member(org, "editor")
    refusals = (
        await http.patch(f"/v1/members/{org.user_id}", json={"role": "admin"}, headers=org.auth),  # LAST_OWNER
        await http.patch(f"/v1/members/{org.user_id}", json={"role": "viewer"}, headers=editor.auth),  # FORBIDDEN
        await http.post("/v1/posts", json={"content": "x" * 400, "profiles": ["acme-x"]}, headers=org.auth),
        await http.post("/v1/posts", json={"content": "hi", "profiles": ["nowhere"]}, headers=org.auth),
        await http.delete("/v1/posts/pst_nothing", headers=org.auth),
        await http.delete("/v1/invitations/inv_nothing", headers=org.auth),
    )
    assert [r.status_code for r in refusals] == [409, 403, 400, 400, 404, 404], [r.text for r in refusals]
    assert (await _log(http, org))["events"] == []


async def test_an_idempotent_replay_and_a_next_slot_creation_are_recorded_once(http, org) -> None:
    headers = {**org.auth, "Idempotency-Key": f"audit-{uuid.uuid4().hex}"}
    body = {"content": "once", "profiles": ["acme-x"], "schedule_at": LATER}
    first = await http.post("/v1/posts", json=body, headers=headers)
    again = await http.post("/v1/posts", json=body, headers=headers)
    assert first.json() == again.json()
    slots = {"timezone": "UTC", "slots": [{"day": "mon", "time": "09:00"}]}
    assert (await http.put("/v1/profiles/acme-x/slots", json=slots, headers=org.auth)).status_code == 200
    slotted = await http.post(
        "/v1/posts", json={"content": "next", "profiles": ["acme-x"], "next_slot": True}, headers=org.auth
    )
    assert slotted.status_code == 201, slotted.text
    events = (await _log(http, org))["events"]
    assert [(e["method"], e["resource_id"]) for e in events] == [
        ("posts.CreatePosts", slotted.json()["posts"][0]["group_id"]),
        ("profiles.SetProfileSlots", "acme-x"),
        ("posts.CreatePosts", first.json()["posts"][0]["group_id"]),
    ]


async def test_pages_go_both_ways(http, org) -> None:
    for n in range(7):
        answer = await http.patch("/v1/organization", json={"name": f"Acme {n}"}, headers=org.auth)
        assert answer.status_code == 200, answer.text
    everything = [e["id"] for e in (await _log(http, org))["events"]]
    assert len(everything) == 7
    first = await _log(http, org, page_size=3)
    assert [e["id"] for e in first["events"]] == everything[:3] and "previous_page_token" not in first
    second = await _log(http, org, page_size=3, page_token=first["next_page_token"])
    assert [e["id"] for e in second["events"]] == everything[3:6]
    last = await _log(http, org, page_size=3, page_token=second["next_page_token"])
    assert [e["id"] for e in last["events"]] == everything[6:] and "next_page_token" not in last
    back = await _log(http, org, page_size=3, page_token=last["previous_page_token"])
    assert [e["id"] for e in back["events"]] == everything[3:6]
    assert back["next_page_token"] and back["previous_page_token"]
    top = await _log(http, org, page_size=3, page_token=back["previous_page_token"])
    assert [e["id"] for e in top["events"]] == everything[:3] and "previous_page_token" not in top
    # A newer event since: going back from the second page gives the three before it, which now
    # have a page before them; that one is the first page again, the newest event on top.
    await http.patch("/v1/organization", json={"name": "Acme 7"}, headers=org.auth)
    again = await _log(http, org, page_size=3, page_token=second["previous_page_token"])
    assert [e["id"] for e in again["events"]] == everything[:3] and again["previous_page_token"]
    newest = await _log(http, org, page_size=3, page_token=again["previous_page_token"])
    assert [e["id"] for e in newest["events"]][1:] == everything[:2] and "previous_page_token" not in newest


async def test_another_organizations_events_never_appear(http, orgs, org) -> None:
    other = await orgs()
    await orgs.profile(other, "acme-x")
    await http.post("/v1/posts", json={"content": "ours", "profiles": ["acme-x"]}, headers=org.auth)
    theirs = [
        (
            await http.post("/v1/posts", json={"content": f"theirs {n}", "profiles": ["acme-x"]}, headers=other.auth)
        ).json()["posts"][0]["group_id"]
        for n in range(2)
    ]
    ours = (await _log(http, org))["events"]
    assert [e["actor_user_id"] for e in ours] == [org.user_id]
    assert [e["resource_id"] for e in (await _log(http, other))["events"]] == theirs[::-1]
    assert (await _log(http, org, resource_id=theirs[0]))["events"] == []
    assert (await _log(http, org, actor_user_id=other.user_id))["events"] == []
    # Their page token names a position in time: in our log it walks our events only.
    token = (await _log(http, other, page_size=1))["next_page_token"]
    walked = (await _log(http, org, page_token=token))["events"]
    assert [e["id"] for e in walked] == [ours[0]["id"]]


async def test_only_those_who_manage_members_read_it_and_never_an_agent(http, channel, orgs, org) -> None:
    for role in ("viewer", "contributor", "editor"):
        member = await orgs.member(org, role)
        refused = await http.get("/v1/audit-log", headers=member.auth)
        body = refused.json()
        assert (refused.status_code, body["code"], body["permission"], body["role"]) == (
            403,
            "FORBIDDEN",
            "manage_members",
            role,
        )
    admin = await orgs.member(org, "admin")
    assert (await http.get("/v1/audit-log", headers=admin.auth)).status_code == 200
    stub = audit_pb2_grpc.AuditServiceStub(channel)
    session = await sign_in(channel, org.email)
    listed = await stub.ListAuditEvents(
        audit_pb2.ListAuditEventsRequest(), metadata=(("authorization", f"Bearer {session}"),)
    )
    assert listed.events == []  # reading the log changes nothing, and leaves no event
    token = (await tokens_for(http, session, (await register(http))["client_id"], "posts:read posts:write"))[
        "access_token"
    ]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.ListAuditEvents(audit_pb2.ListAuditEventsRequest(), metadata=(("authorization", f"Bearer {token}"),))
    assert error_info(refused.value).reason == "FORBIDDEN"


async def test_a_method_without_a_transaction_records_its_event_after_its_work(http, org) -> None:
    refused = await http.post("/v1/generate/posts", json={"brief": "x", "profiles": ["nope"]}, headers=org.auth)
    assert refused.status_code == 404, refused.text
    run = await http.post(
        "/v1/generate/posts", json={"brief": "Fresh bread daily", "profiles": ["acme-x"]}, headers=org.auth
    )
    assert run.status_code in (200, 201), run.text
    events = (await _log(http, org))["events"]
    assert [(e["method"], e["resource_kind"], e["resource_id"]) for e in events] == [
        ("generate.GeneratePost", "generate_run", run.json()["id"])
    ]
