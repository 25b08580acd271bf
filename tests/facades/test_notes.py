"""Comments and notifications (issue 32; docs/teams.md, "Comments and notifications"): comments on a
post or a group with @mentions, through /v1 and gRPC; each member's notifications, made by the
workers from the events changes emit (approval requested, approved, rejected), read, marked read,
paged, and sent where the member chose; a profile whose access ends within 7 days told once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from herald.notes.v1 import notes_pb2, notes_pb2_grpc
from sqlalchemy import update

from core.db.models import profiles
from core.notes.expiring import tell_expiring
from core.settings import CoreSettings
from harness.oauth_flow import register, sign_in, tokens_for
from tests.core.rpc_helpers import error_info

LATER = (datetime.now(UTC) + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
async def team(orgs):
    org = await orgs()
    await orgs.profile(org, "acme-x")
    return (
        org,
        await orgs.member(org, "editor"),
        await orgs.member(org, "contributor"),
        await orgs.member(org, "viewer"),
    )


async def _post(http, who, **body) -> dict:
    answer = await http.post(
        "/v1/posts", json={"content": "Hello world", "profiles": ["acme-x"], **body}, headers=who.auth
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["posts"][0]


async def _inbox(http, who, **params) -> dict:
    answer = await http.get("/v1/notifications", params=params, headers=who.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def _wait_for(http, who, kind: str, count: int = 1) -> list[dict]:
    for _ in range(100):
        found = [n for n in (await _inbox(http, who))["notifications"] if n["kind"] == kind]
        if len(found) >= count:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"no {kind} notification for {who.email}")


async def test_comments_on_a_post_and_its_group_with_mentions(http, team) -> None:
    org, editor, contributor, viewer = team
    post = await _post(http, org, schedule_at=LATER)
    said = await http.post(
        f"/v1/posts/{post['id']}/comments",
        json={"body": f"  Can you check the tone, @{editor.email.upper()}? And @nobody@example.com.  "},
        headers=contributor.auth,
    )
    assert said.status_code == 201, said.text
    comment = said.json()
    assert (comment["post_id"], comment["group_id"], comment["author"]) == (
        post["id"],
        post["group_id"],
        contributor.email,
    )
    assert comment["body"].startswith("Can you check") and comment["mentions"] == [editor.email]
    group = await http.post(
        f"/v1/post-groups/{post['group_id']}/comments", json={"body": "All good."}, headers=org.auth
    )
    assert group.status_code == 201 and group.json()["post_id"] is None
    listed = (await http.get(f"/v1/posts/{post['id']}/comments", headers=viewer.auth)).json()["comments"]
    assert [c["body"] for c in listed] == [comment["body"], "All good."]
    # The mention is told at once, in the comment's transaction.
    told = (await _inbox(http, editor))["notifications"]
    assert [(n["kind"], n["subject_id"], n["link"]) for n in told] == [
        ("mentioned", comment["id"], f"/dashboard/posts/{post['id']}")
    ]
    assert contributor.email in told[0]["text"] and "Can you check the tone" in told[0]["text"]


async def test_who_may_comment_and_what_is_refused(http, channel, orgs, team) -> None:
    org, _, _, viewer = team
    post = await _post(http, org, schedule_at=LATER)
    refused = await http.post(f"/v1/posts/{post['id']}/comments", json={"body": "hi"}, headers=viewer.auth)
    assert (refused.status_code, refused.json()["permission"]) == (403, "compose")
    for body in ({"body": ""}, {"body": " " * 3}, {"body": "x" * 5001}):
        bad = await http.post(f"/v1/posts/{post['id']}/comments", json=body, headers=org.auth)
        assert (bad.status_code, bad.json()["code"]) == (400, "VALIDATION_ERROR"), bad.text
    stranger = await orgs()
    for path in (f"/v1/posts/{post['id']}/comments", f"/v1/post-groups/{post['group_id']}/comments"):
        assert (await http.get(path, headers=stranger.auth)).status_code == 404
        assert (await http.post(path, json={"body": "x"}, headers=stranger.auth)).status_code == 404
    # Agents neither comment nor read an inbox.
    session = await sign_in(channel, org.email)
    token = (await tokens_for(http, session, (await register(http))["client_id"], "posts:read posts:write"))[
        "access_token"
    ]
    stub = notes_pb2_grpc.NoteServiceStub(channel)
    with pytest.raises(grpc.aio.AioRpcError) as denied:
        await stub.ListNotifications(
            notes_pb2.ListNotificationsRequest(), metadata=(("authorization", f"Bearer {token}"),)
        )
    assert error_info(denied.value).reason == "FORBIDDEN"


@pytest.mark.usefixtures("worker")
async def test_approvals_notify_the_approvers_then_the_author(http, team) -> None:
    org, editor, contributor, viewer = team
    waiting = await _post(http, contributor, schedule_at=LATER)
    for approver in (org, editor):
        [told] = await _wait_for(http, approver, "approval_requested")
        assert told["subject_id"] == waiting["id"] and "acme-x" in told["text"] and "Hello world" in told["text"]
    # Neither the author nor a viewer is asked to approve.
    assert (await _inbox(http, contributor))["notifications"] == []
    assert (await _inbox(http, viewer))["notifications"] == []
    rejected = await http.post(f"/v1/posts/{waiting['id']}/reject", json={"comment": "Too loud"}, headers=editor.auth)
    assert rejected.status_code == 200
    [told] = await _wait_for(http, contributor, "post_rejected")
    assert editor.email in told["text"] and "Too loud" in told["text"]
    # Marking read: one, then all; the unread count follows.
    inbox = await _inbox(http, org)
    assert inbox["unread_count"] == 1
    marked = await http.post(
        "/v1/notifications/read", json={"ids": [inbox["notifications"][0]["id"]]}, headers=org.auth
    )
    assert marked.json() == {"unread_count": 0}
    assert (await _inbox(http, org, show="unread"))["notifications"] == []
    assert (await _inbox(http, org))["notifications"][0]["read_at"] is not None
    nothing = await http.post("/v1/notifications/read", json={}, headers=org.auth)
    assert (nothing.status_code, nothing.json()["code"]) == (400, "VALIDATION_ERROR")


@pytest.mark.usefixtures("worker")
async def test_settings_choose_the_inbox_per_kind_and_pages_walk_the_inbox(http, team) -> None:
    org, editor, contributor, _ = team
    settings = (await http.get("/v1/notification-settings", headers=editor.auth)).json()
    by_kind = {c["kind"]: c for c in settings["channels"]}
    assert by_kind["approval_requested"]["inbox"] and by_kind["post_approved"]["email"] is False
    assert settings["mail_configured"] is False
    changed = await http.patch(
        "/v1/notification-settings",
        json={"channels": [{"kind": "approval_requested", "inbox": False, "email": False}]},
        headers=editor.auth,
    )
    assert {c["kind"]: c["inbox"] for c in changed.json()["channels"]}["approval_requested"] is False
    unknown = await http.patch(
        "/v1/notification-settings",
        json={"channels": [{"kind": "gossip", "inbox": True, "email": True}]},
        headers=editor.auth,
    )
    assert (unknown.status_code, unknown.json()["code"]) == (400, "VALIDATION_ERROR")
    for n in range(3):
        await _post(http, contributor, content=f"Post {n}", schedule_at=LATER)
    await _wait_for(http, org, "approval_requested", 3)
    assert (await _inbox(http, editor))["notifications"] == []  # turned off: not in the inbox
    # Off for the inbox but on for email: kept to be told once, never listed.
    await http.patch(
        "/v1/notification-settings",
        json={"channels": [{"kind": "approval_requested", "inbox": False, "email": True}]},
        headers=editor.auth,
    )
    await _post(http, contributor, content="Post 4", schedule_at=LATER)
    await _wait_for(http, org, "approval_requested", 4)
    hidden = await _inbox(http, editor)
    assert (hidden["notifications"], hidden["unread_count"]) == ([], 0)
    first = await _inbox(http, org, page_size=2)
    second = await _inbox(http, org, page_size=2, page_token=first["next_page_token"])
    assert len(first["notifications"]) == 2 and len(second["notifications"]) == 2 and not second.get("next_page_token")
    ids = [n["id"] for n in first["notifications"] + second["notifications"]]
    assert len(set(ids)) == 4 and first["unread_count"] == 4


async def test_a_profile_whose_access_ends_soon_is_told_once(http, engine, team) -> None:
    org, editor, _, _ = team
    ends = datetime.now(UTC) + timedelta(days=3)
    async with engine.begin() as conn:
        await conn.execute(
            update(profiles)
            .where(profiles.c.org_id == org.org_id, profiles.c.slug == "acme-x")
            .values(connection_status="connected", token_expires_at=ends, refresh_token=None)
        )
    settings = CoreSettings(base_url="http://127.0.0.1:1")
    assert await tell_expiring(engine, settings, datetime.now(UTC)) >= 1
    await tell_expiring(engine, settings, datetime.now(UTC))
    told = [n for n in (await _inbox(http, org))["notifications"] if n["kind"] == "token_expiring"]
    assert len(told) == 1 and told[0]["link"] == "/dashboard/profiles/acme-x" and "acme-x" in told[0]["text"]
    # An editor does not manage connections: not told.
    assert [n for n in (await _inbox(http, editor))["notifications"] if n["kind"] == "token_expiring"] == []


async def test_a_mention_reaches_a_limited_member_only_on_posts_they_can_see(http, orgs, team) -> None:
    org, _, _, _ = team
    await orgs.profile(org, "client-x", tags=("client-a",))
    limited = await orgs.member(org, "editor")
    lifted = await http.patch(f"/v1/members/{limited.user_id}", json={"profile_tags": ["client-a"]}, headers=org.auth)
    assert lifted.status_code == 200, lifted.text
    hidden = await _post(http, org, schedule_at=LATER)  # to acme-x, outside the limits
    seen = await _post(http, org, profiles=["client-x"], schedule_at=LATER)
    for post in (hidden, seen):
        said = await http.post(
            f"/v1/posts/{post['id']}/comments", json={"body": f"@{limited.email} ok?"}, headers=org.auth
        )
        assert said.status_code == 201, said.text
    told = (await _inbox(http, limited))["notifications"]
    assert [n["link"] for n in told] == [f"/dashboard/posts/{seen['id']}"]
