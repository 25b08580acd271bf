"""A real webhook receiver and the fixtures the webhook tests share: an HTTP endpoint that records
what it gets, and a worker that delivers fast."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from standardwebhooks.webhooks import Webhook

from harness.stack import Stack, stop_processes

# The stacks' schedule (harness/stack.py stack_env): every worker of a stack has it.
RETRIES = [0.3, 0.3, 0.3]


class Receiver:
    """A real HTTP endpoint: answers each POST with the next status of `statuses` (then the last
    one again) and records the headers and body it got (before answering, which it does `hold`
    seconds later). `port`: a given one (a receiver coming back up where it was)."""

    def __init__(self, port: int = 0, hold: float = 0.0) -> None:
        self.hold = hold
        self.statuses: list[int] = [200]
        self.got: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                if receiver.hold:
                    time.sleep(receiver.hold)
                status = receiver.statuses.pop(0) if len(receiver.statuses) > 1 else receiver.statuses[0]
                answer = json.dumps({"received": len(receiver.got)}).encode()
                self.send_response(status)
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def events(self, secret: str) -> list[dict]:
        """Every delivery so far, verified with the reference implementation (not Herald's code):
        the payloads, with the `webhook-id` each came with."""
        return [Webhook(secret).verify(body, headers) | {"id": headers["webhook-id"]} for headers, body in self.got]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


# This worker disables an endpoint whose every attempt failed for 2 s (5 days by default).
DISABLE_AFTER = 2


@pytest.fixture(scope="module")
def deliverer(stack: Stack) -> Iterator[None]:
    """A worker (one per test module) delivering fast: jobs polled every 50 ms, the retry schedule in tenths of seconds."""
    env = {
        "HERALD_JOBS_POLL_SECONDS": "0.05",
        "HERALD_PUBLISH_POLL_SECONDS": "0.05",
        "HERALD_WEBHOOK_RETRY_SCHEDULE": json.dumps(RETRIES),
        "HERALD_ALLOW_PRIVATE_TARGETS": "true",
        "HERALD_WEBHOOK_DISABLE_AFTER_SECONDS": str(DISABLE_AFTER),
    }
    proc = stack.start_worker(f"webhook-worker-{uuid.uuid4().hex[:8]}", **env)
    yield
    stop_processes([proc])


async def until(check, within: float = 30.0):
    deadline = time.monotonic() + within
    while True:
        found = await check()
        if found or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.05)


async def endpoint(http, org, receiver: Receiver) -> dict:
    made = await http.post("/v1/webhooks", json={"url": receiver.url, "events": ["*"]}, headers=org.auth)
    assert made.status_code == 201, made.text
    return made.json()


async def deliveries(http, org, webhook_id: str) -> list[dict]:
    answer = await http.get(f"/v1/webhooks/{webhook_id}/deliveries", headers=org.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()["deliveries"]
