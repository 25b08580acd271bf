"""A profile's followers (docs/analytics.md, "Account metrics") over /v1 and gRPC, on both
databases, with the day injected as the read interval: HERALD_ACCOUNT_METRICS_INTERVAL_SECONDS=1
on a stack and workers of the module's own. A profile the workers have not read yet has no
followers; then one reading a second, sandbox numbers from the profile's id and the day, never
fewer than before; the range picks readings in [from, to), oldest first; a bad range is
VALIDATION_ERROR; another organization's profile is 404. SIGKILLed workers:
tests/core/test_account_metrics_workers.py."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta
from itertools import pairwise

import grpc
import httpx
import pytest
from herald.analytics.v1 import audience_pb2, audience_pb2_grpc
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from core.connectors.sandbox_followers import followers
from harness.stack import Stack, stack_on_own_database, stop_processes
from tests.conftest import Org, OrgFactory
from tests.core.rpc_helpers import error_info


@pytest.fixture(scope="module")
def audience_stack(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    settings = {
        "HERALD_ACCOUNT_METRICS_INTERVAL_SECONDS": "1",
        "HERALD_ACCOUNT_METRICS_POLL_SECONDS": "0.1",
        "HERALD_PUBLISH_POLL_SECONDS": "0.2",
    }
    with stack_on_own_database(backend, tmp_path_factory.mktemp(f"audience-{backend}"), **settings) as stack:
        yield stack


@pytest.fixture(scope="module")
async def audience_orgs(audience_stack: Stack) -> AsyncIterator[OrgFactory]:
    engine: AsyncEngine = create_async_engine(audience_stack.database_url)
    yield OrgFactory(engine)
    await engine.dispose()


@pytest.fixture
async def api(audience_stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=audience_stack.base_url, timeout=30) as client:
        yield client


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def readings_until(api: httpx.AsyncClient, org: Org, slug: str, count: int, within: float = 30) -> dict:
    deadline = time.monotonic() + within
    while True:
        answer = await api.get(f"/v1/profiles/{slug}/metrics", headers=org.auth)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        if len(body["history"]) >= count:
            return body
        assert time.monotonic() < deadline, body
        await asyncio.sleep(0.1)


async def test_followers_are_read_each_interval_with_a_history_in_a_range(api, audience_stack, audience_orgs) -> None:
    org = await audience_orgs.with_profiles("x")
    profile = (await api.get("/v1/profiles/acme-x", headers=org.auth)).json()
    before = (await api.get("/v1/profiles/acme-x/metrics", headers=org.auth)).json()
    assert before["profile"] == "acme-x" and before["followers"] is None and before["history"] == []
    assert before["collected_at"] is None and before["source"] is None
    assert at(before["to"]) - at(before["from"]) == timedelta(days=30)

    worker = audience_stack.start_worker()
    try:
        body = await readings_until(api, org, "acme-x", 3)
    finally:
        stop_processes([worker])
    history = body["history"]
    times = [at(h["collected_at"]) for h in history]
    assert times == sorted(times) and all(b - a >= timedelta(seconds=0.9) for a, b in pairwise(times))
    assert body["followers"] == history[-1]["followers"] and body["collected_at"] == history[-1]["collected_at"]
    assert body["source"] == "sandbox" and {h["source"] for h in history} == {"sandbox"}
    created = at(profile["created_at"])
    for reading in history:  # the sandbox's numbers: the profile's own, for that day
        assert reading["followers"] == followers(profile["id"], created, at(reading["collected_at"]))
    counts = [h["followers"] for h in history]
    assert counts == sorted(counts) and counts[0] >= 50

    # [after, before): the first reading's instant is in, the third's is out.
    ranged = await api.get(
        "/v1/profiles/acme-x/metrics",
        params={"from": history[0]["collected_at"], "to": history[2]["collected_at"]},
        headers=org.auth,
    )
    assert ranged.status_code == 200, ranged.text
    assert [h["collected_at"] for h in ranged.json()["history"]] == [h["collected_at"] for h in history[:2]]
    assert ranged.json()["followers"] == body["followers"]  # the latest, in the range or not

    channel = grpc.aio.insecure_channel(audience_stack.core_target)
    try:
        answer = await audience_pb2_grpc.AudienceServiceStub(channel).GetProfileMetrics(
            audience_pb2.GetProfileMetricsRequest(slug="acme-x"), metadata=org.metadata
        )
    finally:
        await channel.close()
    assert answer.latest.followers == body["followers"] and len(answer.history) >= 3


@pytest.mark.one_backend
@pytest.mark.parametrize(
    "params",
    [
        {"from": "2026-12-02T00:00:00Z", "to": "2026-12-01T00:00:00Z"},
        {"from": "2025-01-01T00:00:00Z", "to": "2026-12-01T00:00:00Z"},
        {"from": "yesterday"},
        {"to": "2026-12-01"},
    ],
)
async def test_a_bad_range_is_a_validation_error(api, audience_orgs, params) -> None:
    org = await audience_orgs.with_profiles("bluesky")
    answer = await api.get("/v1/profiles/acme-bsky/metrics", params=params, headers=org.auth)
    assert (answer.status_code, answer.json()["code"]) == (400, "VALIDATION_ERROR"), answer.text


async def test_another_organizations_profile_is_not_found(api, audience_stack, audience_orgs) -> None:
    owner = await audience_orgs.with_profiles("x")
    other = await audience_orgs.with_profiles("mastodon")
    for org, slug in ((other, "acme-x"), (owner, "acme-nope")):
        answer = await api.get(f"/v1/profiles/{slug}/metrics", headers=org.auth)
        assert (answer.status_code, answer.json()["code"]) == (404, "NOT_FOUND"), answer.text
    channel = grpc.aio.insecure_channel(audience_stack.core_target)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await audience_pb2_grpc.AudienceServiceStub(channel).GetProfileMetrics(
                audience_pb2.GetProfileMetricsRequest(slug="acme-x"), metadata=other.metadata
            )
    finally:
        await channel.close()
    assert error_info(refused.value).reason == "NOT_FOUND"
