"""Post groups (docs/posts.md, "Post groups"): every post of one creating request carries one
`group_id`; GET /v1/posts filters by it; GET /v1/post-groups/{id} answers the group, and its
reschedule and cancel act on every post in one transaction, all or nothing, each post by its own
rules, with one webhook event per post; and the same over gRPC (the MCP tools:
tests/facades/test_mcp_tools.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from herald.posts.v1 import posts_pb2, posts_pb2_grpc
from sqlalchemy import select

from core.credits import service as credits
from core.db.models import posts, webhook_events
from core.db.types import utcnow
from tests.core.rpc_helpers import error_info
from tests.messages import names


def later(days: float = 1) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.fixture
async def org(orgs):
    org = await orgs(credits=100)  # above the low-credit threshold: no `warning` in the answers
    for slug, platform in (("g-x", "x"), ("g-masto", "mastodon"), ("g-bsky", "bluesky")):
        await orgs.profile(org, slug, platform)
    return org


async def create(http, org, **body) -> list[dict]:
    """Scheduled a day ahead unless told otherwise, so no worker takes the posts."""
    body = {"content": "hi", "profiles": ["g-x", "g-masto", "g-bsky"], "schedule_at": later(), **body}
    response = await http.post("/v1/posts", json=body, headers=org.auth)
    assert response.status_code == 201, response.text
    return response.json()["posts"]


async def group(http, org, group_id: str) -> dict:
    response = await http.get(f"/v1/post-groups/{group_id}", headers=org.auth)
    assert response.status_code == 200, response.text
    return response.json()


async def set_post(orgs, post_id: str, **values) -> None:
    async with orgs.engine.begin() as conn:
        await conn.execute(posts.update().where(posts.c.id == post_id).values(**values))


async def events(orgs, org, event_type: str) -> list[str]:
    """The ids of the posts the organization's `event_type` events carry, oldest first."""
    async with orgs.engine.connect() as conn:
        bodies = await conn.scalars(
            select(webhook_events.c.body)
            .where(webhook_events.c.org_id == org.org_id, webhook_events.c.type == event_type)
            .order_by(webhook_events.c.id)
        )
        return [json.loads(b)["data"]["id"] for b in bodies]


async def test_one_request_is_one_group(http, org) -> None:
    first = await create(http, org)
    second = await create(http, org, profiles=["g-x"])
    group_id = first[0]["group_id"]
    assert group_id.startswith("grp_") and [p["group_id"] for p in first] == [group_id] * 3
    assert second[0]["group_id"] != group_id
    every_id = {p["id"] for p in first + second}
    assert group_id not in every_id and second[0]["group_id"] not in every_id
    got = await group(http, org, group_id)
    assert got == {"id": group_id, "created_at": first[0]["created_at"], "posts": first}  # creation order
    assert (await http.get(f"/v1/posts/{first[1]['id']}", headers=org.auth)).json()["group_id"] == group_id

    listed = await http.get("/v1/posts", params={"group_id": group_id}, headers=org.auth)
    assert [p["id"] for p in listed.json()["posts"]] == [p["id"] for p in reversed(first)]  # newest first
    filtered = await http.get("/v1/posts", params={"group_id": group_id, "profile": "g-masto"}, headers=org.auth)
    assert [p["id"] for p in filtered.json()["posts"]] == [first[1]["id"]]
    nothing = await http.get("/v1/posts", params={"group_id": "grp_nope"}, headers=org.auth)
    assert nothing.json()["posts"] == []


async def test_a_dry_run_makes_no_group(http, org) -> None:
    body = {"content": "hi", "profiles": ["g-x"], "schedule_at": later()}
    checked = await http.post("/v1/posts:validate", json=body, headers=org.auth)
    assert checked.status_code == 200 and "group_id" not in json.dumps(checked.json())
    assert (await http.get("/v1/posts", headers=org.auth)).json()["posts"] == []


async def test_another_organizations_group_is_not_found(http, orgs, org) -> None:
    created = await create(http, org)
    other = await orgs()
    group_id = created[0]["group_id"]
    for method, path, body in (
        ("GET", "", None),
        ("POST", "/reschedule", {"schedule_at": later(2)}),
        ("POST", "/cancel", None),
    ):
        for who, name in ((other, group_id), (org, "grp_unknown"), (org, created[0]["id"])):
            response = await http.request(method, f"/v1/post-groups/{name}{path}", json=body, headers=who.auth)
            assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND"), (method, path, name)
    assert (await http.get("/v1/posts", params={"group_id": group_id}, headers=other.auth)).json()["posts"] == []
    assert (await group(http, org, group_id))["posts"] == created


