"""Approvals end to end (issue 32; docs/teams.md, "Approvals"; docs/dashboard.md, "Approvals"): the
organization has agents' posts wait; an agent on the official MCP SDK (ClientSession over
streamable HTTP, with its OAuth token) creates a post and reads that it is pending approval,
nothing charged; it has no tool to approve, and its token is FORBIDDEN at ApprovePost itself; an
editor approves it in Chromium on the post's page with a comment, the worker publishes it, and a
real webhook receiver gets post.created, post.approval_requested, post.approved and post.published
for it, in that order. A rejection in Chromium returns a draft showing its review. Two approvers
clicking Approve at once in two browser contexts: exactly one approval counts, the other reads the
refusal in words. Row locks decide the race, so this module runs on both databases."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import grpc
import httpx2
import pytest
from herald.posts.v1 import posts_pb2, posts_pb2_grpc
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from playwright.async_api import expect

from harness import oauth_flow
from tests.core.rpc_helpers import error_info
from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in
from tests.facades.webhook_receiver import deliverer, endpoint, receiver, until

__all__ = ["deliverer", "receiver"]  # fixtures

# The worker publishes and delivers webhooks fast (tests/facades/webhook_receiver.py).
pytestmark = pytest.mark.usefixtures("deliverer")

SCOPES = "posts:read posts:write media:write"
ORG_ZONE = "Europe/Paris"
# A month ahead: a waiting post's time never passes during the test.
LATER = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0).isoformat()
FLOW = ["post.created", "post.approval_requested", "post.approved", "post.published"]


async def _organization(http, orgs, **approvals):
    org = await orgs(credits=100)
    await orgs.profile(org, "flow-x", "x")
    changed = await http.patch("/v1/organization", json={"time_zone": ORG_ZONE, **approvals}, headers=org.auth)
    assert changed.status_code == 200, changed.text
    return org


async def _agent_token(http, channel, email: str) -> str:
    """An agent's access token, granted by the member signed in as `email`."""
    session = await oauth_flow.sign_in(channel, email)
    client = await oauth_flow.register(http)
    return (await oauth_flow.tokens_for(http, session, client["client_id"], SCOPES))["access_token"]


async def _balance(http, org) -> int:
    return (await http.get("/v1/credits", headers=org.auth)).json()["balance"]


