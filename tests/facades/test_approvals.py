"""Approvals (issue 32; docs/teams.md, "Approvals"): which posts wait (`pending_approval`), who may
review them, and what approving and rejecting do, through /v1, MCP and gRPC. A waiting post is
never claimed or charged; approving it runs creation's checks again; of two reviews one counts."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from herald.posts.v1 import posts_pb2, posts_pb2_grpc
from sqlalchemy import update

from core.db.models import posts
from harness.oauth_flow import mcp, register, sign_in, tokens_for
from tests.core.rpc_helpers import error_info

LATER = (datetime.now(UTC) + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
SCOPES = "posts:read posts:write media:write"


async def _settings(http, org, **approvals) -> dict:
    answer = await http.patch("/v1/organization", json=approvals, headers=org.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def _create(http, who, **body) -> dict:
    answer = await http.post("/v1/posts", json={"content": "hello", "profiles": ["acme-x"], **body}, headers=who.auth)
    assert answer.status_code == 201, answer.text
    return answer.json()["posts"][0]


async def _post(http, org, post_id: str) -> dict:
    return (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()


async def _agent(http, channel, member) -> str:
    session = await sign_in(channel, member.email)
    return (await tokens_for(http, session, (await register(http))["client_id"], SCOPES))["access_token"]


@pytest.fixture
async def org(orgs):
    org = await orgs(credits=100)
    await orgs.profile(org, "acme-x")
    await orgs.profile(org, "client-x", tags=("client-a",))
    return org


async def test_settings_are_read_changed_and_checked(http, org) -> None:
    body = (await http.get("/v1/organization", headers=org.auth)).json()
    assert (body["approvals_required_for"], body["approval_profile_tags"], body["self_approval"]) == ([], [], False)
    changed = await _settings(
        http, org, approvals_required_for=["api_keys", "agents", "agents"], approval_profile_tags=["Client-A"]
    )
    assert (changed["approvals_required_for"], changed["approval_profile_tags"]) == (
        ["agents", "api_keys"],
        ["client-a"],
    )
    for bad in ({"approvals_required_for": ["robots"]}, {"approval_profile_tags": ["no spaces"]}):
        refused = await http.patch("/v1/organization", json=bad, headers=org.auth)
        assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR"), refused.text
    assert (await http.get("/v1/organization", headers=org.auth)).json()["approval_profile_tags"] == ["client-a"]


async def test_an_agents_post_waits_uncharged_and_its_member_approves_it(http, channel, org) -> None:
    await _settings(http, org, approvals_required_for=["agents"])
    token = await _agent(http, channel, org)
    answer = (
        await mcp(
            http, token, "tools/call", {"name": "create_post", "arguments": {"content": "hi", "profiles": ["acme-x"]}}
        )
    ).json()["result"]
    assert not answer.get("isError"), answer
    waiting = answer["structuredContent"]["posts"][0]
    assert waiting["status"] == "pending_approval" and waiting["review"] is None
    assert "pending approval" in answer["content"][0]["text"]
    # The agent cannot approve: no tool, and its token is refused by the method itself.
    stub = posts_pb2_grpc.PostServiceStub(channel)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.ApprovePost(
            posts_pb2.ApprovePostRequest(post_id=waiting["id"]), metadata=(("authorization", f"Bearer {token}"),)
        )
    assert error_info(refused.value).reason == "FORBIDDEN"
    # Its member approves it (an agent's post is theirs to approve), with an empty body.
    approved = await http.post(f"/v1/posts/{waiting['id']}/approve", headers=org.auth)
    assert approved.status_code == 200, approved.text
    body = approved.json()
    assert body["status"] == "queued" and body["review"]["outcome"] == "approved"
    assert body["review"]["reviewer"] == org.email and body["review"]["comment"] is None
    events = (await http.get(f"/v1/posts/{waiting['id']}/events", headers=org.auth)).json()["events"]
    # The shared stack's worker may claim and publish it at once: its history begins so.
    assert [e["kind"] for e in events][:2] == ["created", "approved"]
    assert events[0]["detail"]["status"] == "pending_approval"
    # An API key's post does not wait: only agents were named.
    assert (await _create(http, org))["status"] == "queued"


async def test_a_members_own_post_needs_another_approver_unless_self_approval(http, orgs, org) -> None:
    await _settings(http, org, approvals_required_for=["api_keys"])
    editor = await orgs.member(org, "editor")
    mine = await _create(http, org, schedule_at=LATER)
    assert mine["status"] == "pending_approval"
    refused = await http.post(f"/v1/posts/{mine['id']}/approve", json={}, headers=org.auth)
    assert (refused.status_code, refused.json()["code"]) == (403, "FORBIDDEN")
    approved = await http.post(f"/v1/posts/{mine['id']}/approve", json={"comment": "ok!"}, headers=editor.auth)
    assert approved.json()["status"] == "scheduled" and approved.json()["schedule_at"] == LATER.replace("Z", ".000Z")
    assert approved.json()["review"]["comment"] == "ok!"
    await _settings(http, org, self_approval=True)
    again = await _create(http, org, schedule_at=LATER)
    assert (await http.post(f"/v1/posts/{again['id']}/approve", headers=org.auth)).json()["status"] == "scheduled"


async def test_rejecting_returns_a_draft_with_the_review_and_a_viewer_cannot_review(http, orgs, org) -> None:
    contributor, viewer = await orgs.member(org, "contributor"), await orgs.member(org, "viewer")
    waiting = await _create(http, contributor, schedule_at=LATER)
    assert waiting["status"] == "pending_approval"
    refused = await http.post(f"/v1/posts/{waiting['id']}/reject", json={"comment": "no"}, headers=viewer.auth)
    assert (refused.status_code, refused.json()["permission"]) == (403, "approve")
    rejected = await http.post(f"/v1/posts/{waiting['id']}/reject", json={"comment": "Tone it down."}, headers=org.auth)
    assert rejected.status_code == 200, rejected.text
    review = rejected.json()["review"]
    assert rejected.json()["status"] == "draft"
    assert (review["outcome"], review["reviewer"], review["comment"]) == ("rejected", org.email, "Tone it down.")
    # Not waiting any more: another review is refused.
    again = await http.post(f"/v1/posts/{waiting['id']}/approve", headers=org.auth)
    assert (again.status_code, again.json()["code"]) == (409, "INVALID_POST_STATE")
    # The contributor submits it again: it waits again.
    submitted = await http.post(
        f"/v1/posts/{waiting['id']}/schedule", json={"schedule_at": LATER}, headers=contributor.auth
    )
    assert submitted.json()["status"] == "pending_approval", submitted.text


async def test_an_edit_by_someone_whose_posts_wait_sends_an_approved_post_back(http, orgs, org) -> None:
    contributor = await orgs.member(org, "contributor")
    scheduled = await _create(http, org, schedule_at=LATER)
    edited = await http.patch(f"/v1/posts/{scheduled['id']}", json={"content": "changed"}, headers=contributor.auth)
    assert (edited.status_code, edited.json()["status"]) == (200, "pending_approval"), edited.text
    assert (await _post(http, org, scheduled["id"]))["schedule_at"] == scheduled["schedule_at"]
    kinds = [
        e["kind"] for e in (await http.get(f"/v1/posts/{scheduled['id']}/events", headers=org.auth)).json()["events"]
    ]
    assert kinds == ["created", "edited", "approval_requested"]
    # An editor's edit of a waiting post keeps it waiting; another's approval sends it at its time
    # (the owner wrote it: it is not theirs to approve).
    again = await http.patch(f"/v1/posts/{scheduled['id']}", json={"content": "again"}, headers=org.auth)
    assert (again.status_code, again.json()["status"]) == (200, "pending_approval"), again.text
    editor = await orgs.member(org, "editor")
    approved = await http.post(f"/v1/posts/{scheduled['id']}/approve", headers=editor.auth)
    assert (approved.json()["status"], approved.json()["content"]) == ("scheduled", "again"), approved.text


async def test_a_passed_time_asks_for_publish_now_or_a_new_time(http, engine, orgs, org) -> None:
    contributor = await orgs.member(org, "contributor")
    waiting = await _create(http, contributor, schedule_at=LATER)
    async with engine.begin() as conn:
        past = datetime.now(UTC) - timedelta(hours=1)
        await conn.execute(update(posts).where(posts.c.id == waiting["id"]).values(schedule_at=past, due_at=past))
    asked = await http.post(f"/v1/posts/{waiting['id']}/approve", headers=org.auth)
    assert (asked.status_code, asked.json()["code"]) == (400, "VALIDATION_ERROR"), asked.text
    assert (await _post(http, org, waiting["id"]))["status"] == "pending_approval"
    both = await http.post(
        f"/v1/posts/{waiting['id']}/approve", json={"publish_now": True, "schedule_at": LATER}, headers=org.auth
    )
    assert both.status_code == 400
    now = await http.post(f"/v1/posts/{waiting['id']}/approve", json={"publish_now": True}, headers=org.auth)
    assert now.json()["status"] == "queued", now.text


async def test_profile_tags_narrow_which_posts_wait_and_a_group_is_reviewed_whole(http, org) -> None:
    await _settings(
        http, org, approvals_required_for=["api_keys"], approval_profile_tags=["client-a"], self_approval=True
    )
    answer = await http.post(
        "/v1/posts",
        json={"content": "both", "profiles": ["acme-x", "client-x"], "schedule_at": LATER},
        headers=org.auth,
    )
    created = {p["profile"]: p for p in answer.json()["posts"]}
    assert {k: p["status"] for k, p in created.items()} == {"acme-x": "scheduled", "client-x": "pending_approval"}
    group = created["acme-x"]["group_id"]
    approved = await http.post(f"/v1/post-groups/{group}/approve", json={"comment": "fine"}, headers=org.auth)
    assert approved.status_code == 200, approved.text
    assert {p["profile"]: p["status"] for p in approved.json()["posts"]} == {
        "acme-x": "scheduled",
        "client-x": "scheduled",
    }
    none_left = await http.post(f"/v1/post-groups/{group}/reject", headers=org.auth)
    assert (none_left.status_code, none_left.json()["code"]) == (409, "INVALID_POST_STATE")


async def test_two_approvals_at_once_count_once(http, orgs, org) -> None:
    contributor = await orgs.member(org, "contributor")
    editor = await orgs.member(org, "editor")
    waiting = await _create(http, contributor, schedule_at=LATER)
    answers = await asyncio.gather(
        http.post(f"/v1/posts/{waiting['id']}/approve", json={"comment": "a"}, headers=org.auth),
        http.post(f"/v1/posts/{waiting['id']}/reject", json={"comment": "b"}, headers=editor.auth),
    )
    assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
    kinds = [
        e["kind"] for e in (await http.get(f"/v1/posts/{waiting['id']}/events", headers=org.auth)).json()["events"]
    ]
    assert kinds.count("approved") + kinds.count("rejected") == 1


@pytest.mark.usefixtures("worker")
async def test_a_waiting_post_is_never_claimed_or_charged_until_approved(http, orgs, org) -> None:
    contributor = await orgs.member(org, "contributor")
    waiting = await _create(http, contributor)  # no time: it goes as soon as it is approved
    await asyncio.sleep(1.0)  # the test's worker polls every 50 ms
    assert (await _post(http, org, waiting["id"]))["status"] == "pending_approval"
    assert (await http.get("/v1/credits", headers=org.auth)).json()["balance"] == 100
    approved = await http.post(f"/v1/posts/{waiting['id']}/approve", headers=org.auth)
    assert approved.json()["status"] == "queued"
    for _ in range(100):
        if (await _post(http, org, waiting["id"]))["status"] == "published":
            break
        await asyncio.sleep(0.1)
    assert (await _post(http, org, waiting["id"]))["status"] == "published"
    assert (await http.get("/v1/credits", headers=org.auth)).json()["balance"] < 100
