"""A post's history (docs/posts.md, "History") over /v1, gRPC and the dashboard: a sandbox post
created, claimed and published in order (its thread items too); edits, reschedules, a draft
taken out of draft, cancels and a retry recorded with the id of the request that made them; a
group's cancel and reschedule record one step per post; paging both ways, at every page size
(the `created` step, read from the post's row, first oldest first and last newest first);
another organization's post and an unknown one are NOT_FOUND, a bad order or page token (another
post's `created` step among them) a VALIDATION_ERROR. The publisher's failed attempts: tests/core/test_post_history_outcomes.py; the
MCP tool: tests/facades/test_mcp_tools.py."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import grpc
import httpx
import pytest
from herald.posts.v1 import posts_pb2, posts_pb2_grpc
from sqlalchemy import select

from core import admin
from core.db.models import post_events
from harness.live import settled
from tests.conftest import Org
from tests.core.rpc_helpers import error_info
from tests.dashboard_forms import signed_in
from tests.posts_api import create, later


async def history(http: httpx.AsyncClient, org: Org, post_id: str, **params) -> list[dict]:
    answer = await http.get(f"/v1/posts/{post_id}/events", params=params, headers=org.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()["events"]


def kinds(events: list[dict]) -> list[str]:
    return [e["kind"] for e in events]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.usefixtures("worker")
async def test_a_sandbox_post_is_created_claimed_and_published_in_order(http, orgs) -> None:
    org = await orgs.with_profiles("x")
    body = {
        "content": "Launch",
        "profiles": ["acme-x"],
        "customizations": {"acme-x": {"thread": [{"content": "Item one"}]}},
        "first_comment": "A first comment",
    }
    made = await http.post("/v1/posts", json=body, headers={**org.auth, "X-Request-Id": "history-create-1"})
    assert made.status_code == 201, made.text
    post_id = made.json()["posts"][0]["id"]
    post = await settled(http, org.auth, post_id)
    assert post["status"] == "published", post

    events = await history(http, org, post_id)
    assert kinds(events) == ["created", "claimed", "part_published", "part_published", "published"]
    assert {e["post_id"] for e in events} == {post_id} and all(e["id"].startswith("pev_") for e in events)
    assert [at(e["at"]) for e in events] == sorted(at(e["at"]) for e in events)
    created, claimed, item, comment, published = (e["detail"] for e in events)
    assert created == {"status": "queued", "request_id": "history-create-1"}
    assert claimed == {"attempt": 1}
    assert item == {
        "attempt": 1,
        "part": "thread",
        "position": 0,
        "platform_post_id": post["thread"][0]["platform_post_id"],
    }
    assert (comment["part"], "position" in comment) == ("first_comment", False)
    assert published == {"attempt": 1, "platform_post_id": post["platform_post_id"]}

    # Newest first, and paged either way: the same steps.
    assert await history(http, org, post_id, order="newest") == events[::-1]
    for order, expected in (("oldest", events), ("newest", events[::-1])):
        pages, token = [], None
        while True:
            params = {"order": order, "page_size": 2, **({"page_token": token} if token else {})}
            answer = (await http.get(f"/v1/posts/{post_id}/events", params=params, headers=org.auth)).json()
            pages.append(answer["events"])
            token = answer.get("next_page_token")
            if not token:
                break
        assert [len(p) for p in pages] == [2, 2, 1] and sum(pages, []) == expected


async def test_edits_reschedules_and_a_cancel_are_recorded_with_their_request(http, orgs) -> None:
    org = await orgs.with_profiles("x")
    post_id = await create(http, org, {"content": "Later", "profiles": ["acme-x"], "schedule_at": later()})

    async def patch(request_id: str, **body) -> dict:
        answer = await http.patch(f"/v1/posts/{post_id}", json=body, headers={**org.auth, "X-Request-Id": request_id})
        assert answer.status_code == 200, answer.text
        return answer.json()

    await patch("edit-1", content="Later, edited")
    moved = await patch("move-1", schedule_at=later(2))
    both = await patch("edit-2", content="Again", schedule_at=later(3))
    canceled = await http.delete(f"/v1/posts/{post_id}", headers={**org.auth, "X-Request-Id": "cancel-1"})
    assert canceled.status_code == 200, canceled.text

    events = await history(http, org, post_id)
    assert kinds(events) == ["created", "edited", "rescheduled", "edited", "canceled"]
    created, edit, move, edit_two, cancel = (e["detail"] for e in events)
    assert created["status"] == "scheduled" and "schedule_at" in created
    assert edit == {"fields": ["content"], "request_id": "edit-1"}
    assert move == {"schedule_at": moved["schedule_at"], "request_id": "move-1"}
    assert edit_two == {
        "fields": ["content", "schedule_at"],
        "schedule_at": both["schedule_at"],
        "request_id": "edit-2",
    }
    assert cancel == {"request_id": "cancel-1"}

    # A move to now queues the post: the step says so. (A worker of the session may take it at
    # once, so its later steps are not looked at.)
    other = await create(http, org, {"content": "Soon", "profiles": ["acme-x"], "schedule_at": later()})
    now = await http.patch(
        f"/v1/posts/{other}",
        json={"schedule_at": datetime.now(UTC).isoformat()},
        headers={**org.auth, "X-Request-Id": "move-2"},
    )
    assert now.status_code == 200, now.text
    moved_now = (await history(http, org, other))[1]
    assert moved_now["kind"] == "rescheduled"
    assert moved_now["detail"] == {"status": "queued", "schedule_at": now.json()["schedule_at"], "request_id": "move-2"}


async def pages(http: httpx.AsyncClient, org: Org, post_id: str, order: str, size: int) -> list[list[dict]]:
    """Every page of the post's history, walked with its tokens."""
    walked, token = [], None
    while True:
        params = {"order": order, "page_size": size, **({"page_token": token} if token else {})}
        answer = await http.get(f"/v1/posts/{post_id}/events", params=params, headers=org.auth)
        assert answer.status_code == 200, answer.text
        walked.append(answer.json()["events"])
        token = answer.json().get("next_page_token")
        if not token:
            return walked
        assert len(walked) <= 10, walked  # a token leading back would walk on forever


