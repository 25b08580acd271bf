"""The resources' own webhook events (issue 17, docs/webhooks.md), delivered to a real HTTP receiver
that verifies every one with the `standardwebhooks` package: each is written with the change it
describes and carries the resource exactly as its /v1 route renders it."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from jsonschema import Draft202012Validator
from sqlalchemy import func, select

from core.db.models import webhook_events
from tests.conftest import LOW_CREDIT_THRESHOLD
from tests.facades.test_media import png, upload
from tests.facades.webhook_receiver import deliverer, endpoint, receiver, until

__all__ = ["deliverer", "receiver"]  # fixtures

pytestmark = pytest.mark.usefixtures("deliverer")


def later(days: int = 1) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


_SCHEMAS: dict[str, Draft202012Validator] = {}


async def received(receiver, secret: str, count: int, http: httpx.AsyncClient, org) -> list[dict]:
    """The verified events, once `count` have arrived (in arrival order); each one's `data` valid
    against its type's schema as GET /v1/webhook-events publishes it."""
    arrived = await until(lambda: asyncio.sleep(0, len(receiver.got) >= count))
    assert arrived, f"{len(receiver.got)} of {count} events arrived: {[e['type'] for e in receiver.events(secret)]}"
    if not _SCHEMAS:
        catalogue = (await http.get("/v1/webhook-events", headers=org.auth)).json()["event_types"]
        _SCHEMAS.update({t["type"]: Draft202012Validator(t["data_schema"]) for t in catalogue})
    events = receiver.events(secret)
    for event in events:
        problems = [e.message for e in _SCHEMAS[event["type"]].iter_errors(event["data"])]
        assert not problems, (event["type"], problems)
    return events


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


async def test_a_post_is_created_then_published_with_the_post_as_get_renders_it(http, orgs, receiver) -> None:
    org = await orgs()
    await orgs.profile(org, "ev-x", "x")
    hook = await endpoint(http, org, receiver)
    made = await http.post("/v1/posts", json={"content": "hello, events", "profiles": ["ev-x"]}, headers=org.auth)
    assert made.status_code == 201, made.text
    post = made.json()["posts"][0]
    events = await received(receiver, hook["secret"], 2, http, org)
    created, published = of_type(events, "post.created"), of_type(events, "post.published")
    assert [e["data"] for e in created] == [post]  # exactly what POST answered
    current = (await http.get(f"/v1/posts/{post['id']}", headers=org.auth)).json()
    assert [e["data"] for e in published] == [current]  # exactly what GET answers now
    assert current["status"] == "published" and current["platform_post_id"] and current["url"]
    assert len({e["id"] for e in events}) == 2  # each event its own webhook-id
    assert all(e["timestamp"].endswith("Z") for e in events)


async def test_an_edit_and_a_cancel_each_send_their_event(http, orgs, receiver) -> None:
    org = await orgs()
    await orgs.profile(org, "ev-x", "x")
    hook = await endpoint(http, org, receiver)
    post = (
        await http.post(
            "/v1/posts", json={"content": "first", "profiles": ["ev-x"], "schedule_at": later()}, headers=org.auth
        )
    ).json()["posts"][0]
    edited = await http.patch(f"/v1/posts/{post['id']}", json={"content": "second"}, headers=org.auth)
    assert edited.status_code == 200, edited.text
    canceled = await http.delete(f"/v1/posts/{post['id']}", headers=org.auth)
    assert canceled.status_code == 200, canceled.text
    events = await received(receiver, hook["secret"], 3, http, org)
    # Deliveries to one endpoint run concurrently: arrival order is not emission order.
    assert sorted((e["type"], e["data"]["content"], e["data"]["status"]) for e in events) == [
        ("post.canceled", "second", "canceled"),
        ("post.created", "first", "scheduled"),
        ("post.updated", "second", "scheduled"),
    ]
    assert of_type(events, "post.canceled")[0]["data"] == canceled.json()


async def test_a_post_that_cannot_be_paid_fails_and_says_why(http, orgs, receiver) -> None:
    org = await orgs(credits=0)
    await orgs.profile(org, "ev-x", "x")
    hook = await endpoint(http, org, receiver)
    made = await http.post("/v1/posts", json={"content": "no credits", "profiles": ["ev-x"]}, headers=org.auth)
    assert made.status_code == 201, made.text
    events = await received(receiver, hook["secret"], 2, http, org)
    failed = of_type(events, "post.failed")
    assert [(e["data"]["status"], e["data"]["failure_reason"]) for e in failed] == [("failed", "insufficient_credits")]
    assert not of_type(events, "credits.low") and not of_type(events, "credits.depleted")  # nothing was debited


async def test_credits_low_once_when_the_balance_crosses_the_threshold_and_depleted_at_zero(
    http, orgs, receiver
) -> None:
    org = await orgs(credits=LOW_CREDIT_THRESHOLD + 1)
    await orgs.profile(org, "ev-x", "x")
    hook = await endpoint(http, org, receiver)
    # The first post leaves the threshold itself (not below); the second crosses; the third stays below.
    for i in range(3):
        made = await http.post("/v1/posts", json={"content": f"spend {i}", "profiles": ["ev-x"]}, headers=org.auth)
        assert made.status_code == 201
        post_id = made.json()["posts"][0]["id"]
        assert await until(lambda post_id=post_id: _published(http, org, post_id))
    events = await received(receiver, hook["secret"], 7, http, org)
    low = of_type(events, "credits.low")
    assert [e["data"] for e in low] == [
        {
            "balance": LOW_CREDIT_THRESHOLD - 1,
            "low_credit_threshold": LOW_CREDIT_THRESHOLD,
            "reason": "post_delivery",
            "reference": low[0]["data"]["reference"],
        }
    ]
    assert low[0]["data"]["reference"].startswith("pst_")
    assert not of_type(events, "credits.depleted")

    poor = await orgs(credits=1)
    await orgs.profile(poor, "ev-x", "x")
    hook = await endpoint(http, poor, receiver)
    receiver.got.clear()
    await http.post("/v1/posts", json={"content": "last credit", "profiles": ["ev-x"]}, headers=poor.auth)
    events = await received(receiver, hook["secret"], 3, http, poor)
    depleted = of_type(events, "credits.depleted")
    assert [(e["data"]["balance"], e["data"]["reason"]) for e in depleted] == [(0, "post_delivery")]
    assert not of_type(events, "credits.low")  # it was below the threshold already


