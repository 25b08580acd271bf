"""The MCP tasks extension over raw JSON-RPC (no Python client implements it yet): a generate_*
call that outlasts its wait answers a task to a 2026-07-28 client that declares the extension;
tasks/get polls it to completion, and a worker SIGKILLed in between changes nothing but the
time it takes. Clients without the extension keep the run handle. The generation backend is
the `openai` one against the local fake (harness/fakes/openai_server.py), on a stack of its own."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import httpx
import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from harness.fakes.openai_server import FakeChatServer
from harness.oauth_flow import MCP_HEADERS, register, sign_in, tokens_for
from harness.stack import Stack, stack_on_own_database, stop_processes
from tests.facades.test_generate_openai import _worker
from tests.generation_fake import openai_backend

# The extension's protocol over runs the generation tests cover on both databases.
pytestmark = pytest.mark.one_backend

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"


@pytest.fixture(scope="module")
def tasks_stack(backend: str, fake_chat: FakeChatServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    settings = openai_backend(
        fake_chat,
        HERALD_GENERATION_WAIT_SECONDS="0.5",
        HERALD_GENERATION_TIMEOUT_SECONDS="5",
        HERALD_JOBS_LEASE_SECONDS="3",
    )
    with stack_on_own_database(backend, tmp_path_factory.mktemp(f"tasks-{backend}"), **settings) as stack:
        yield stack


@pytest.fixture(scope="module")
async def token(tasks_stack: Stack) -> str:
    engine = create_async_engine(tasks_stack.database_url)
    await admin.bootstrap(
        engine, email="tasks@example.com", password="correct horse battery", org="tasks", credits_=50, plan="active"
    )
    await admin.add_profile(engine, org="tasks", slug="t-x", platform="x", tags=[])
    await engine.dispose()
    channel = grpc.aio.insecure_channel(tasks_stack.core_target)
    async with httpx.AsyncClient(base_url=tasks_stack.base_url, timeout=30) as http:
        session = await sign_in(channel, "tasks@example.com")
        client = await register(http)
        tokens = await tokens_for(http, session, client["client_id"], "posts:read generate:read generate:write")
    await channel.close()
    return tokens["access_token"]


@pytest.fixture(scope="module")
def workers(tasks_stack: Stack) -> Iterator[list[subprocess.Popen]]:
    procs = [_worker(tasks_stack, "worker-tasks")]
    yield procs
    stop_processes(procs)


class Client:
    """A 2026-07-28 client speaking raw JSON-RPC, declaring the tasks extension or not."""

    def __init__(self, http: httpx.AsyncClient, token: str, *, tasks: bool = True) -> None:
        self.http = http
        self.token = token
        self.capabilities: dict[str, Any] = {"extensions": {TASKS: {}}} if tasks else {}

    async def post(self, method: str, params: dict[str, Any], name: str | None = None) -> httpx.Response:
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "raw-tasks", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
        }
        headers = {**MCP_HEADERS, "Authorization": f"Bearer {self.token}", "MCP-Protocol-Version": MODERN}
        headers["Mcp-Method"] = method
        if name is not None:
            headers["Mcp-Name"] = name
        body = {"jsonrpc": "2.0", "id": 3, "method": method, "params": {**params, "_meta": meta}}
        return await self.http.post("/mcp", json=body, headers=headers)

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        response = await self.post("tools/call", {"name": tool, "arguments": arguments}, name=tool)
        assert response.status_code == 200, response.text
        return response.json()["result"]

    async def task(self, method: str, task_id: str) -> httpx.Response:
        return await self.post(method, {"taskId": task_id}, name=task_id)

    async def settled(self, task_id: str, seconds: float = 30) -> tuple[dict[str, Any], list[str]]:
        seen = []
        for _ in range(int(seconds / 0.1)):
            response = await self.task("tasks/get", task_id)
            assert response.status_code == 200, response.text
            task = response.json()["result"]
            seen.append(task["status"])
            if task["status"] != "working":
                return task, seen
            await asyncio.sleep(0.1)
        raise AssertionError(f"task {task_id} did not finish: {seen[-3:]}")


@pytest.fixture
async def http(tasks_stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=tasks_stack.base_url, timeout=30) as client:
        yield client


async def test_discover_advertises_the_extension(http, token) -> None:
    found = (await Client(http, token).post("server/discover", {})).json()["result"]
    assert found["capabilities"]["extensions"][TASKS] == {}


async def test_a_long_call_answers_a_task_polled_to_its_result(http, token, workers) -> None:
    client = Client(http, token)
    created = await client.call("generate_post", {"brief": "[slow:1.5] a task", "profiles": ["t-x"]})
    assert created["resultType"] == "task" and created["status"] == "working", created
    assert created["taskId"].startswith("run_") and created["pollIntervalMs"] == 1000 and created["ttlMs"] is None
    assert "content" not in created and "structuredContent" not in created
    done, seen = await client.settled(created["taskId"])
    assert seen[0] == "working" and done["status"] == "completed" and done["resultType"] == "complete"
    assert done["createdAt"] == created["createdAt"] and done["lastUpdatedAt"] >= done["createdAt"]
    # The result is what the call answers when it finishes in time: the run, as get_generate_run has it.
    result = done["result"]
    assert result["resultType"] == "complete" and not result.get("isError")
    run = result["structuredContent"]
    assert (run["id"], run["status"]) == (created["taskId"], "ready")
    assert run["output"]["drafts"][0]["parts"][0]["text"].startswith("[slow:1.5]")
    collected = await client.call("get_generate_run", {"run_id": created["taskId"]})
    assert collected["structuredContent"] == run
    # cancel and update are acknowledged (nothing to cancel once done; nothing asks for input).
    for method in ("tasks/cancel", "tasks/update"):
        response = await client.task(method, created["taskId"])
        assert response.status_code == 200 and response.json()["result"] == {"resultType": "complete"}


async def test_a_quick_call_and_a_client_without_the_extension_get_no_task(http, token, workers) -> None:
    quick = await Client(http, token).call("generate_hashtags", {"text": "quick answers"})
    assert quick["resultType"] == "complete" and quick["structuredContent"]["status"] == "ready"
    plain = await Client(http, token, tasks=False).call(
        "generate_post", {"brief": "[slow:1] no task", "profiles": ["t-x"]}
    )
    assert plain["resultType"] == "complete" and plain["structuredContent"]["status"] in ("queued", "running")


async def test_task_ids_and_headers_are_checked(http, token) -> None:
    client = Client(http, token)
    for task_id in ("run_00000000000000000000000000", "nope", "srn_00000000000000000000000000"):
        response = await client.task("tasks/get", task_id)
        assert response.status_code == 400 and response.json()["error"]["code"] == -32602, task_id
    bad = await client.post("tasks/get", {"taskId": 5}, name="5")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == -32602
    mismatch = await client.post("tasks/get", {"taskId": "run_x"}, name="run_y")
    assert mismatch.status_code == 400 and mismatch.json()["error"]["code"] == -32020
    # A client that did not declare the extension is told which capability the method needs.
    undeclared = await Client(http, token, tasks=False).task("tasks/get", "run_x")
    assert undeclared.status_code == 400 and undeclared.json()["error"]["code"] == -32021
    assert undeclared.json()["error"]["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
    # The handshake revisions have no tasks methods.
    legacy = await http.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": "run_x"}},
        headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"},
    )
    assert legacy.json()["error"]["code"] == -32601


async def test_a_task_the_organization_cannot_read_says_why_with_its_code(http, tasks_stack) -> None:
    """A run read for an organization without a plan: the implementation-defined -32000, whose
    data is the tool error with its stable code."""
    engine = create_async_engine(tasks_stack.database_url)
    await admin.bootstrap(
        engine, email="unpaid@example.com", password="correct horse battery", org="unpaid", credits_=0, plan="none"
    )
    await engine.dispose()
    channel = grpc.aio.insecure_channel(tasks_stack.core_target)
    session = await sign_in(channel, "unpaid@example.com")
    await channel.close()
    token = (await tokens_for(http, session, (await register(http))["client_id"], "generate:read"))["access_token"]
    response = await Client(http, token).task("tasks/get", "run_00000000000000000000000000")
    assert response.status_code == 200
    error = response.json()["error"]
    assert (error["code"], error["data"]["code"]) == (-32000, "SUBSCRIPTION_REQUIRED")


async def test_a_task_survives_a_killed_worker(http, token, workers, fake_chat, tasks_stack) -> None:
    """The worker running the task's job is SIGKILLed while the model answers; once its lease
    ends another worker runs the job again and the task completes, once."""
    client = Client(http, token)
    brief = f"[slow:2] survives {os.urandom(4).hex()}"

    def asked() -> int:
        return len([r for r in fake_chat.requests if brief in r["body"]["messages"][1]["content"]])

    created = await client.call("generate_post", {"brief": brief, "profiles": ["t-x"]})
    assert created["resultType"] == "task"
    for _ in range(100):  # the worker has sent this run's request to the model
        if asked():
            break
        await asyncio.sleep(0.1)
    assert asked() == 1
    victim = workers[0]
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=10)
    assert (await client.task("tasks/get", created["taskId"])).json()["result"]["status"] == "working"
    workers.append(_worker(tasks_stack, "worker-tasks-2"))
    done, _ = await client.settled(created["taskId"], seconds=40)
    run = done["result"]["structuredContent"]
    assert (done["status"], run["status"], run["cost"]) == ("completed", "ready", 1)
    assert asked() == 2  # the killed worker's request, and the second worker's