async def test_paging_at_every_size_gives_each_step_once_in_both_orders(http, orgs) -> None:
    """Six steps, the created one read from the post's row and five stored: at page sizes 1 to
    7 a page boundary falls right before and right after the created step, either way."""
    org = await orgs.with_profiles("x")
    post_id = await create(http, org, {"content": "Paged", "profiles": ["acme-x"], "schedule_at": later()})
    for n, body in enumerate(({"content": "Paged, edited"}, {"schedule_at": later(2)}, {"content": "Again"})):
        changed = await http.patch(f"/v1/posts/{post_id}", json=body, headers=org.auth)
        assert changed.status_code == 200, (n, changed.text)
    moved = await http.patch(f"/v1/posts/{post_id}", json={"schedule_at": later(3)}, headers=org.auth)
    assert moved.status_code == 200, moved.text
    canceled = await http.delete(f"/v1/posts/{post_id}", headers=org.auth)
    assert canceled.status_code == 200, canceled.text

    events = await history(http, org, post_id, page_size=100)
    assert kinds(events) == ["created", "edited", "rescheduled", "edited", "rescheduled", "canceled"]
    assert events[0]["id"] == f"pev_{post_id}" and len({e["id"] for e in events}) == 6
    async with orgs.engine.connect() as conn:
        stored = (await conn.execute(select(post_events.c.kind).where(post_events.c.post_id == post_id))).scalars()
        assert sorted(stored) == sorted(kinds(events[1:]))  # creation wrote no row of its own
    for order, expected in (("oldest", events), ("newest", events[::-1])):
        for size in range(1, len(events) + 2):
            walked = await pages(http, org, post_id, order, size)
            assert sum(walked, []) == expected, (order, size)
            assert [len(p) for p in walked] == [size] * (len(events) // size) + [len(events) % size] * bool(
                len(events) % size
            ), (order, size)  # full pages, and no empty one at the end
    # Newest first, nothing comes after the created step (a token taken oldest first names it).
    token = (await http.get(f"/v1/posts/{post_id}/events", params={"page_size": 1}, headers=org.auth)).json()
    after = await http.get(
        f"/v1/posts/{post_id}/events",
        params={"order": "newest", "page_token": token["next_page_token"]},
        headers=org.auth,
    )
    assert (after.status_code, after.json()["events"], "next_page_token" in after.json()) == (200, [], False)