async def test_reschedule_moves_every_post(http, orgs, org) -> None:
    created = await create(http, org)
    when = (datetime.now(UTC) + timedelta(days=3)).replace(microsecond=0)
    response = await http.post(
        f"/v1/post-groups/{created[0]['group_id']}/reschedule", json={"schedule_at": when.isoformat()}, headers=org.auth
    )
    assert response.status_code == 200, response.text
    moved = response.json()
    assert [p["id"] for p in moved["posts"]] == [p["id"] for p in created]
    assert {(at(p["schedule_at"]), p["status"]) for p in moved["posts"]} == {(when, "scheduled")}
    assert moved == await group(http, org, created[0]["group_id"])
    assert await events(orgs, org, "post.updated") == [p["id"] for p in created]  # one each


async def test_reschedule_keeps_drafts_drafts(http, org) -> None:
    drafts = await create(http, org, draft=True)
    when = (datetime.now(UTC) + timedelta(days=500)).replace(microsecond=0)  # drafts: no horizon
    response = await http.post(
        f"/v1/post-groups/{drafts[0]['group_id']}/reschedule", json={"schedule_at": when.isoformat()}, headers=org.auth
    )
    assert response.status_code == 200, response.text
    assert {(at(p["schedule_at"]), p["status"]) for p in response.json()["posts"]} == {(when, "draft")}


async def test_cancel_cancels_every_post_once(http, orgs, org) -> None:
    created = await create(http, org)
    group_id = created[0]["group_id"]
    response = await http.post(f"/v1/post-groups/{group_id}/cancel", headers=org.auth)
    assert response.status_code == 200, response.text
    canceled = response.json()
    assert [(p["id"], p["status"]) for p in canceled["posts"]] == [(p["id"], "canceled") for p in created]
    assert await events(orgs, org, "post.canceled") == [p["id"] for p in created]

    again = await http.post(f"/v1/post-groups/{group_id}/cancel", headers=org.auth)
    assert again.status_code == 200 and again.json() == canceled  # idempotent: nothing changes
    assert len(await events(orgs, org, "post.canceled")) == 3
    moved = await http.post(f"/v1/post-groups/{group_id}/reschedule", json={"schedule_at": later(2)}, headers=org.auth)
    assert (moved.status_code, moved.json()["code"]) == (409, "INVALID_POST_STATE")


async def test_canceled_posts_are_left_out(http, orgs, org) -> None:
    created = await create(http, org)
    group_id = created[0]["group_id"]
    by_hand = (await http.delete(f"/v1/posts/{created[1]['id']}", headers=org.auth)).json()
    when = (datetime.now(UTC) + timedelta(days=2)).replace(microsecond=0)

    moved = await http.post(
        f"/v1/post-groups/{group_id}/reschedule", json={"schedule_at": when.isoformat()}, headers=org.auth
    )
    assert moved.status_code == 200, moved.text
    first, second, third = moved.json()["posts"]
    assert second == by_hand  # untouched
    assert [(at(p["schedule_at"]), p["status"]) for p in (first, third)] == [(when, "scheduled")] * 2

    canceled = await http.post(f"/v1/post-groups/{group_id}/cancel", headers=org.auth)
    assert canceled.status_code == 200, canceled.text
    assert [p["status"] for p in canceled.json()["posts"]] == ["canceled"] * 3
    assert canceled.json()["posts"][1] == by_hand
    assert await events(orgs, org, "post.canceled") == [created[1]["id"], created[0]["id"], created[2]["id"]]


@pytest.mark.parametrize("status", ["publishing", "published", "failed", "partially_published"])
async def test_a_post_that_cannot_change_refuses_the_whole_group(http, orgs, org, status: str) -> None:
    created = await create(http, org)
    group_id = created[0]["group_id"]
    await set_post(orgs, created[2]["id"], status=status)
    before = await group(http, org, group_id)

    moved = await http.post(f"/v1/post-groups/{group_id}/reschedule", json={"schedule_at": later(2)}, headers=org.auth)
    canceled = await http.post(f"/v1/post-groups/{group_id}/cancel", headers=org.auth)

    for response in (moved, canceled):
        assert (response.status_code, response.json()["code"]) == (409, "INVALID_POST_STATE")
        assert names(response.json(), created[2]["id"])  # names the post that refused
    assert await group(http, org, group_id) == before
    assert await events(orgs, org, "post.updated") == await events(orgs, org, "post.canceled") == []


