"""Webhook delivery through faults (issue 17), on a stack of its own whose workers retry on a
schedule long enough to outlast an outage: a receiver down for 30 s loses nothing, and a worker
SIGKILLed while its request is in flight leaves the event to another worker, which sends it again
with the same `webhook-id` (the only kind of duplicate)."""

from __future__ import annotations

import asyncio
import signal
import time
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from harness.stack import Stack, bootstrap_org, database, free_port, running_stack
from tests.facades.webhook_receiver import Receiver, until

# Nothing here depends on the database beyond what the job queue's tests cover on both.
pytestmark = pytest.mark.one_backend

# 1 + 2 + 4 + 8 + 15 s: the retries outlast a 30 s outage, and the one after it comes within 15 s.
SCHEDULE = "[1, 2, 4, 8, 15, 15, 15]"
LEASE = 3  # seconds before a dead worker's delivery is another's


@pytest.fixture(scope="module")
def fault_stack(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp(f"webhook-faults-{backend}")
    with database(backend, workdir) as url:
        env = {
            "HERALD_WEBHOOK_RETRY_SCHEDULE": SCHEDULE,
            "HERALD_JOBS_LEASE_SECONDS": str(LEASE),
            "HERALD_JOBS_POLL_SECONDS": "0.05",
            "HERALD_PUBLISH_POLL_SECONDS": "0.05",
            "HERALD_ALLOW_PRIVATE_TARGETS": "true",
            "HERALD_LOG_LEVEL": "INFO",
        }
        with running_stack(url, workdir, **env) as stack:
            yield stack


async def organization(stack: Stack, name: str) -> dict[str, str]:
    key = await asyncio.to_thread(bootstrap_org, stack.database_url, name, credits=1000)
    engine = create_async_engine(stack.database_url)
    try:
        await admin.add_profile(engine, org=name, slug="fx", platform="x", tags=[])
    finally:
        await engine.dispose()
    return {"Authorization": f"Bearer {key}"}


async def test_a_receiver_down_for_30_seconds_loses_nothing(fault_stack: Stack) -> None:
    auth = await organization(fault_stack, "outage")
    port = free_port()  # where the receiver will be; nothing listens there yet
    async with httpx.AsyncClient(base_url=fault_stack.base_url, timeout=30) as api:
        made = await api.post(
            "/v1/webhooks", json={"url": f"http://127.0.0.1:{port}/hooks", "events": ["*"]}, headers=auth
        )
        hook = made.json()
        worker = fault_stack.start_worker("outage-worker")
        try:
            posts = [
                (await api.post("/v1/posts", json={"content": f"outage {i}", "profiles": ["fx"]}, headers=auth)).json()
                for i in range(5)
            ]
            down_until = time.monotonic() + 30
            refused = await until(lambda: _attempts(api, auth, hook["id"], status=0), within=30)
            assert refused, "no attempt was made while the receiver was down"
            await asyncio.sleep(max(0.0, down_until - time.monotonic()))
            receiver = Receiver(port=port)  # back up, where it was
            try:
                ids = {p["posts"][0]["id"] for p in posts}
                expected = {(kind, post_id) for post_id in ids for kind in ("post.created", "post.published")}

                def arrived() -> set[tuple[str, str]]:
                    return {(e["type"], e["data"]["id"]) for e in receiver.events(hook["secret"])}

                assert await until(lambda: asyncio.sleep(0, arrived() >= expected), within=40), arrived()
                events = receiver.events(hook["secret"])  # every one verifies with the secret
                copies = Counter(e["id"] for e in events)
                # At least once: any copy of an event carries its one webhook-id and the same body.
                bodies = {}
                for headers, body in receiver.got:
                    assert bodies.setdefault(headers["webhook-id"], body) == body
                assert len(copies) == len(expected)
            finally:
                receiver.close()
        finally:
            worker.terminate()
            worker.wait(timeout=10)


async def test_a_worker_killed_mid_delivery_leaves_the_event_to_another(fault_stack: Stack) -> None:
    auth = await organization(fault_stack, "killed")
    receiver = Receiver(hold=30)  # takes the request, answers much later
    try:
        async with httpx.AsyncClient(base_url=fault_stack.base_url, timeout=30) as api:
            hook = (await api.post("/v1/webhooks", json={"url": receiver.url, "events": ["*"]}, headers=auth)).json()
            first = fault_stack.start_worker("doomed-worker")
            second = None
            try:
                event_id = (await api.post(f"/v1/webhooks/{hook['id']}/test", headers=auth)).json()["event_id"]
                assert await until(lambda: asyncio.sleep(0, len(receiver.got) == 1))  # in flight
                first.send_signal(signal.SIGKILL)
                first.wait(timeout=10)
                receiver.hold = 0
                second = fault_stack.start_worker("second-worker")
                assert await until(lambda: asyncio.sleep(0, len(receiver.got) >= 2), within=LEASE + 30)
                assert {h["webhook-id"] for h, _ in receiver.got} == {event_id}  # a duplicate, same id
                assert len({body for _, body in receiver.got}) == 1  # and the same bytes
                log = await until(lambda: _attempts(api, auth, hook["id"], status=200))
                assert log, "the second worker's delivery is not in the log"
            finally:
                for proc in (first, second):
                    if proc is not None and proc.poll() is None:
                        proc.terminate()
                        proc.wait(timeout=10)
    finally:
        receiver.close()


async def _attempts(api: httpx.AsyncClient, auth: dict[str, str], webhook_id: str, *, status: int) -> list[dict]:
    log = (await api.get(f"/v1/webhooks/{webhook_id}/deliveries", headers=auth)).json()["deliveries"]
    return [d for d in log if d["status_code"] == status]