async def test_a_next_slot_post_is_created_at_its_slot(http, orgs) -> None:
    """The slot is known only once the profile is locked, after the row was built (on PostgreSQL:
    core/posts/create.py `_place`): the created step still has it."""
    org = await orgs.with_profiles("x")
    slots = {"timezone": "UTC", "slots": [{"day": d, "time": "06:30"} for d in ("mon", "thu")]}
    assert (await http.put("/v1/profiles/acme-x/slots", json=slots, headers=org.auth)).status_code == 200
    made = await http.post(
        "/v1/posts",
        json={"content": "Into the queue", "profiles": ["acme-x"], "next_slot": True},
        headers={**org.auth, "X-Request-Id": "history-slot-1"},
    )
    assert made.status_code == 201, made.text
    post = made.json()["posts"][0]
    assert at(post["schedule_at"]) > datetime.now(UTC) and at(post["schedule_at"]).minute == 30
    events = await history(http, org, post["id"])
    assert [(e["kind"], e["at"]) for e in events] == [("created", post["created_at"])]
    assert events[0]["detail"] == {
        "status": "scheduled",
        "schedule_at": post["schedule_at"],
        "request_id": "history-slot-1",
    }


async def test_a_draft_taken_out_of_draft_is_recorded(http, orgs) -> None:
    org = await orgs.with_profiles("x")
    post_id = await create(http, org, {"content": "Draft", "profiles": ["acme-x"], "draft": True})
    when = later(2)
    scheduled = await http.post(f"/v1/posts/{post_id}/schedule", json={"schedule_at": when}, headers=org.auth)
    assert scheduled.status_code == 200, scheduled.text
    events = await history(http, org, post_id)
    assert kinds(events) == ["created", "scheduled"]
    assert events[0]["detail"]["status"] == "draft" and "schedule_at" not in events[0]["detail"]
    assert events[1]["detail"]["status"] == "scheduled"
    assert events[1]["detail"]["schedule_at"] == scheduled.json()["schedule_at"]


@pytest.mark.usefixtures("worker")
async def test_a_post_failed_for_credits_then_retried_is_recorded(http, orgs) -> None:
    """No credits: it fails at the claim (nothing was sent: no attempt); credits bought, Retry
    puts it back and the next claim publishes it."""
    org = await orgs(credits=0)
    await orgs.profile(org, "acme-x", "x")
    post_id = await create(http, org, {"content": "Paid later", "profiles": ["acme-x"]})
    assert (await settled(http, org.auth, post_id))["failure_reason"] == "insufficient_credits"
    await admin.add_credits(orgs.engine, org=org.slug, amount=100)
    retried = await http.post(f"/v1/posts/{post_id}/retry", json={}, headers={**org.auth, "X-Request-Id": "retry-1"})
    assert retried.status_code == 200, retried.text
    assert (await settled(http, org.auth, post_id))["status"] == "published"

    events = await history(http, org, post_id)
    assert kinds(events) == ["created", "failed", "retried", "claimed", "published"]
    assert events[1]["detail"] == {"reason": "insufficient_credits"}
    assert events[2]["detail"] == {"reason": "insufficient_credits", "request_id": "retry-1"}
    assert events[3]["detail"] == {"attempt": 1}  # a retry starts its attempts again


