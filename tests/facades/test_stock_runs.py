"""Sourcing runs on the lease queue (issue 19: one durability for every run): a run whose core
stops is finished by a worker from the stored request, and when the core and a worker both
finish the same run, it is recorded and charged once. Real processes: the core, the facade, a
worker, the demo stock provider and its image host with faults."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from core.db.models import credit_ledger, jobs, media, organizations, sourcing_runs
from core.stock.demo import DemoStockServer
from harness.stack import Stack, stop_processes, wait_for_grpc
from tests.facades.test_stock import new_org, refs
from tests.stock_demo import stack_with_demo_stock


@pytest.fixture(scope="module")
def stack(backend: str, demo: DemoStockServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The call waits 0.5 s, and a run's job is due 1 s after the run starts. Shared by the
    module's tests: the one that stops the core starts another before it ends."""
    workdir = tmp_path_factory.mktemp(f"stock-runs-{backend}")
    settings = {
        "HERALD_STOCK_SOURCE_WAIT_SECONDS": "0.5",
        "HERALD_STOCK_SOURCE_RECOVER_SECONDS": "1",
        "HERALD_STOCK_TIMEOUT_SECONDS": "10",
        "HERALD_JOBS_POLL_SECONDS": "0.1",
    }
    with stack_with_demo_stock(backend, demo, workdir, stock_b=False, **settings) as stack:
        yield stack


@pytest.fixture(scope="module")
def core(stack: Stack) -> dict[str, object]:
    """The stack's live core process (the test that stops it starts another)."""
    return {"process": stack.processes[0]}


@pytest.fixture(scope="module")
def worker(stack: Stack) -> Iterator[object]:
    proc = stack.spawn("core", "worker", log_name="worker")
    yield proc
    stop_processes([proc])


@pytest.fixture
async def engine(stack: Stack) -> AsyncIterator[AsyncEngine]:
    engine = create_async_engine(stack.database_url)
    yield engine
    await engine.dispose()


async def _settled(engine: AsyncEngine, run_id: str, seconds: float = 30) -> str:
    for _ in range(int(seconds / 0.1)):
        async with engine.connect() as conn:
            status = await conn.scalar(select(sourcing_runs.c.status).where(sourcing_runs.c.id == run_id))
        if status != "running":
            return status
        await asyncio.sleep(0.1)
    raise AssertionError(f"run {run_id} still running")


async def _books(engine: AsyncEngine, org_id: str, run_id: str) -> tuple[int, int, str]:
    """(stock_image debits, media rows, the run's job status) of the organization."""
    async with engine.connect() as conn:
        debits = await conn.scalar(
            select(func.count())
            .select_from(credit_ledger)
            .where(credit_ledger.c.org_id == org_id, credit_ledger.c.reason == "stock_image")
        )
        rows = await conn.scalar(select(func.count()).select_from(media).where(media.c.org_id == org_id))
        job = await conn.scalar(select(jobs.c.status).where(jobs.c.subject_id == run_id))
    return debits, rows, job


async def _start_run(stack: Stack, engine: AsyncEngine, demo: DemoStockServer, slow: float) -> tuple[object, str]:
    owner = await new_org(engine, credits=10)
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=60) as api:
        chosen = await refs(api, owner, 2)
        demo.image_fault(chosen[0], "slow", seconds=slow)
        started = await api.post("/v1/media/source", json={"source_refs": chosen}, headers=owner.auth)
    body = started.json()
    assert (started.status_code, body["kind"], body["status"]) == (200, "run", "running"), body
    return owner, body["run_id"]


async def test_a_run_whose_core_stopped_is_finished_by_a_worker(stack, engine, demo, worker, core) -> None:
    process = core["process"]
    try:
        owner, run_id = await _start_run(stack, engine, demo, slow=3.0)
        os.kill(process.pid, signal.SIGKILL)  # the core doing the work is gone, mid-fetch
        process.wait(timeout=10)
        assert await _settled(engine, run_id) == "ready", stack.logs()
    finally:
        demo.clear_faults()
        if process.poll() is not None:  # a core again, for the module's other test
            core["process"] = stack.spawn("core", "core", log_name="core-again")
            wait_for_grpc(stack.core_target, core["process"])
    assert worker.poll() is None
    debits, rows, job = await _books(engine, owner.org_id, run_id)
    assert (debits, rows, job) == (1, 2, "done")
    async with engine.connect() as conn:
        balance = await conn.scalar(select(organizations.c.credit_balance).where(organizations.c.id == owner.org_id))
    assert balance == 10 - 2


async def test_a_run_finished_by_its_core_and_a_worker_is_recorded_once(stack, engine, demo, worker) -> None:
    """The worker takes the job after 1 s while the core is still fetching (2 s): both do the
    work, one records it."""
    try:
        owner, run_id = await _start_run(stack, engine, demo, slow=2.0)
        assert await _settled(engine, run_id) == "ready", stack.logs()
        await asyncio.sleep(2.5)  # the slower side has finished too, and found the run recorded
    finally:
        demo.clear_faults()
    assert worker.poll() is None
    assert await _books(engine, owner.org_id, run_id) == (1, 2, "done")
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as api:
        read = (await api.get(f"/v1/media/source/runs/{run_id}", headers=owner.auth)).json()
    assert (read["status"], read["delivered_count"], len(read["media_ids"])) == ("ready", 2, 2)
