"""GET /v1/credits and the credit signals on every successful response (docs/api.md, "GET /v1/credits")."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

from core import admin
from core.credits import service as credits
from core.db.models import posts
from core.db.types import utcnow
from tests.conftest import LOW_CREDIT_THRESHOLD


async def test_credit_account_shape(http, orgs) -> None:
    org = await orgs(credits=120)
    await admin.add_credits(orgs.engine, org=org.slug, amount=30)
    response = await http.get("/v1/credits", headers=org.auth)
    assert response.status_code == 200
    assert response.headers["x-credits-remaining"] == "150"
    body = response.json()
    assert body["organization"] == org.slug
    assert body["balance"] == 150
    assert body["plan"] == "active"
    assert body["low_credit_threshold"] == LOW_CREDIT_THRESHOLD
    assert "warning" not in body
    assert [(e["delta"], e["balance_after"], e["reason"]) for e in body["ledger"]] == [
        (30, 150, "grant"),
        (120, 120, "grant"),
    ]


async def test_low_credit_warning_appears_below_the_threshold(http, orgs) -> None:
    at_threshold = await orgs(credits=LOW_CREDIT_THRESHOLD)
    body = (await http.get("/v1/profiles", headers=at_threshold.auth)).json()
    assert "warning" not in body
    below = await orgs(credits=LOW_CREDIT_THRESHOLD - 1)
    response = await http.get("/v1/profiles", headers=below.auth)
    assert response.headers["x-credits-remaining"] == str(LOW_CREDIT_THRESHOLD - 1)
    assert response.json()["warning"] == {"code": "low_credits", "remaining": LOW_CREDIT_THRESHOLD - 1}


async def test_balance_reported_is_current_after_a_debit(http, orgs) -> None:
    org = await orgs(credits=60)
    async with orgs.engine.begin() as conn:
        await credits.debit(
            conn, org.org_id, 15, reason="post_delivery", reference="pst_test", now=utcnow(), low_threshold=0
        )
    response = await http.get("/v1/credits", headers=org.auth)
    assert response.headers["x-credits-remaining"] == "45"
    body = response.json()
    assert body["balance"] == 45
    assert body["warning"] == {"code": "low_credits", "remaining": 45}
    assert body["ledger"][0] | {"id": None, "created_at": None} == {
        "id": None,
        "delta": -15,
        "balance_after": 45,
        "reason": "post_delivery",
        "reference": "pst_test",
        "created_at": None,
    }


async def test_ledger_pagination_and_limit(http, orgs) -> None:
    org = await orgs(credits=10)
    for _ in range(4):
        await admin.add_credits(orgs.engine, org=org.slug, amount=1)
    limited = (await http.get("/v1/credits", params={"ledger_limit": "2"}, headers=org.auth)).json()
    assert [e["balance_after"] for e in limited["ledger"]] == [14, 13]
    first = (await http.get("/v1/credits/ledger", params={"page_size": "3"}, headers=org.auth)).json()
    assert [e["balance_after"] for e in first["entries"]] == [14, 13, 12]
    second = (
        await http.get("/v1/credits/ledger", params={"page_token": first["next_page_token"]}, headers=org.auth)
    ).json()
    assert [e["balance_after"] for e in second["entries"]] == [11, 10]
    assert "next_page_token" not in second
    bad = await http.get("/v1/credits", params={"ledger_limit": "101"}, headers=org.auth)
    assert bad.status_code == 400 and bad.json()["code"] == "VALIDATION_ERROR"


async def test_no_plan_still_refuses_credits_at_v1(http, orgs) -> None:
    org = await orgs(plan="none")
    response = await http.get("/v1/credits", headers=org.auth)
    assert response.status_code == 402
    assert response.json()["code"] == "SUBSCRIPTION_REQUIRED"
    assert "x-credits-remaining" not in response.headers


async def test_a_scheduled_post_never_lowers_the_balance(http, orgs) -> None:
    """Credits are taken when a post goes out (docs/posts.md "Credits"): scheduling one, or
    editing it into a thread, moves nothing."""
    org = await orgs(credits=10)
    await orgs.profile(org, "later-x", "x")
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    body = {"content": "Tomorrow", "profiles": ["later-x"], "schedule_at": tomorrow}
    created = await http.post("/v1/posts", json={**body, "thread": [{"content": "and more"}]}, headers=org.auth)
    assert created.status_code == 201, created.text
    assert created.headers["x-credits-remaining"] == "10"
    (post,) = created.json()["posts"]
    thread = [{"content": f"{n}/ and more"} for n in range(1, 26)]
    edited = await http.patch(f"/v1/posts/{post['id']}", json={"thread": thread}, headers=org.auth)
    assert edited.status_code == 200 and edited.headers["x-credits-remaining"] == "10", edited.text
    account = (await http.get("/v1/credits", headers=org.auth)).json()
    assert account["balance"] == 10
    assert [(e["delta"], e["reason"]) for e in account["ledger"]] == [(10, "grant")]


async def _held_by(orgs, org, post_id: str, **post_values) -> None:
    """The post holds 1 credit, debited with it, as a hold taken by an earlier attempt."""
    async with orgs.engine.begin() as conn:
        await credits.debit(
            conn, org.org_id, 1, reason="post_delivery", reference=post_id, now=utcnow(), low_threshold=0
        )
        await conn.execute(posts.update().where(posts.c.id == post_id).values(charged=1, **post_values))


async def _scheduled(http, org, slug: str) -> str:
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    body = {"content": "Later", "profiles": [slug], "schedule_at": tomorrow}
    created = await http.post("/v1/posts", json=body, headers=org.auth)
    assert created.status_code == 201, created.text
    return created.json()["posts"][0]["id"]


async def test_a_canceled_post_costs_nothing_whatever_it_held(http, orgs) -> None:
    """Nothing of a post that can be canceled is out; should it hold credits (a hold left by an
    older rule), canceling gives them back, with a refund naming the post in the ledger."""
    org = await orgs(credits=10)
    await orgs.profile(org, "cancel-x", "x")
    post_id = await _scheduled(http, org, "cancel-x")
    await _held_by(orgs, org, post_id)

    canceled = await http.delete(f"/v1/posts/{post_id}", headers=org.auth)

    assert canceled.status_code == 200 and canceled.json()["status"] == "canceled", canceled.text
    assert canceled.headers["x-credits-remaining"] == "10"  # the refund, not the balance before it
    account = (await http.get("/v1/credits", headers=org.auth)).json()
    assert account["balance"] == 10
    assert [(e["delta"], e["reason"], e["reference"]) for e in account["ledger"][:2]] == [
        (1, "refund", post_id),
        (-1, "post_delivery", post_id),
    ]


async def test_a_retried_post_pays_for_its_new_attempt(http, orgs, worker) -> None:
    """A post that failed `delivery_uncertain` kept its credit (it may be out); retried, it is a new
    delivery under a new key, charged when a worker takes it (docs/posts.md "Credits")."""
    org = await orgs(credits=10)
    await orgs.profile(org, "retry-x", "x")
    post_id = await _scheduled(http, org, "retry-x")
    await _held_by(orgs, org, post_id, status="failed", failure_reason="delivery_uncertain")

    retried = await http.post(f"/v1/posts/{post_id}/retry", headers=org.auth)
    assert retried.status_code == 200 and retried.json()["status"] == "queued", retried.text
    assert retried.headers["x-credits-remaining"] == "9"  # the old charge stays: that one may be out

    deadline = time.monotonic() + 20
    while (post := (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json())["status"] != "published":
        assert time.monotonic() < deadline, post
        await asyncio.sleep(0.05)
    account = (await http.get("/v1/credits", headers=org.auth)).json()
    assert account["balance"] == 8
    assert [(e["delta"], e["reason"]) for e in account["ledger"] if e["reference"] == post_id] == [
        (-1, "post_delivery"),
        (-1, "post_delivery"),
    ]
