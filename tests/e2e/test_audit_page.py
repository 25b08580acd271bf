"""The audit log page in Chromium (docs/teams.md, "Audit log"): an owner opens it from the
members page and reads, newest first and in the organization's zone, an agent's post (via the
agent's client name), a key's role change (via the key's prefix), with the post group linked to its
post's page and the request ids shown; filters by member, action, resource and dates; pages older
and newer through 51 events; a viewer has no link and is refused the page."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.async_api import expect

from harness.oauth_flow import MCP_HEADERS, register, tokens_for
from harness.oauth_flow import sign_in as core_sign_in
from tests.e2e.accessibility import check_page
from tests.e2e.test_dashboard import sign_in

# What the page shows depends on the templates and the core's answers, not on SQL.
pytestmark = pytest.mark.one_backend

ZONE = "Asia/Tokyo"


async def _agent_post(http, channel, org) -> dict:
    client = await register(http, client_name="Planner bot")
    session = await core_sign_in(channel, org.email)
    token = (await tokens_for(http, session, client["client_id"], "posts:read posts:write"))["access_token"]
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "create_post", "arguments": {"content": "from the bot", "profiles": ["audit-x"]}},
    }
    answer = await http.post(
        "/mcp", json=body, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}", "X-Request-Id": "bot-req-1"}
    )
    result = answer.json()["result"]
    assert not result.get("isError"), result
    return result["structuredContent"]["posts"][0]


async def test_an_owner_reads_filters_and_pages_the_audit_log(
    page, http, channel, orgs, artifacts_dir, backend
) -> None:
    org = await orgs()
    await orgs.profile(org, "audit-x", "x")
    assert (await http.patch("/v1/organization", json={"time_zone": ZONE}, headers=org.auth)).status_code == 200
    editor = await orgs.member(org, "editor")
    posted = await _agent_post(http, channel, org)
    changed = await http.patch(
        f"/v1/members/{editor.user_id}",
        json={"role": "viewer"},
        headers={**org.auth, "X-Request-Id": "role-req-1"},
    )
    assert changed.status_code == 200, changed.text

    await sign_in(page, org.email)
    await page.goto("/dashboard/members")
    await page.get_by_role("link", name="Audit log").click()
    await page.wait_for_url("**/dashboard/audit")
    rows = page.locator("#audit-events tbody tr")
    # The role change, the agent's post, the agent's authorization, the time zone.
    await expect(rows).to_have_count(4)
    role, post, connected, zone = (rows.nth(n) for n in range(4))
    await expect(role).to_contain_text(f"{org.email} via API key {org.api_key[:12]}")
    await expect(role).to_contain_text("changed a member")
    await expect(role).to_contain_text(f"member {editor.user_id}")
    await expect(role).to_contain_text("role-req-1")
    await expect(post).to_contain_text(f"{org.email} via agent Planner bot")
    await expect(post).to_contain_text("created a post")
    await expect(post).to_contain_text("bot-req-1")
    await expect(connected).to_contain_text(f"{org.email} on the dashboard")
    await expect(connected).to_contain_text("connected an agent")
    await expect(zone).to_contain_text("changed the organization's settings")
    today = datetime.now(UTC).astimezone(ZoneInfo(ZONE)).strftime("%Y-%m-%d")
    await expect(post.locator("time")).to_have_text(re.compile(rf"^{today} \d\d:\d\d \({re.escape(ZONE)}\)$"))
    await check_page(page, artifacts_dir, backend, "audit")

    # The post group links to its post's page.
    await post.get_by_role("link", name=re.compile(posted["group_id"])).click()
    await page.wait_for_url(f"**/dashboard/posts/{posted['id']}")

    # Filters: the member, the action, the resource, the dates.
    await page.goto("/dashboard/audit")
    await page.get_by_label("Action").select_option("identity.UpdateMember")
    await page.get_by_role("button", name="Filter", exact=True).click()
    await expect(rows).to_have_count(1)
    await expect(rows.first).to_have_attribute("data-method", "identity.UpdateMember")
    await page.get_by_role("link", name="Clear filters").click()
    await page.get_by_label("Resource id").fill(posted["group_id"])
    await page.get_by_role("button", name="Filter", exact=True).click()
    await expect(rows).to_have_count(1)
    await expect(rows.first).to_have_attribute("data-via", "agent")
    await page.goto("/dashboard/audit")
    await page.get_by_label("Member").select_option(label=editor.email)
    await page.get_by_role("button", name="Filter", exact=True).click()
    await expect(page.locator("#audit-empty")).to_have_text("No event matches these filters.")
    await page.goto(f"/dashboard/audit?from={today}&to={today}")
    await expect(rows).to_have_count(4)
    await page.goto("/dashboard/audit?to=2020-01-01")
    await expect(page.locator("#audit-empty")).to_be_visible()
    refused = await page.goto("/dashboard/audit?from=not-a-date")
    assert refused.status == 400
    await expect(page.locator("#audit-error")).to_contain_text("From must be a date")

    # 51 events and more: older, then newer again.
    for n in range(47):
        assert (await http.patch("/v1/organization", json={"name": f"Acme {n}"}, headers=org.auth)).status_code == 200
    await page.goto("/dashboard/audit")
    await expect(rows).to_have_count(50)
    newest = await rows.first.get_attribute("data-event")
    await page.get_by_role("link", name="Older").click()
    await expect(rows).to_have_count(1)
    await expect(rows.first).to_contain_text("changed the organization's settings")  # the time zone, the oldest
    await page.get_by_role("link", name="Newer").click()
    await expect(rows).to_have_count(50)
    await expect(rows.first).to_have_attribute("data-event", newest)
    await expect(page.get_by_role("link", name="Newer")).to_have_count(0)


async def test_a_viewer_has_no_link_and_is_refused(page, orgs) -> None:
    org = await orgs()
    viewer = await orgs.member(org, "viewer")
    await sign_in(page, viewer.email)
    await page.goto("/dashboard/members")
    await expect(page.get_by_role("link", name="Audit log")).to_have_count(0)
    refused = await page.goto("/dashboard/audit")
    assert refused.status == 403
    await expect(page.locator("main")).to_contain_text("manage_members")
