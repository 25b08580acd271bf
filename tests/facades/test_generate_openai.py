"""The `openai` generation backend against a local OpenAI-compatible server (harness/fakes), with the
official client over HTTP: answers within the call, runs that outlast it and are collected,
timeouts, rate limits and malformed answers mapped to stable codes and refunded, credits charged
once, and a run that survives a SIGKILLed worker (another worker completes it exactly once)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from core.db.models import credit_ledger, jobs
from harness.fakes.openai_server import FakeChatServer
from harness.stack import Stack, stack_on_own_database, stop_processes
from tests.generation_fake import openai_backend

WAIT = 1.0  # HERALD_GENERATION_WAIT_SECONDS: what a call waits before answering with the run


@pytest.fixture(scope="module")
def openai_stack(backend: str, fake_chat: FakeChatServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Its own database: every worker sharing a queue must run the same backends."""
    settings = openai_backend(
        fake_chat,
        HERALD_GENERATION_WAIT_SECONDS=str(WAIT),
        HERALD_GENERATION_TIMEOUT_SECONDS="3",
        HERALD_GENERATION_MAX_ATTEMPTS="2",
        HERALD_JOBS_LEASE_SECONDS="4",
    )
    with stack_on_own_database(backend, tmp_path_factory.mktemp(f"openai-{backend}"), **settings) as stack:
        yield stack


def _worker(stack: Stack, name: str) -> subprocess.Popen:
    return stack.spawn("core", "worker", log_name=name, env={"HERALD_PUBLISH_POLL_SECONDS": "0.5"})


@pytest.fixture(scope="module")
def openai_worker(openai_stack: Stack) -> Iterator[subprocess.Popen]:
    proc = _worker(openai_stack, "worker-openai")
    yield proc
    stop_processes([proc])


@pytest.fixture(scope="module")
async def seeded(openai_stack: Stack) -> AsyncIterator[dict]:
    engine = create_async_engine(openai_stack.database_url)
    out = await admin.bootstrap(
        engine, email="ai@example.com", password="correct horse battery", org="ai", credits_=20, plan="active"
    )
    await admin.add_profile(engine, org="ai", slug="ai-x", platform="x", tags=[])
    await admin.add_profile(engine, org="ai", slug="ai-bsky", platform="bluesky", tags=[])
    broke = await admin.bootstrap(
        engine, email="broke@example.com", password="correct horse battery", org="broke", credits_=0, plan="active"
    )
    await admin.add_profile(engine, org="broke", slug="b-x", platform="x", tags=[])
    yield {
        "auth": {"Authorization": f"Bearer {out['api_key']}"},
        "broke": {"Authorization": f"Bearer {broke['api_key']}"},
        "engine": engine,
    }
    await engine.dispose()


