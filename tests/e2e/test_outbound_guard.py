"""Outbound requests to hosts users name (docs/operations.md, "Outbound requests"): refused to
loopback, private, link-local and metadata addresses wherever Herald is reachable from a network,
allowed when the operator says so (HERALD_ALLOW_PRIVATE_TARGETS, or its old name
HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES) or when Herald is itself reachable on loopback only.

A webhook is the probe: its delivery log would show the first KiB of whatever answered. Each case
runs a worker of its own, with its own settings, on a stack of this module's own (no other
worker may take the delivery), whose core has the guard on as a public Herald would. Connecting
a Mastodon instance is another: the core reaches the instance a user names."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import httpx
import pytest

from core.settings import CoreSettings
from harness.stack import Stack, bootstrap_org, database, running_stack
from tests.facades.webhook_receiver import Receiver, until

pytestmark = pytest.mark.one_backend("sqlite")  # what is reachable is decided before any SQL


@pytest.mark.parametrize(
    ("base_url", "env", "allowed"),
    [
        ("http://127.0.0.1:8080", {}, True),  # make run: only this machine reaches Herald
        ("http://localhost:8080", {}, True),
        ("http://[::1]:8080", {}, True),
        ("http://127.9.9.9", {}, True),
        ("https://herald.example", {}, False),
        ("http://10.0.0.5:8080", {}, False),  # a private network reaches it: other people do
        ("http://0.0.0.0:8080", {}, False),
        ("https://herald.example", {"HERALD_ALLOW_PRIVATE_TARGETS": "true"}, True),
        ("https://herald.example", {"HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES": "true"}, True),  # the old name
        ("http://127.0.0.1:8080", {"HERALD_ALLOW_PRIVATE_TARGETS": "false"}, False),
        ("http://127.0.0.1:8080", {"HERALD_PUBLISH_MODE": "live"}, True),  # the mode no longer decides
        ("https://herald.example", {"HERALD_ALLOW_PRIVATE_TARGETS": ""}, False),  # blank is unset
    ],
)
def test_who_may_reach_private_targets(
    monkeypatch: pytest.MonkeyPatch, base_url: str, env: dict[str, str], allowed: bool
) -> None:
    for name in ("HERALD_ALLOW_PRIVATE_TARGETS", "HERALD_PLATFORM_ALLOW_PRIVATE_ADDRESSES", "HERALD_PUBLISH_MODE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HERALD_BASE_URL", base_url)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert CoreSettings().allows_private_targets is allowed


@pytest.fixture(scope="module")
def guarded_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, str]]:
    workdir = tmp_path_factory.mktemp("outbound-guard")
    with (
        database("sqlite", workdir) as url,
        running_stack(url, workdir, HERALD_ALLOW_PRIVATE_TARGETS="false") as stack,
    ):
        yield stack, bootstrap_org(url, f"guard-{uuid.uuid4().hex[:8]}")


def _worker(stack: Stack, **env: str):  # a Popen
    """A worker polling fast, with `env` on top of the stack's settings."""
    return stack.start_worker(HERALD_JOBS_POLL_SECONDS="0.05", **env)


async def _attempts(http: httpx.AsyncClient, auth: dict[str, str], hook_id: str, count: int) -> list[dict]:
    async def enough() -> list[dict] | None:
        log = (await http.get(f"/v1/webhooks/{hook_id}/deliveries", headers=auth)).json()["deliveries"]
        return log if len(log) >= count else None

    found = await until(enough, within=30)
    assert found, "no delivery attempt was logged"
    return found


async def test_a_public_herald_refuses_private_targets_unless_the_operator_allows_them(guarded_stack) -> None:
    stack, key = guarded_stack
    auth = {"Authorization": f"Bearer {key}"}
    receiver = Receiver()
    # The worker's own settings decide (the stack's core says false; this one says nothing).
    try:
        async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
            local = (await http.post("/v1/webhooks", json={"url": receiver.url, "events": ["*"]}, headers=auth)).json()
            metadata = (
                await http.post(
                    "/v1/webhooks", json={"url": "http://169.254.169.254/latest/meta-data/", "events": ["*"]}, headers=auth
                )
            ).json()
            # Herald published at a public address, nothing said: the guard is on.
            worker = _worker(stack, HERALD_BASE_URL="https://herald.example", HERALD_ALLOW_PRIVATE_TARGETS="")
            try:
                for hook in (local, metadata):
                    assert (await http.post(f"/v1/webhooks/{hook['id']}/test", headers=auth)).status_code == 202
                    attempt = (await _attempts(http, auth, hook["id"], 1))[-1]  # the first (newest first)
                    assert attempt["status_code"] == 0 and attempt["response_body"] == ""
                    assert attempt["error"].startswith("BlockedAddress")
            finally:
                worker.terminate()
                worker.wait(timeout=10)
            await asyncio.sleep(0.5)
            assert receiver.got == []  # nothing ever reached the local receiver
            # The operator allows private targets: the same event goes out.
            worker = _worker(stack, HERALD_BASE_URL="https://herald.example", HERALD_ALLOW_PRIVATE_TARGETS="true")
            try:
                assert (await http.post(f"/v1/webhooks/{local['id']}/test", headers=auth)).status_code == 202
                # (retries of the first event may arrive too: they are allowed now)
                assert await until(lambda: asyncio.sleep(0, len(receiver.got) >= 1), within=30)
            finally:
                worker.terminate()
                worker.wait(timeout=10)
    finally:
        receiver.close()


async def test_an_instance_on_a_private_address_is_never_reached(guarded_stack) -> None:
    """A Mastodon instance URL naming this machine: refused before any connection (a listener on
    that port sees nobody), and plain http is refused as a URL while the guard is on."""
    stack, key = guarded_stack
    auth = {"Authorization": f"Bearer {key}"}
    contacted: list[int] = []

    async def count(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        contacted.append(1)
        writer.close()

    listener = await asyncio.start_server(count, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
            for instance in (f"https://localhost:{port}", f"https://127.0.0.1:{port}"):
                body = {"platform": "mastodon", "return_to": "/dashboard/profiles", "instance_url": instance}
                refused = await http.post("/v1/profiles:connect", headers=auth, json=body)
                assert (refused.status_code, refused.json()["code"]) == (502, "CONNECTION_FAILED")
            body = {"platform": "mastodon", "return_to": "/dashboard/profiles", "instance_url": "http://m.example"}
            refused = await http.post("/v1/profiles:connect", headers=auth, json=body)
            assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR")
        assert contacted == []
    finally:
        listener.close()
