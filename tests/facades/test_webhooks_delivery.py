"""Webhook delivery end to end (issue 17): the workers POST each event to a real HTTP receiver,
which verifies it with the `standardwebhooks` package; retries on the schedule (shortened by its
setting) keep the same webhook-id; 410 disables the endpoint; replay sends the same event again;
every attempt is in the delivery log."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from standardwebhooks.webhooks import Webhook

from tests.facades.webhook_receiver import (
    DISABLE_AFTER,
    RETRIES,
    deliverer,
    deliveries,
    endpoint,
    receiver,
    until,
)

__all__ = ["deliverer", "receiver"]  # fixtures


@pytest.mark.usefixtures("deliverer")
async def test_a_test_event_is_delivered_signed_and_logged(http, orgs, receiver) -> None:
    org = await orgs()
    hook = await endpoint(http, org, receiver)
    queued = await http.post(f"/v1/webhooks/{hook['id']}/test", headers=org.auth)
    assert queued.status_code == 202, queued.text
    event_id = queued.json()["event_id"]
    assert await until(lambda: asyncio.sleep(0, len(receiver.got) == 1))
    headers, body = receiver.got[0]
    event = Webhook(hook["secret"]).verify(body, headers)  # the reference implementation, not Herald's code
    assert (event["type"], event["data"], headers["webhook-id"]) == (
        "webhook.test",
        {"webhook_id": hook["id"]},
        event_id,
    )
    assert headers["content-type"] == "application/json"
    log = await until(lambda: deliveries(http, org, hook["id"]))
    assert [(d["event_id"], d["attempt"], d["status_code"], d["error"]) for d in log] == [(event_id, 1, 200, "")]
    assert log[0]["next_attempt_at"] is None and json.loads(log[0]["response_body"]) == {"received": 1}


@pytest.mark.usefixtures("deliverer")
async def test_a_failed_attempt_is_retried_with_the_same_webhook_id(http, orgs, receiver) -> None:
    org = await orgs()
    receiver.statuses = [500, 503, 200]
    hook = await endpoint(http, org, receiver)
    event_id = (await http.post(f"/v1/webhooks/{hook['id']}/test", headers=org.auth)).json()["event_id"]
    assert await until(lambda: asyncio.sleep(0, len(receiver.got) == 3))
    assert {h["webhook-id"] for h, _ in receiver.got} == {event_id}
    for headers, body in receiver.got:
        Webhook(hook["secret"]).verify(body, headers)
    log = await until(lambda: _complete(http, org, hook["id"], 3))
    assert [(d["attempt"], d["status_code"]) for d in log] == [(3, 200), (2, 503), (1, 500)]
    assert log[1]["error"] == "HTTP 503" and log[1]["next_attempt_at"] is not None and log[0]["next_attempt_at"] is None


@pytest.mark.usefixtures("deliverer")
async def test_the_schedule_ends_and_replay_sends_the_same_event_again(http, orgs, receiver) -> None:
    org = await orgs()
    receiver.statuses = [500]
    hook = await endpoint(http, org, receiver)
    event_id = (await http.post(f"/v1/webhooks/{hook['id']}/test", headers=org.auth)).json()["event_id"]
    log = await until(lambda: _complete(http, org, hook["id"], len(RETRIES) + 1))
    assert [d["attempt"] for d in log] == [4, 3, 2, 1] and log[0]["next_attempt_at"] is None
    await asyncio.sleep(1)  # nothing more is attempted once the schedule is spent
    assert len(receiver.got) == len(RETRIES) + 1
    receiver.statuses = [200]
    replayed = await http.post(f"/v1/webhooks/{hook['id']}/deliveries/{log[0]['id']}/replay", headers=org.auth)
    assert (replayed.status_code, replayed.json()["event_id"]) == (202, event_id)
    assert await until(lambda: asyncio.sleep(0, len(receiver.got) == len(RETRIES) + 2))
    headers, body = receiver.got[-1]
    assert headers["webhook-id"] == event_id and body == receiver.got[0][1]  # the same bytes
    Webhook(hook["secret"]).verify(body, headers)


@pytest.mark.usefixtures("deliverer")
async def test_410_gone_disables_the_endpoint(http, orgs, receiver) -> None:
    org = await orgs()
    receiver.statuses = [410]
    hook = await endpoint(http, org, receiver)
    await http.post(f"/v1/webhooks/{hook['id']}/test", headers=org.auth)

    async def disabled() -> dict | None:
        current = (await http.get(f"/v1/webhooks/{hook['id']}", headers=org.auth)).json()
        return current if not current["enabled"] else None

    current = await until(disabled)
    assert current and "410" in current["disabled_reason"]
    await asyncio.sleep(1)
    assert len(receiver.got) == 1  # never retried
    enabled = await http.patch(f"/v1/webhooks/{hook['id']}", json={"enabled": True}, headers=org.auth)
    assert (enabled.json()["enabled"], enabled.json()["disabled_reason"]) == (True, "")


@pytest.mark.usefixtures("deliverer")
async def test_an_endpoint_failing_every_attempt_for_the_period_is_disabled_until_turned_on(
    http, orgs, receiver
) -> None:
    org = await orgs()
    receiver.statuses = [503]
    hook = await endpoint(http, org, receiver)
    started = time.monotonic()

    async def disabled() -> dict | None:
        await http.post(f"/v1/webhooks/{hook['id']}/test", headers=org.auth)  # one more failing event
        current = (await http.get(f"/v1/webhooks/{hook['id']}", headers=org.auth)).json()
        if current["enabled"]:
            await asyncio.sleep(0.25)
            return None
        return current

    current = await until(disabled)
    assert current, "never disabled"
    assert current["disabled_reason"] == f"every delivery failed for {DISABLE_AFTER} seconds"
    assert time.monotonic() - started >= DISABLE_AFTER  # not before the period
    log = await deliveries(http, org, hook["id"])
    assert log and all(d["status_code"] == 503 for d in log)

    receiver.statuses = [200]
    enabled = await http.patch(f"/v1/webhooks/{hook['id']}", json={"enabled": True}, headers=org.auth)
    assert (enabled.json()["enabled"], enabled.json()["disabled_reason"]) == (True, "")
    event_id = (await http.post(f"/v1/webhooks/{hook['id']}/test", headers=org.auth)).json()["event_id"]
    assert await until(lambda: asyncio.sleep(0, any(h["webhook-id"] == event_id for h, _ in receiver.got)))
    assert (await http.get(f"/v1/webhooks/{hook['id']}", headers=org.auth)).json()["enabled"]  # a fresh start


async def test_test_deliveries_and_replay_refuse_another_organizations_endpoint(http, orgs, receiver) -> None:
    mine, theirs = await orgs(), await orgs()
    hook = await endpoint(http, theirs, receiver)
    answers = [
        await http.post(f"/v1/webhooks/{hook['id']}/test", headers=mine.auth),
        await http.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=mine.auth),
        await http.post(
            f"/v1/webhooks/{hook['id']}/deliveries/wat_01m8az8mrmasbawanqjebp7b0m/replay", headers=mine.auth
        ),
    ]
    assert [(a.status_code, a.json()["code"]) for a in answers] == [(404, "NOT_FOUND")] * 3
    unknown = await http.post(
        f"/v1/webhooks/{hook['id']}/deliveries/wat_01m8az8mrmasbawanqjebp7b0m/replay", headers=theirs.auth
    )
    assert (unknown.status_code, unknown.json()["code"]) == (404, "NOT_FOUND")


async def _complete(http, org, webhook_id: str, count: int) -> list[dict] | None:
    log = await deliveries(http, org, webhook_id)
    return log if len(log) >= count else None
