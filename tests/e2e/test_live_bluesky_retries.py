"""Bluesky retried and recovered, end to end against a real PDS (harness/fakes/pds.py) behind a
proxy that can refuse or hold its createRecord calls (docs/live-publishing.md, "What Bluesky
receives"): a record's `createdAt` is the time of the attempt that wrote it, its key the one the
first attempt chose, and a post a crashed worker sent shows in its outbox the request that
created it, not only the lookup that found it.

Every PDS call of the stack goes through the proxy (HERALD_PLATFORM_HOST_OVERRIDES sends the
PDS's host, `localhost`, there); the proxy forwards each to the PDS unchanged unless a test
scripted otherwise for the next createRecord."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from harness.fakes.pds import POST, LivePDS
from harness.live import create_post, live_org, live_stack, outcome, settled
from harness.stack import Stack

pytestmark = pytest.mark.one_backend

CREATE = "/xrpc/com.atproto.repo.createRecord"
LEASE_SECONDS = 3


@dataclass
class Seen:
    """A createRecord call the proxy received: when, and the body the worker sent."""

    at: datetime
    body: dict[str, Any]


@dataclass
class PdsProxy:
    """Forwards every call to the PDS. `plan` says what to do with the next createRecord calls,
    in order: "refuse" answers 429 as the PDS's rate limit does (nothing reaches the PDS),
    "hold" forwards it (the record is made) and keeps the answer until `release` is set."""

    upstream: str
    plan: list[str] = field(default_factory=list)
    creates: list[Seen] = field(default_factory=list)
    holding: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict, bytes]:
        action = ""
        if method == "POST" and path == CREATE:
            self.creates.append(Seen(datetime.now(UTC), json.loads(body)))
            action = self.plan.pop(0) if self.plan else ""
        if action == "refuse":
            reset = int(time.time()) + 3
            limits = {"ratelimit-limit": "30", "ratelimit-remaining": "0", "ratelimit-reset": str(reset)}
            return 429, limits, json.dumps({"error": "RateLimitExceeded", "message": "Rate Limit Exceeded"}).encode()
        forwarded = {k: v for k, v in headers.items() if k.lower() not in ("host", "content-length", "accept-encoding")}
        answer = httpx.request(method, f"{self.upstream}{path}", headers=forwarded, content=body, timeout=15)
        if action == "hold":
            self.holding.set()
            self.release.wait(60)
        kept = {k: v for k, v in answer.headers.items() if k.lower() == "content-type"}
        return answer.status_code, kept, answer.content


@pytest.fixture(scope="module")
def pds(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LivePDS]:
    with LivePDS(tmp_path_factory.mktemp("pds")) as server:
        yield server


@pytest.fixture(scope="module")
def proxy(pds: LivePDS) -> Iterator[PdsProxy]:
    state = PdsProxy(f"http://127.0.0.1:{pds.port}")

    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, headers, content = state.handle(self.command, self.path, dict(self.headers), body)
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)
            except OSError:
                pass  # the worker that asked is gone

        do_GET = do_POST = _any

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield state
    state.release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def stack(backend: str, proxy: PdsProxy, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with live_stack(
        backend,
        tmp_path_factory.mktemp(f"bluesky-retries-{backend}"),
        {"localhost": proxy.url},
        HERALD_PUBLISH_LEASE_SECONDS=str(LEASE_SECONDS),
    ) as running:
        yield running


@dataclass(frozen=True)
class Account:
    auth: dict[str, str]
    did: str
    slug: str


@pytest.fixture(scope="module")
async def account(stack: Stack, pds: LivePDS) -> AsyncIterator[Account]:
    alice = pds.create_account(f"alice-{uuid.uuid4().hex[:6]}.test")
    async with live_org(stack, "retries") as org, httpx.AsyncClient(base_url=stack.base_url, timeout=30) as api:
        body = {"identifier": alice.handle, "app_password": pds.create_app_password(alice), "pds_url": pds.url}
        connected = await api.post("/v1/profiles:connectBluesky", json=body, headers=org.auth)
        assert connected.status_code == 201, connected.text
        yield Account(org.auth, alice.did, connected.json()["slug"])


@pytest.fixture
async def api(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as client:
        yield client


def created_at(body: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(body["record"]["createdAt"].replace("Z", "+00:00"))


async def test_a_retry_after_a_refusal_keeps_the_key_and_is_dated_when_it_is_written(
    api, stack, account, pds, proxy
) -> None:
    proxy.plan[:] = ["refuse"]
    before = len(proxy.creates)
    worker = stack.start_worker("worker-refused")
    try:
        text = f"Throttled first {uuid.uuid4().hex[:8]}"
        (post,) = await create_post(api, account.auth, text, [account.slug])
        done = await settled(api, account.auth, post["id"])
    finally:
        worker.terminate()
        worker.wait(timeout=10)

    assert done["status"] == "published" and done["attempts"] == 2, outcome(done)
    refused, written = proxy.creates[before:]
    assert refused.body["rkey"] == written.body["rkey"]  # one record key, made once
    # Each attempt dates the record when it sends it: the refused attempt's time never reaches
    # the PDS (it waited out the rate limit, 2-3 seconds).
    assert (created_at(written.body) - created_at(refused.body)).total_seconds() >= 1.5
    assert 0 <= (written.at - created_at(written.body)).total_seconds() < 1.5  # stamped as it was sent
    record = pds.get_record(account.did, written.body["rkey"])
    assert record["uri"] == done["platform_post_id"] == f"at://{account.did}/{POST}/{written.body['rkey']}"
    assert record["value"] == written.body["record"]
    (entry,) = (await api.get(f"/v1/posts/{post['id']}/outbox", headers=account.auth)).json()["entries"]
    assert entry["requests"][-1]["json"] == written.body


async def test_a_post_a_crashed_worker_sent_shows_the_request_that_made_it(api, stack, account, pds, proxy) -> None:
    proxy.plan[:] = ["hold"]
    proxy.holding.clear()
    proxy.release.clear()
    before = len(proxy.creates)
    text = f"Sent, then the worker died {uuid.uuid4().hex[:8]}"
    first = stack.start_worker("worker-killed")
    second = None
    try:
        (post,) = await create_post(api, account.auth, text, [account.slug])
        assert await asyncio.to_thread(proxy.holding.wait, 30), "createRecord never came"
        first.send_signal(signal.SIGKILL)  # the PDS has the record; the worker never hears of it
        first.wait(timeout=10)
        second = stack.start_worker("worker-recovers")
        done = await settled(api, account.auth, post["id"], within=LEASE_SECONDS + 30)
    finally:
        proxy.release.set()
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=10)

    assert done["status"] == "published", outcome(done)
    (sent,) = proxy.creates[before:]  # found by its key, never sent again
    assert done["platform_post_id"] == f"at://{account.did}/{POST}/{sent.body['rkey']}"
    (entry,) = (await api.get(f"/v1/posts/{post['id']}/outbox", headers=account.auth)).json()["entries"]
    creating, lookup = entry["requests"]
    assert (creating["method"], creating["url"]) == ("POST", f"{pds.url}{CREATE}")
    assert creating["json"] == sent.body  # as the dead worker sent it
    assert (lookup["method"], lookup["url"].split("?")[0]) == ("GET", f"{pds.url}/xrpc/com.atproto.repo.getRecord")
    records = [r for r in pds.list_records(account.did) if r["value"]["text"] == text]
    assert [r["value"] for r in records] == [sent.body["record"]]