async def _post(http, org, post_id: str) -> dict:
    return (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()


async def _waiting(http, who, **body) -> str:
    """A post `who` (a contributor: their posts always wait) creates: its id, pending approval."""
    answer = await http.post(
        "/v1/posts", json={"content": "Our spring menu is out.", "profiles": ["flow-x"], **body}, headers=who.auth
    )
    assert answer.status_code == 201, answer.text
    post = answer.json()["posts"][0]
    assert post["status"] == "pending_approval", post
    return post["id"]


def _dashboard_only(page) -> list[str]:
    """Every URL the page requests, to check it never calls /v1 (the dashboard's endpoints only)."""
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    return seen


async def test_an_agents_post_waits_until_an_editor_approves_it_in_the_browser(
    page, http, channel, orgs, stack, receiver, artifacts_dir, backend
) -> None:
    org = await _organization(http, orgs, approvals_required_for=["agents"])
    editor = await orgs.member(org, "editor")
    hook = await endpoint(http, org, receiver)
    before = await _balance(http, org)
    token = await _agent_token(http, channel, org.email)

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as agent_http,
        streamable_http_client(f"{stack.base_url}/mcp", http_client=agent_http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        assert "create_post" in tools
        assert not [name for name in tools if "approv" in name or "reject" in name]
        created = await session.call_tool("create_post", {"content": "Spring menu, live now.", "profiles": ["flow-x"]})
    assert not created.is_error, created.content
    assert "pending approval" in created.content[0].text
    (waiting,) = created.structured_content["posts"]
    post_id = waiting["id"]
    assert (waiting["status"], waiting["review"]) == ("pending_approval", None)
    assert await _balance(http, org) == before  # nothing charged while it waits

    # The agent cannot approve it: no tool above, and ApprovePost refuses its token whatever it asks.
    agent = (("authorization", f"Bearer {token}"), ("herald-audience", f"{stack.base_url}/mcp"))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await posts_pb2_grpc.PostServiceStub(channel).ApprovePost(
            posts_pb2.ApprovePostRequest(post_id=post_id, comment="self-service"), metadata=agent
        )
    assert error_info(refused.value).reason == "FORBIDDEN"
    assert (await _post(http, org, post_id))["status"] == "pending_approval"

    # An editor approves it in the browser, with a comment.
    requested = _dashboard_only(page)
    await sign_in(page, editor.email)
    await page.goto(f"/dashboard/posts/{post_id}")
    await expect(page.locator("#post-status")).to_have_text("pending approval")
    await expect(page.get_by_role("heading", name="Waiting for approval")).to_be_visible()
    await check_page(page, artifacts_dir, backend, "approval-pending")
    await page.get_by_label("Comment", exact=True).fill("Good to go, thanks.")
    await page.get_by_role("button", name="Approve", exact=True).click()
    await page.wait_for_url("**?notice=post-approved-queued")
    await expect(page.get_by_role("status")).to_contain_text("The post is approved")
    review = page.locator("#post-review")
    await expect(review.locator("#review-outcome")).to_have_text("approved")
    await expect(review.locator("#review-reviewer")).to_have_text(editor.email)
    await expect(review.locator("#review-comment-shown")).to_have_text("Good to go, thanks.")
    await expect(review.locator("#review-at-shown")).to_contain_text(f"({ORG_ZONE})")
    await expect(page.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
    assert not [url for url in requested if "/v1/" in url], requested

    # The worker publishes it, charged now; the receiver got its four events, in order.
    async def published() -> bool:
        return (await _post(http, org, post_id))["status"] == "published"

    assert await until(published)
    assert await _balance(http, org) < before

    def events() -> list[dict]:
        mine = [e for e in receiver.events(hook["secret"]) if e["type"].startswith("post.")]
        return [e for e in mine if e["data"]["id"] == post_id]

    assert await until(lambda: asyncio.sleep(0, len(events()) >= len(FLOW)))
    # Deliveries run concurrently (docs/webhooks.md, "No order"): ordered by when each happened,
    # then by the event's id (time-ordered), as a receiver orders them.
    ordered = sorted(events(), key=lambda e: (e["timestamp"], e["id"]))
    assert [e["type"] for e in ordered] == FLOW
    approved = ordered[2]["data"]
    assert (approved["review"]["reviewer"], approved["review"]["comment"]) == (editor.email, "Good to go, thanks.")
    await page.reload()
    await expect(page.locator("#post-status")).to_have_text("published")
    history = page.locator("#history")
    await expect(history.locator('[data-kind="approved"]')).to_contain_text("Good to go, thanks.")


async def test_a_rejection_returns_a_draft_that_shows_its_review(page, http, orgs, artifacts_dir, backend) -> None:
    org = await _organization(http, orgs)
    contributor = await orgs.member(org, "contributor")
    post_id = await _waiting(http, contributor, schedule_at=LATER)
    await sign_in(page, org.email)
    await page.goto(f"/dashboard/posts/{post_id}")
    await page.get_by_label("Comment", exact=True).fill("Tone it down, please.")
    await page.get_by_role("button", name="Reject", exact=True).click()
    await page.wait_for_url("**?notice=post-rejected")
    await expect(page.locator("#post-status")).to_have_text("draft")
    await expect(page.get_by_role("heading", name="Waiting for approval")).to_have_count(0)
    review = page.locator("#post-review")
    await expect(review.locator("#review-outcome")).to_have_text("rejected")
    await expect(review.locator("#review-reviewer")).to_have_text(org.email)
    await expect(review.locator("#review-comment-shown")).to_have_text("Tone it down, please.")
    await expect(page.locator('#history [data-kind="rejected"]')).to_contain_text("Tone it down, please.")
    await check_page(page, artifacts_dir, backend, "approval-rejected")
    body = await _post(http, org, post_id)
    assert body["status"] == "draft"
    assert (body["review"]["outcome"], body["review"]["comment"]) == ("rejected", "Tone it down, please.")


async def test_two_approvers_at_once_count_once_and_the_other_reads_why(
    browser, stack, http, orgs, artifacts_dir, backend
) -> None:
    org = await _organization(http, orgs)
    contributor, editor = await orgs.member(org, "contributor"), await orgs.member(org, "editor")
    post_id = await _waiting(http, contributor, schedule_at=LATER)
    contexts = [await browser.new_context(base_url=stack.base_url) for _ in range(2)]
    try:
        pages = [await c.new_page() for c in contexts]
        for tab, who in zip(pages, (org, editor), strict=True):
            await sign_in(tab, who.email)
            await tab.goto(f"/dashboard/posts/{post_id}")
            await tab.get_by_label("Comment", exact=True).fill(f"Approved by {who.email}")
        buttons = [tab.get_by_role("button", name="Approve", exact=True) for tab in pages]
        await asyncio.gather(*(b.click() for b in buttons))
        await asyncio.gather(*(tab.wait_for_load_state() for tab in pages))
        for tab in pages:
            await expect(tab.locator("#post-status")).not_to_have_text("pending approval")
        won = [tab for tab in pages if "notice=post-approved" in tab.url]
        lost = [tab for tab in pages if tab not in won]
        assert (len(won), len(lost)) == (1, 1), [tab.url for tab in pages]
        alert = lost[0].get_by_role("alert")
        await expect(alert).to_have_attribute("data-code", "INVALID_POST_STATE")
        await expect(alert).to_contain_text("Post is scheduled; only posts pending approval are approved or rejected.")
        await expect(alert).to_contain_text("Someone else may have reviewed it first")
        await check_page(lost[0], artifacts_dir, backend, "approval-raced")
    finally:
        for context in contexts:
            await context.close()
    body = await _post(http, org, post_id)
    assert body["status"] == "scheduled"
    events = (await http.get(f"/v1/posts/{post_id}/events", headers=org.auth)).json()["events"]
    assert [e["kind"] for e in events].count("approved") == 1
    assert body["review"]["comment"] == f"Approved by {body['review']['reviewer']}"