async def test_a_past_time_moves_nothing(http, orgs, org) -> None:
    """The first post (a draft: any time goes) is moved before the second refuses the past: the
    transaction rolls the move and its event back."""
    created = await create(http, org, profiles=["g-x", "g-masto"])
    group_id = created[0]["group_id"]
    await set_post(orgs, created[0]["id"], status="draft")
    before = await group(http, org, group_id)
    past = (datetime.now(UTC) - timedelta(hours=1)).isoformat()

    response = await http.post(f"/v1/post-groups/{group_id}/reschedule", json={"schedule_at": past}, headers=org.auth)

    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR")
    assert names(response.json(), created[1]["id"])
    assert await group(http, org, group_id) == before
    assert await events(orgs, org, "post.updated") == []


@pytest.mark.parametrize("schedule_at", ["tomorrow", "2026-12-01", None, 5])
async def test_reschedule_needs_a_date_time(http, org, schedule_at) -> None:
    created = await create(http, org, profiles=["g-x"])
    body = {} if schedule_at is None else {"schedule_at": schedule_at}
    response = await http.post(f"/v1/post-groups/{created[0]['group_id']}/reschedule", json=body, headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR")


async def _held_by(orgs, org, post_id: str, **values) -> None:
    """The post holds 1 credit, debited with it, as a hold an earlier attempt took."""
    async with orgs.engine.begin() as conn:
        await credits.debit(
            conn, org.org_id, 1, reason="post_delivery", reference=post_id, now=utcnow(), low_threshold=0
        )
        await conn.execute(posts.update().where(posts.c.id == post_id).values(charged=1, **values))


async def test_cancel_refunds_what_the_posts_held(http, orgs, org) -> None:
    created = await create(http, org, profiles=["g-x", "g-masto"])
    for post in created:
        await _held_by(orgs, org, post["id"])

    response = await http.post(f"/v1/post-groups/{created[0]['group_id']}/cancel", headers=org.auth)

    assert response.status_code == 200, response.text
    assert response.headers["x-credits-remaining"] == "100"  # after both refunds
    ledger = (await http.get("/v1/credits", headers=org.auth)).json()["ledger"]
    assert sorted((e["delta"], e["reason"], e["reference"]) for e in ledger[:2]) == sorted(
        (1, "refund", p["id"]) for p in created
    )


async def test_a_refusal_rolls_back_the_refunds_made_before_it(http, orgs, org) -> None:
    """The second post may be out (an attempt sent it and got no answer): canceling it is refused
    after the first post was canceled and refunded, and both are undone."""
    created = await create(http, org, profiles=["g-x", "g-masto"])
    await _held_by(orgs, org, created[0]["id"])
    await _held_by(orgs, org, created[1]["id"], status="queued", delivery_state='{"create_sent_at": "then"}')
    before = await group(http, org, created[0]["group_id"])

    response = await http.post(f"/v1/post-groups/{created[0]['group_id']}/cancel", headers=org.auth)

    assert (response.status_code, response.json()["code"]) == (409, "INVALID_POST_STATE")
    assert names(response.json(), created[1]["id"])
    assert await group(http, org, created[0]["group_id"]) == before
    account = (await http.get("/v1/credits", headers=org.auth)).json()
    assert account["balance"] == 98 and "refund" not in {e["reason"] for e in account["ledger"]}
    assert await events(orgs, org, "post.canceled") == []


async def test_the_group_over_grpc(channel, http, org) -> None:
    created = await create(http, org, profiles=["g-x", "g-bsky"])
    stub = posts_pb2_grpc.PostServiceStub(channel)
    group_id = created[0]["group_id"]
    got = await stub.GetPostGroup(posts_pb2.GetPostGroupRequest(group_id=group_id), metadata=org.metadata)
    assert (got.id, [p.id for p in got.posts]) == (group_id, [p["id"] for p in created])
    assert {p.group_id for p in got.posts} == {group_id}
    listed = await stub.ListPosts(posts_pb2.ListPostsRequest(group_id=group_id), metadata=org.metadata)
    assert len(listed.posts) == 2
    canceled = await stub.CancelPostGroup(posts_pb2.CancelPostGroupRequest(group_id=group_id), metadata=org.metadata)
    assert {p.status for p in canceled.posts} == {posts_pb2.POST_STATUS_CANCELED}
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.ReschedulePostGroup(
            posts_pb2.ReschedulePostGroupRequest(group_id=group_id, schedule_at=later(2)), metadata=org.metadata
        )
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(caught.value).reason == "INVALID_POST_STATE"
