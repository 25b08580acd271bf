"""Webhook delivery end to end (issue 17): the workers POST each event to a real HTTP receiver,
which verifies it with the `standardwebhooks` package; retries on the schedule (shortened by its
setting) keep the same webhook-id; 410 disables the endpoint; replay sends the same event again;
every attempt is in the delivery log."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from standardwebhooks.webhooks import Webhook

from tests.harness import Stack

# The stacks' schedule (tests/harness.py stack_env): every worker of a stack has it.
RETRIES = [0.3, 0.3, 0.3]


class Receiver:
    """A real HTTP endpoint: answers each POST with the next status of `statuses` (then the last
    one again) and records the headers and body it got."""

    def __init__(self) -> None:
        self.statuses: list[int] = [200]
        self.got: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                status = receiver.statuses.pop(0) if len(receiver.statuses) > 1 else receiver.statuses[0]
                answer = json.dumps({"received": len(receiver.got)}).encode()
                self.send_response(status)
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def deliverer(stack: Stack) -> Iterator[None]:
    """A worker delivering fast: jobs polled every 50 ms, the retry schedule in tenths of seconds."""
    env = {
        "HERALD_JOBS_POLL_SECONDS": "0.05",
        "HERALD_PUBLISH_POLL_SECONDS": "0.05",
        "HERALD_WEBHOOK_RETRY_SCHEDULE": json.dumps(RETRIES),
        "HERALD_ALLOW_PRIVATE_TARGETS": "true",
        "HERALD_LOG_LEVEL": "INFO",  # its "running jobs" line says it is ready
    }
    proc = stack.spawn("core", "worker", log_name="webhook-worker", env=env)
    log = stack.workdir / "webhook-worker.log"
    deadline = time.monotonic() + 60
    while "running jobs" not in (log.read_text(errors="replace") if log.exists() else ""):
        assert proc.poll() is None and time.monotonic() < deadline, stack.logs()
        time.sleep(0.05)
    yield
    proc.terminate()
    proc.wait(timeout=10)


async def until(check, within: float = 30.0):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + within
    while True:
        found = await check()
        if found or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.05)


async def endpoint(http, org, receiver: Receiver) -> dict:  # noqa: ANN001
    made = await http.post("/v1/webhooks", json={"url": receiver.url, "events": ["*"]}, headers=org.auth)
    assert made.status_code == 201, made.text
    return made.json()


async def deliveries(http, org, webhook_id: str) -> list[dict]:  # noqa: ANN001
    answer = await http.get(f"/v1/webhooks/{webhook_id}/deliveries", headers=org.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()["deliveries"]


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


async def _complete(http, org, webhook_id: str, count: int) -> list[dict] | None:  # noqa: ANN001
    log = await deliveries(http, org, webhook_id)
    return log if len(log) >= count else None