async def test_a_group_cancel_records_one_canceled_per_post(http, orgs) -> None:
    org = await orgs.with_profiles("x", "mastodon", "bluesky")
    made = await http.post(
        "/v1/posts",
        json={"content": "Group", "profiles": ["acme-x", "acme-mastodon", "acme-bsky"], "schedule_at": later()},
        headers=org.auth,
    )
    assert made.status_code == 201, made.text
    created = made.json()["posts"]
    group_id = created[0]["group_id"]
    moved = await http.post(f"/v1/post-groups/{group_id}/reschedule", json={"schedule_at": later(2)}, headers=org.auth)
    assert moved.status_code == 200, moved.text
    canceled = await http.post(f"/v1/post-groups/{group_id}/cancel", json={}, headers=org.auth)
    assert canceled.status_code == 200, canceled.text
    again = await http.post(f"/v1/post-groups/{group_id}/cancel", json={}, headers=org.auth)
    assert again.status_code == 200, again.text  # nothing left to cancel: nothing recorded
    for post in created:
        assert kinds(await history(http, org, post["id"])) == ["created", "rescheduled", "canceled"], post["id"]


async def test_another_organizations_post_and_bad_arguments(http, orgs, channel) -> None:
    org = await orgs.with_profiles("x")
    post_id = await create(http, org, {"content": "Mine", "profiles": ["acme-x"], "schedule_at": later()})
    stranger = await orgs.with_profiles("x")
    for who, wanted in ((stranger, post_id), (org, "pst_" + "0" * 26), (org, "nope")):
        refused = await http.get(f"/v1/posts/{wanted}/events", headers=who.auth)
        assert (refused.status_code, refused.json()["code"]) == (404, "NOT_FOUND"), wanted
    for params in ({"order": "sideways"}, {"page_token": "not-a-token"}, {"page_size": 101}, {"page_size": -1}):
        refused = await http.get(f"/v1/posts/{post_id}/events", params=params, headers=org.auth)
        assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR"), params
    # A token of another list is not a position in a history, nor one at another post's created step.
    two = await create(http, org, {"content": "Two", "profiles": ["acme-x"], "schedule_at": later()})
    edited = await http.patch(f"/v1/posts/{two}", json={"content": "Two, edited"}, headers=org.auth)
    assert edited.status_code == 200, edited.text
    listed = (await http.get("/v1/posts", params={"page_size": 1}, headers=org.auth)).json()["next_page_token"]
    at_created = (await http.get(f"/v1/posts/{two}/events", params={"page_size": 1}, headers=org.auth)).json()
    assert kinds(at_created["events"]) == ["created"]
    for token in (listed, at_created["next_page_token"]):
        refused = await http.get(f"/v1/posts/{post_id}/events", params={"page_token": token}, headers=org.auth)
        assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR")

    stub = posts_pb2_grpc.PostServiceStub(channel)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.ListPostEvents(posts_pb2.ListPostEventsRequest(post_id=post_id), metadata=stranger.metadata)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND and error_info(caught.value).reason == "NOT_FOUND"
    own = await stub.ListPostEvents(
        posts_pb2.ListPostEventsRequest(post_id=post_id, newest_first=True), metadata=org.metadata
    )
    assert [e.kind for e in own.events] == ["created"] and own.events[0].status == "scheduled"


@pytest.mark.usefixtures("worker")
async def test_the_post_page_shows_the_history_oldest_first_in_the_organizations_zone(stack, orgs) -> None:
    org = await orgs.with_profiles("x")
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        zoned = await http.patch("/v1/organization", json={"time_zone": "Europe/Paris"}, headers=org.auth)
        assert zoned.status_code == 200, zoned.text
        post_id = await create(http, org, {"content": "Shown", "profiles": ["acme-x"], "schedule_at": later()})
        edited = await http.patch(f"/v1/posts/{post_id}", json={"content": "Shown, edited"}, headers=org.auth)
        assert edited.status_code == 200, edited.text
        await signed_in(http, org.email)
        page = (await http.get(f"/dashboard/posts/{post_id}")).text
        section = page[page.index('id="history"') : page.index("</ol>", page.index('id="history"'))]
        assert re.findall(r'data-kind="([a-z_]+)"', section) == ["created", "edited"]
        assert (
            "<strong>Created</strong>: scheduled for " in section
            and "<strong>Edited</strong>: changed its text" in section
        )
        assert section.count("(Europe/Paris)") == 3  # each step's time, and the send time it was created with
        assert 'id="no-history"' not in page
