"""Webhooks in Chromium (issue 17): a human adds an endpoint and copies its secret (shown once),
sends a test that a real receiver verifies with that secret, reads the delivery log, replays an
attempt, rotates the secret, sees an endpoint the receiver turned off (410) with its reason,
turns it back on and deletes it."""

from __future__ import annotations

import asyncio

import pytest
from standardwebhooks.webhooks import Webhook

from tests.e2e.test_dashboard import screenshot, sign_in
from tests.facades.webhook_receiver import deliverer, receiver, until

__all__ = ["deliverer", "receiver"]  # fixtures

# What the page shows depends on no SQL (the core's webhook service is tested on both databases).
pytestmark = [pytest.mark.one_backend, pytest.mark.usefixtures("deliverer")]


async def test_a_human_manages_an_endpoint_and_its_deliveries(
    page, http, orgs, receiver, artifacts_dir, backend
) -> None:
    org = await orgs()
    await sign_in(page, org.email)
    await page.get_by_role("link", name="Webhooks").click()
    await page.wait_for_url("**/dashboard/webhooks")
    assert await page.locator("#no-webhooks").is_visible()

    # Refused in place, with what was typed kept.
    await page.get_by_label("URL").fill("ftp://example.com/hooks")
    await page.get_by_role("button", name="Add endpoint").click()
    assert "url" in (await page.get_by_role("alert").last.text_content()).lower()
    assert await page.get_by_label("URL").input_value() == "ftp://example.com/hooks"

    await page.get_by_label("URL").fill(receiver.url)
    await page.get_by_label("Description").fill("the receiver of this test")
    await page.get_by_role("button", name="Add endpoint").click()
    secret = (await page.locator("#webhook-secret").text_content()).strip()
    assert secret.startswith("whsec_")
    await screenshot(page, artifacts_dir, backend, "webhook-secret")
    (listed,) = (await http.get("/v1/webhooks", headers=org.auth)).json()["webhooks"]
    assert (listed["url"], listed["events"], listed["description"]) == (
        receiver.url,
        ["*"],
        "the receiver of this test",
    )

    await page.get_by_role("link", name="Back to the endpoint").click()
    await page.get_by_role("button", name="Send a test event").click()
    await page.wait_for_url("**?notice=webhook-test")
    assert await until(lambda: asyncio.sleep(0, len(receiver.got) == 1))
    (event,) = receiver.events(secret)  # verified with the secret the page showed
    assert (event["type"], event["data"]) == ("webhook.test", {"webhook_id": listed["id"]})

    async def logged() -> bool:
        await page.reload()
        return await page.locator("#deliveries tbody tr").count() == 1

    assert await until(logged)
    row = page.locator("#deliveries tbody tr").first
    assert await row.get_attribute("data-status") == "200"
    await screenshot(page, artifacts_dir, backend, "webhook-deliveries")
    await row.get_by_role("button", name="Replay").click()
    await page.wait_for_url("**?notice=webhook-replayed")
    assert await until(lambda: asyncio.sleep(0, len(receiver.got) == 2))
    assert receiver.events(secret)[1]["id"] == event["id"]  # the same webhook-id

    await page.get_by_role("button", name="Rotate the secret").click()
    rotated = (await page.locator("#webhook-secret").text_content()).strip()
    assert rotated.startswith("whsec_") and rotated != secret
    assert "old secret" in await page.get_by_role("alert").last.text_content()
    await page.get_by_role("link", name="Back to the endpoint").click()

    # The receiver says it is gone: the endpoint turns off, and the page says why.
    receiver.statuses = [410]
    await page.get_by_role("button", name="Send a test event").click()
    await page.wait_for_url("**?notice=webhook-test")  # the form's answer, before reloading it

    async def turned_off() -> bool:
        await page.reload()
        return await page.locator("#webhook-state").get_attribute("data-enabled") == "false"

    assert await until(turned_off)
    assert "410" in await page.locator("#webhook-state").text_content()
    headers, body = receiver.got[-1]
    for signing in (rotated, secret):  # signed with the new secret, and the old one for the overlap
        assert Webhook(signing).verify(body, headers)["type"] == "webhook.test"
    await page.get_by_role("link", name="Webhooks").click()
    assert "410" in await page.locator(f'tr[data-webhook-id="{listed["id"]}"]').text_content()

    await page.locator(f'tr[data-webhook-id="{listed["id"]}"] a').click()
    await page.get_by_role("button", name="Turn on").click()
    await page.wait_for_url("**?notice=webhook-enabled")
    assert await page.locator("#webhook-state").get_attribute("data-enabled") == "true"
    assert (await http.get(f"/v1/webhooks/{listed['id']}", headers=org.auth)).json()["enabled"] is True

    await page.get_by_role("button", name="Delete").click()
    await page.wait_for_url("**/dashboard/webhooks?notice=webhook-deleted")
    assert await page.locator("#no-webhooks").is_visible()
    gone = await http.get(f"/v1/webhooks/{listed['id']}", headers=org.auth)
    assert gone.status_code == 404


async def test_another_organizations_endpoint_is_not_found_on_its_page(page, http, orgs, receiver) -> None:
    mine, theirs = await orgs(), await orgs()
    made = await http.post("/v1/webhooks", json={"url": receiver.url, "events": ["*"]}, headers=theirs.auth)
    await sign_in(page, mine.email)
    answer = await page.goto(f"/dashboard/webhooks/{made.json()['id']}")
    assert answer.status == 404