@pytest.fixture
async def api(openai_stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=openai_stack.base_url, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
async def worker_up(openai_stack: Stack, openai_worker: subprocess.Popen, seeded: dict) -> subprocess.Popen:
    """The worker, once it runs jobs (a first run settled): a worker takes a second to start."""
    async with httpx.AsyncClient(base_url=openai_stack.base_url, timeout=30) as client:
        run = (await client.post("/v1/generate/hashtags", json={"text": "warm up"}, headers=seeded["auth"])).json()
        await _settled(client, seeded["auth"], run["id"], seconds=60)
    return openai_worker


async def _balance(api: httpx.AsyncClient, auth: dict) -> int:
    return (await api.get("/v1/credits", headers=auth)).json()["balance"]


async def _settled(api: httpx.AsyncClient, auth: dict, run_id: str, seconds: float = 20) -> dict:
    for _ in range(int(seconds / 0.1)):
        run = (await api.get(f"/v1/generate/runs/{run_id}", headers=auth)).json()
        if run["status"] in ("ready", "failed"):
            return run
        await asyncio.sleep(0.1)
    raise AssertionError(f"run {run_id} did not settle: {run}")


async def test_a_quick_answer_comes_back_within_the_call_charged(api, seeded, fake_chat, worker_up) -> None:
    await api.put("/v1/brand-voice", json={"never_publish": ["cheap"], "tone": ["warm"]}, headers=seeded["auth"])
    before = await _balance(api, seeded["auth"])
    response = await api.post(
        "/v1/generate/posts",
        json={"brief": "Herald is live https://h.example @bob", "profiles": ["ai-x", "ai-bsky"]},
        headers=seeded["auth"],
    )
    assert response.status_code == 200, response.text
    run = response.json()
    assert (run["status"], run["backend"], run["cost"]) == ("ready", "openai", 1)
    assert [d["profile"] for d in run["output"]["drafts"]] == ["ai-x", "ai-bsky"]
    assert all(d["fits"] for d in run["output"]["drafts"])
    assert await _balance(api, seeded["auth"]) == before - 1
    sent = fake_chat.requests[-1]
    assert sent["headers"].get("authorization") == "Bearer sk-test" and sent["body"]["model"] == "fake-model"
    assert sent["body"]["temperature"] == 0 and sent["body"]["response_format"]["type"] == "json_schema"
    system = sent["body"]["messages"][0]["content"]
    assert "cheap" in system and "warm" in system  # the voice travels
    user = sent["body"]["messages"][1]["content"]
    assert "at most 280" in user and "at most 300 graphemes" in user  # each destination's real limit


async def test_a_longer_run_answers_its_id_and_is_collected(api, seeded, worker_up) -> None:
    response = await api.post(
        "/v1/generate/posts",
        json={"brief": "[slow:1.8] later https://h.example", "profiles": ["ai-x"]},
        headers=seeded["auth"],
    )
    assert response.status_code == 202, response.text
    run = response.json()
    assert run["status"] in ("queued", "running") and run["output"] is None
    done = await _settled(api, seeded["auth"], run["id"])
    assert done["status"] == "ready" and done["output"]["drafts"][0]["parts"][0]["text"].startswith("[slow:1.8]")


async def test_a_model_that_ignores_the_limit_gets_its_draft_reported_not_cut(api, seeded, worker_up) -> None:
    run = (
        await api.post(
            "/v1/generate/posts",
            json={"brief": "[toolong] a fairly long sentence about Herald here.", "profiles": ["ai-x"]},
            headers=seeded["auth"],
        )
    ).json()
    draft = (await _settled(api, seeded["auth"], run["id"]))["output"]["drafts"][0]
    assert draft["fits"] is False and draft["parts"][0]["length"] > 280 and draft["problems"]


@pytest.mark.parametrize(
    ("brief", "code"), [("[hang] never", "GENERATION_TIMEOUT"), ("[malformed] nope", "GENERATION_FAILED")]
)
async def test_failures_map_to_stable_codes_and_are_refunded(api, seeded, worker_up, brief: str, code: str) -> None:
    before = await _balance(api, seeded["auth"])
    run = (
        await api.post("/v1/generate/posts", json={"brief": brief, "profiles": ["ai-x"]}, headers=seeded["auth"])
    ).json()
    failed = await _settled(api, seeded["auth"], run["id"], seconds=30)
    assert (failed["status"], failed["error"]["code"], failed["cost"], failed["output"]) == ("failed", code, 0, None)
    assert await _balance(api, seeded["auth"]) == before  # charged, then refunded
    async with seeded["engine"].connect() as conn:
        reasons = [
            r.reason
            for r in await conn.execute(select(credit_ledger.c.reason).where(credit_ledger.c.reference == run["id"]))
        ]
        attempts = (await conn.execute(select(jobs.c.attempts).where(jobs.c.subject_id == run["id"]))).scalar()
    assert sorted(reasons) == ["generation", "refund"] and attempts == 2  # HERALD_GENERATION_MAX_ATTEMPTS


async def test_a_rate_limit_is_waited_out(api, seeded, fake_chat, worker_up) -> None:
    brief = f"[429-once] {os.urandom(4).hex()} hello"
    run = (
        await api.post("/v1/generate/posts", json={"brief": brief, "profiles": ["ai-x"]}, headers=seeded["auth"])
    ).json()
    done = await _settled(api, seeded["auth"], run["id"])
    assert done["status"] == "ready"
    seen = [r for r in fake_chat.requests if brief in r["body"]["messages"][1]["content"]]
    assert len(seen) == 2  # refused once with 429, then answered


async def test_no_credits_no_run(api, seeded, worker_up, fake_chat) -> None:
    count = len(fake_chat.requests)
    response = await api.post(
        "/v1/generate/posts", json={"brief": "hello", "profiles": ["b-x"]}, headers=seeded["broke"]
    )
    assert (response.status_code, response.json()["code"]) == (402, "INSUFFICIENT_CREDITS")
    assert len(fake_chat.requests) == count


async def test_a_run_survives_a_killed_worker_and_completes_once(
    api, seeded, fake_chat, openai_stack, worker_up
) -> None:
    """The worker holding the run is SIGKILLed while the model is answering; once its lease ends
    another worker takes the job over and completes the run exactly once, charged once."""
    await asyncio.sleep(0.5)
    fake_chat.arrived.clear()
    brief = f"[slow:2] survives {os.urandom(4).hex()}"
    run = (
        await api.post("/v1/generate/posts", json={"brief": brief, "profiles": ["ai-x"]}, headers=seeded["auth"])
    ).json()
    assert run["status"] in ("queued", "running")
    assert await asyncio.to_thread(fake_chat.arrived.wait, 10)
    os.kill(worker_up.pid, signal.SIGKILL)
    worker_up.wait(timeout=10)
    second = _worker(openai_stack, "worker-openai-2")
    try:
        done = await _settled(api, seeded["auth"], run["id"], seconds=30)
    finally:
        second.terminate()
        second.wait(timeout=10)
    assert done["status"] == "ready" and done["cost"] == 1
    seen = [r for r in fake_chat.requests if brief in r["body"]["messages"][1]["content"]]
    assert len(seen) == 2  # the killed worker's request, and the second worker's
    async with seeded["engine"].connect() as conn:
        reasons = [
            r.reason
            for r in await conn.execute(select(credit_ledger.c.reason).where(credit_ledger.c.reference == run["id"]))
        ]
        job = (await conn.execute(select(jobs.c.status, jobs.c.attempts).where(jobs.c.subject_id == run["id"]))).one()
    assert reasons == ["generation"]  # charged once, never refunded
    assert (job.status, job.attempts) == ("done", 2)