async def test_a_confirmed_upload_sends_media_confirmed(http, orgs, receiver) -> None:
    org = await orgs()
    hook = await endpoint(http, org, receiver)
    media_id = await upload(http, org, png(40, 30))
    assert not await until(lambda: asyncio.sleep(0, bool(receiver.got)), within=0.5)  # pending: no event yet
    confirmed = await http.post(f"/v1/media/{media_id}/confirm", headers=org.auth)
    assert confirmed.status_code == 200, confirmed.text
    events = await received(receiver, hook["secret"], 1, http, org)
    assert [(e["type"], e["data"]) for e in events] == [("media.confirmed", confirmed.json())]
    again = await upload(http, org, png(40, 30))  # the same bytes: the library's copy, nothing new
    assert (await http.post(f"/v1/media/{again}/confirm", headers=org.auth)).json()["media_id"] == media_id
    await asyncio.sleep(1)
    assert len(receiver.got) == 1


async def test_a_builtin_generation_run_sends_completed(http, orgs, receiver) -> None:
    org = await orgs()
    await orgs.profile(org, "ev-x", "x")
    hook = await endpoint(http, org, receiver)
    run = await http.post(
        "/v1/generate/posts", json={"brief": "We ship webhooks today.", "profiles": ["ev-x"]}, headers=org.auth
    )
    assert run.status_code == 200, run.text
    events = await received(receiver, hook["secret"], 1, http, org)
    completed = of_type(events, "generate.run.completed")
    assert [e["data"] for e in completed] == [run.json()]


async def test_an_endpoint_gets_only_the_types_it_subscribed_to_and_only_its_organizations(
    http, orgs, receiver
) -> None:
    mine, theirs = await orgs(), await orgs()
    for org in (mine, theirs):
        await orgs.profile(org, "ev-x", "x")
    made = await http.post("/v1/webhooks", json={"url": receiver.url, "events": ["post.canceled"]}, headers=mine.auth)
    assert made.status_code == 201, made.text
    secret = made.json()["secret"]
    body = {"content": "x", "profiles": ["ev-x"], "schedule_at": later()}
    ours = (await http.post("/v1/posts", json=body, headers=mine.auth)).json()["posts"][0]
    others = (await http.post("/v1/posts", json=body, headers=theirs.auth)).json()["posts"][0]
    await http.delete(f"/v1/posts/{others['id']}", headers=theirs.auth)
    await http.delete(f"/v1/posts/{ours['id']}", headers=mine.auth)
    events = await received(receiver, secret, 1, http, mine)
    await asyncio.sleep(1)  # nothing else follows
    assert [(e["type"], e["data"]["id"]) for e in receiver.events(secret)] == [("post.canceled", ours["id"])]
    assert len(events) == 1


async def test_a_refused_request_writes_no_event(http, orgs, engine) -> None:
    org = await orgs()
    await orgs.profile(org, "ev-x", "x")
    refused = await http.post("/v1/posts", json={"content": "", "profiles": ["ev-x"]}, headers=org.auth)
    assert refused.status_code == 400
    async with engine.connect() as conn:
        count = await conn.scalar(
            select(func.count()).select_from(webhook_events).where(webhook_events.c.org_id == org.org_id)
        )
    assert count == 0


async def _published(http: httpx.AsyncClient, org, post_id: str) -> bool:
    answer = await http.get(f"/v1/posts/{post_id}", headers=org.auth)
    return answer.json()["status"] == "published"


async def test_each_delivery_names_the_request_that_caused_its_event(http, orgs, receiver) -> None:
    """X-Request-Id follows one request to the receiver: the POST that created a post, for its
    post.created and (written later by a worker) its post.published; the PATCH for its update."""
    org = await orgs()
    await orgs.profile(org, "ev-x", "x")
    await endpoint(http, org, receiver)
    made = await http.post(
        "/v1/posts",
        json={"content": "traced", "profiles": ["ev-x"]},
        headers={**org.auth, "X-Request-Id": "trace-create-1"},
    )
    assert made.status_code == 201 and made.headers["x-request-id"] == "trace-create-1"
    later_post = await http.post(
        "/v1/posts", json={"content": "to edit", "profiles": ["ev-x"], "schedule_at": later()}, headers=org.auth
    )
    generated = later_post.headers["x-request-id"]  # none given: the facade made one
    assert generated.startswith("req_") and len(generated) == 28
    edited = await http.patch(
        f"/v1/posts/{later_post.json()['posts'][0]['id']}", json={"content": "edited"}, headers=org.auth
    )
    assert await until(lambda: asyncio.sleep(0, len(receiver.got) >= 4))
    traced = sorted(
        (json.loads(body)["type"], json.loads(body)["data"]["content"], headers.get("x-request-id"))
        for headers, body in receiver.got
    )
    assert traced == [
        ("post.created", "to edit", generated),
        ("post.created", "traced", "trace-create-1"),
        ("post.published", "traced", "trace-create-1"),
        ("post.updated", "edited", edited.headers["x-request-id"]),
    ]
