"""The publisher end to end through the public surface: a post created at /v1/posts is delivered
by a real `herald worker` process to the sandbox outbox, charged once, visible through the API."""

from __future__ import annotations

import asyncio
import time

from core import admin


async def wait_for_status(http, org, post_id: str, status: str, within: float = 20) -> dict:
    deadline = time.monotonic() + within
    while True:
        post = (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()
        if post["status"] == status or time.monotonic() > deadline:
            return post
        await asyncio.sleep(0.05)


async def test_post_is_delivered_once_and_charged(http, orgs, worker, stack) -> None:
    org = await orgs(credits=10)
    await orgs.profile(org, "acme-x", "x")
    await orgs.profile(org, "acme-masto", "mastodon")
    created = (
        await http.post(
            "/v1/posts", json={"content": "Ship it", "profiles": ["acme-x", "acme-masto"]}, headers=org.auth
        )
    ).json()["posts"]
    for post in created:
        published = await wait_for_status(http, org, post["id"], "published")
        assert published["status"] == "published", published
        # Nothing is on the platform: the URL is the post's page on Herald (docs/posts.md, "Sandbox links").
        assert (
            published["platform_post_id"]
            and published["url"] == f"{stack.base_url}/dashboard/posts/{post['id']}#outbox-post"
        )
        assert published["attempts"] == 1 and published["published_at"]
        entries = (await http.get(f"/v1/posts/{post['id']}/outbox", headers=org.auth)).json()["entries"]
        assert len(entries) == 1
        assert entries[0]["mode"] == "sandbox"
        assert entries[0]["url"] == published["url"]
        last = entries[0]["requests"][-1]
        if post["connector"] == "x":
            assert (last["method"], last["url"]) == ("POST", "https://api.x.com/2/tweets")
            assert last["json"] == {"text": "Ship it"}
        else:
            assert last["url"].endswith("/api/v1/statuses")
        assert all("authorization" not in {k.lower() for k in r["headers"]} for r in entries[0]["requests"])
    account = (await http.get("/v1/credits", headers=org.auth)).json()
    assert account["balance"] == 8
    assert sorted((e["reason"], e["delta"], e["reference"]) for e in account["ledger"][:2]) == sorted(
        ("post_delivery", -1, p["id"]) for p in created
    )


async def test_no_credits_fails_the_post_then_retry_after_top_up(http, orgs, worker) -> None:
    org = await orgs(credits=0)
    await orgs.profile(org, "p", "bluesky")
    post = (await http.post("/v1/posts", json={"content": "hello", "profiles": ["p"]}, headers=org.auth)).json()[
        "posts"
    ][0]
    failed = await wait_for_status(http, org, post["id"], "failed")
    assert (failed["status"], failed["failure_reason"]) == ("failed", "insufficient_credits")
    assert (await http.get(f"/v1/posts/{post['id']}/outbox", headers=org.auth)).json()["entries"] == []
    await admin.add_credits(orgs.engine, org=org.slug, amount=5)
    assert (await http.post(f"/v1/posts/{post['id']}/retry", headers=org.auth)).status_code == 200
    published = await wait_for_status(http, org, post["id"], "published")
    assert published["status"] == "published"
    assert (await http.get("/v1/credits", headers=org.auth)).json()["balance"] == 4


async def test_scheduled_post_waits_for_its_time(http, orgs, worker) -> None:
    from datetime import UTC, datetime, timedelta

    org = await orgs(credits=5)
    await orgs.profile(org, "p", "linkedin")
    when = datetime.now(UTC) + timedelta(seconds=2)
    post = (
        await http.post(
            "/v1/posts", json={"content": "soon", "profiles": ["p"], "schedule_at": when.isoformat()}, headers=org.auth
        )
    ).json()["posts"][0]
    await asyncio.sleep(0.5)
    assert (await http.get(f"/v1/posts/{post['id']}", headers=org.auth)).json()["status"] == "scheduled"
    published = await wait_for_status(http, org, post["id"], "published")
    assert published["status"] == "published"
    assert datetime.fromisoformat(published["published_at"].replace("Z", "+00:00")) >= when
