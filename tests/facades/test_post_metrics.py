"""A post's metrics (docs/analytics.md) over /v1, MCP and gRPC, on both databases, with the
schedule's time injected: HERALD_METRICS_SCHEDULE of seconds (1 s, 2 s, 3 s) on a stack and
workers of the module's own (every worker on a database publishes with its own schedule). A
sandbox post published by the worker has no metrics before its first read, is read at each
interval and then no more, its numbers growing and only its platform's; its thread item too;
get_post_analytics and GetPostMetrics answer the same. A refresh is 202, a second one while it is
pending changes nothing, a worker then reads it; a post not out is INVALID_POST_STATE; the
organization's budget of refreshes runs out (429). Another organization's post is 404 on every
route and the tool. SIGKILLed workers: tests/core/test_metrics_workers.py."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta

import grpc
import httpx
import pytest
from herald.analytics.v1 import analytics_pb2, analytics_pb2_grpc
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from core.db.models import post_metric_series
from harness.live import settled
from harness.oauth_flow import mcp, register, sign_in, tokens_for
from harness.stack import Stack, stack_on_own_database, stop_processes
from tests.conftest import Org, OrgFactory
from tests.core.rpc_helpers import error_info
from tests.posts_api import create, later

SCHEDULE = (1.0, 2.0, 3.0)
REFRESHES = 5  # an organization's budget on this stack
X_METRICS = {"impressions", "likes", "reposts", "replies", "quotes", "bookmarks", "link_clicks"}
BLUESKY_METRICS = {"likes", "reposts", "replies", "quotes", "bookmarks"}


@pytest.fixture(scope="module")
def metrics_stack(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    settings = {
        "HERALD_METRICS_SCHEDULE": ",".join(f"{s:g}s" for s in SCHEDULE),
        "HERALD_METRICS_READ_POLL_SECONDS": "0.05",
        "HERALD_PUBLISH_POLL_SECONDS": "0.05",
        "HERALD_RATE_LIMIT_METRICS_REFRESH": f"{REFRESHES}/3600",
    }
    with stack_on_own_database(backend, tmp_path_factory.mktemp(f"metrics-{backend}"), **settings) as stack:
        yield stack


@pytest.fixture(scope="module")
async def metrics_orgs(metrics_stack: Stack) -> AsyncIterator[OrgFactory]:
    engine: AsyncEngine = create_async_engine(metrics_stack.database_url)
    yield OrgFactory(engine)
    await engine.dispose()


@pytest.fixture
def worker(metrics_stack: Stack) -> Iterator[subprocess.Popen]:
    proc = metrics_stack.start_worker()
    yield proc
    stop_processes([proc])


@pytest.fixture
async def api(metrics_stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=metrics_stack.base_url, timeout=30) as client:
        yield client


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def metrics(api: httpx.AsyncClient, org: Org, post_id: str) -> dict:
    answer = await api.get(f"/v1/posts/{post_id}/metrics", headers=org.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def readings_until(api: httpx.AsyncClient, org: Org, post_id: str, count: int, within: float = 30) -> dict:
    """The post's metrics once it has `count` readings (polled)."""
    deadline = time.monotonic() + within
    while True:
        body = await metrics(api, org, post_id)
        if body["collected_at"] is not None and 1 + len(body["history"]) >= count:
            return body
        assert time.monotonic() < deadline, body
        await asyncio.sleep(0.1)


async def agent_token(api: httpx.AsyncClient, stack: Stack, org: Org) -> str:
    channel = grpc.aio.insecure_channel(stack.core_target)
    try:
        session = await sign_in(channel, org.email)
    finally:
        await channel.close()
    client = await register(api)
    return (await tokens_for(api, session, client["client_id"], "posts:read"))["access_token"]


async def tool(api: httpx.AsyncClient, token: str, arguments: dict) -> dict:
    answer = await mcp(api, token, "tools/call", {"name": "get_post_analytics", "arguments": arguments})
    assert answer.status_code == 200, answer.text
    return answer.json()["result"]


@pytest.mark.usefixtures("worker")
async def test_a_published_post_is_read_at_each_interval_then_no_more(api, metrics_stack, metrics_orgs) -> None:
    org = await metrics_orgs.with_profiles("x", "bluesky")
    made = await api.post(
        "/v1/posts",
        json={
            "content": "Launch",
            "profiles": ["acme-x", "acme-bsky"],
            "customizations": {"acme-x": {"thread": [{"content": "More on the launch"}]}},
        },
        headers=org.auth,
    )
    assert made.status_code == 201, made.text
    x_id, bsky_id = (p["id"] for p in made.json()["posts"])

    before = await metrics(api, org, x_id)  # published or not, its first read is a second away
    assert before == {
        "post_id": x_id,
        "metrics": {},
        "collected_at": None,
        "source": None,
        "history": [],
        "thread": [],
        "next_read_at": before["next_read_at"],
        "tracking": before["tracking"],
    }
    assert before["tracking"] in ("not_published", "scheduled")  # not out yet, or its first read ahead
    post = await settled(api, org.auth, x_id)
    assert post["status"] == "published", post
    published_at = at(post["published_at"])

    done = await readings_until(api, org, x_id, len(SCHEDULE))
    readings = [*reversed(done["history"]), {k: done[k] for k in ("metrics", "collected_at", "source")}]
    assert len(readings) == len(SCHEDULE) and done["next_read_at"] is None and done["tracking"] == "done"
    for reading, offset in zip(readings, SCHEDULE, strict=True):
        assert at(reading["collected_at"]) >= published_at + timedelta(seconds=offset), (reading, offset)
        assert reading["source"] == "sandbox"
        assert set(reading["metrics"]) == X_METRICS  # X gives no reach, shares or video views here
    for name in X_METRICS:
        values = [r["metrics"][name] for r in readings]
        assert values == sorted(values), (name, values)  # never less than before
    assert readings[-1]["metrics"]["impressions"] > readings[0]["metrics"]["impressions"] > 0
    [item] = done["thread"]
    assert item["position"] == 0 and set(item["metrics"]) == X_METRICS and item["source"] == "sandbox"
    assert item["metrics"] != done["metrics"]  # an item of its own

    bluesky = await readings_until(api, org, bsky_id, len(SCHEDULE))
    assert set(bluesky["metrics"]) == BLUESKY_METRICS  # no views on Bluesky: absent, not 0

    await asyncio.sleep(SCHEDULE[-1] / 2 + 1)
    assert await metrics(api, org, x_id) == done  # the schedule is over: no more reads

    token = await agent_token(api, metrics_stack, org)
    result = await tool(api, token, {"post_id": x_id})
    assert not result.get("isError"), result
    assert {k: v for k, v in result["structuredContent"].items() if k != "warning"} == done

    # Each read keeps the post's latest reading on its series: the lists and summaries show it.
    listed = (await api.get("/v1/analytics/posts", headers=org.auth)).json()["posts"]
    assert {p["post_id"]: p["metrics"] for p in listed} == {x_id: done["metrics"], bsky_id: bluesky["metrics"]}
    assert {p["collected_at"] for p in listed} == {done["collected_at"], bluesky["collected_at"]}
    summary = await api.get("/v1/analytics/summary", params={"group_by": "connector"}, headers=org.auth)
    assert [g["metrics"] for g in summary.json()["groups"]] == [bluesky["metrics"], done["metrics"]]

    channel = grpc.aio.insecure_channel(metrics_stack.core_target)
    try:
        stub = analytics_pb2_grpc.AnalyticsServiceStub(channel)
        answer = await stub.GetPostMetrics(analytics_pb2.GetPostMetricsRequest(post_id=x_id), metadata=org.metadata)
        page = await stub.ListPostAnalytics(
            analytics_pb2.ListPostAnalyticsRequest(sort="likes", page_size=1), metadata=org.metadata
        )
    finally:
        await channel.close()
    assert dict(answer.latest.metrics) == done["metrics"] and len(answer.history) == len(SCHEDULE) - 1
    assert len(page.posts) == 1 and page.next_page_token
    assert page.posts[0].post_id == max(
        (x_id, bsky_id), key=lambda i: {x_id: done, bsky_id: bluesky}[i]["metrics"]["likes"]
    )


async def test_a_refresh_reads_the_post_again_and_a_second_one_while_pending_changes_nothing(
    api, metrics_stack, metrics_orgs
) -> None:
    org = await metrics_orgs.with_profiles("mastodon")
    post_id = await create(api, org, {"content": "Read me again", "profiles": ["acme-mastodon"]})
    worker = metrics_stack.start_worker()
    try:
        assert (await settled(api, org.auth, post_id))["status"] == "published"
        done = await readings_until(api, org, post_id, len(SCHEDULE))
        assert done["next_read_at"] is None
    finally:
        stop_processes([worker])

    path = f"/v1/posts/{post_id}/metrics/refresh"
    first = await api.post(path, headers=org.auth)
    assert (first.status_code, first.json()) == (202, {"post_id": post_id, "queued": True})
    pending = await metrics(api, org, post_id)
    assert pending["next_read_at"] is not None and pending["collected_at"] == done["collected_at"]
    assert pending["tracking"] == "scheduled"
    again = await api.post(path, json={}, headers=org.auth)
    assert (again.status_code, again.json()) == (202, {"post_id": post_id, "queued": False})

    worker = metrics_stack.start_worker()
    try:
        refreshed = await readings_until(api, org, post_id, len(SCHEDULE) + 1)
    finally:
        stop_processes([worker])
    assert refreshed["next_read_at"] is None  # the schedule stays over
    assert at(refreshed["collected_at"]) > at(done["collected_at"])
    assert refreshed["history"][0]["collected_at"] == done["collected_at"]
    assert (await api.post(path, headers=org.auth)).json()["queued"] is True  # nothing pending now

    scheduled = await create(api, org, {"content": "Not out", "profiles": ["acme-mastodon"], "schedule_at": later()})
    not_out = await api.post(f"/v1/posts/{scheduled}/metrics/refresh", headers=org.auth)
    assert (not_out.status_code, not_out.json()["code"]) == (409, "INVALID_POST_STATE")
    assert (await metrics(api, org, scheduled))["metrics"] == {}
    assert (await metrics(api, org, scheduled))["tracking"] == "not_published"

    # Four refreshes spent of the organization's budget: the fifth is the last.
    assert (await api.post(path, headers=org.auth)).status_code == 202
    limited = await api.post(path, headers=org.auth)
    assert (limited.status_code, limited.json()["code"]) == (429, "RATE_LIMITED"), limited.text
    assert int(limited.headers["Retry-After"]) > 0


async def test_tracking_says_a_read_under_way_and_a_post_gone_from_its_platform(
    api, metrics_stack, metrics_orgs
) -> None:
    """What the series row says, over /v1 and the tool: a worker's lease on it is `reading`, and
    a post its platform deleted (what a live read records: gone_at, no read due; the live test
    tests/e2e/test_live_metrics.py finds one on the fake X) is `gone`, its readings kept."""
    org = await metrics_orgs.with_profiles("x")
    post_id = await create(api, org, {"content": "Soon deleted", "profiles": ["acme-x"]})
    worker = metrics_stack.start_worker()
    try:
        assert (await settled(api, org.auth, post_id))["status"] == "published"
        read = await readings_until(api, org, post_id, 1)
    finally:
        stop_processes([worker])
    series = post_metric_series.c
    engine = create_async_engine(metrics_stack.database_url)
    try:
        async with engine.begin() as conn:  # as a worker's claim leaves it
            await conn.execute(
                update(post_metric_series)
                .where(series.post_id == post_id)
                .values(lease_owner="w:1", due_at=datetime.now(UTC) + timedelta(minutes=2))
            )
        reading = await metrics(api, org, post_id)
        assert reading["tracking"] == "reading" and reading["next_read_at"] is None
        async with engine.begin() as conn:  # as a read that found it deleted records it
            await conn.execute(
                update(post_metric_series)
                .where(series.post_id == post_id)
                .values(lease_owner=None, due_at=None, gone_at=datetime.now(UTC))
            )
    finally:
        await engine.dispose()
    gone = await metrics(api, org, post_id)
    assert gone["tracking"] == "gone" and gone["next_read_at"] is None
    assert gone["metrics"] == read["metrics"] and gone["collected_at"] == read["collected_at"]
    result = await tool(api, await agent_token(api, metrics_stack, org), {"post_id": post_id})
    assert not result.get("isError"), result
    assert result["structuredContent"]["tracking"] == "gone"
    refreshed = await api.post(f"/v1/posts/{post_id}/metrics/refresh", headers=org.auth)
    assert refreshed.json()["queued"] is False  # a post gone is read no more


@pytest.mark.usefixtures("worker")
async def test_another_organizations_post_is_not_found_on_every_route_and_the_tool(
    api, metrics_stack, metrics_orgs
) -> None:
    owner = await metrics_orgs.with_profiles("x")
    post_id = await create(api, owner, {"content": "Ours", "profiles": ["acme-x"]})
    assert (await settled(api, owner.auth, post_id))["status"] == "published"
    await readings_until(api, owner, post_id, 1)
    other = await metrics_orgs.with_profiles("x")

    for answer in (
        await api.get(f"/v1/posts/{post_id}/metrics", headers=other.auth),
        await api.post(f"/v1/posts/{post_id}/metrics/refresh", headers=other.auth),
        await api.get("/v1/posts/pst_nope/metrics", headers=owner.auth),
    ):
        assert (answer.status_code, answer.json()["code"]) == (404, "NOT_FOUND"), answer.text
    result = await tool(api, await agent_token(api, metrics_stack, other), {"post_id": post_id})
    assert result["isError"] is True and '"NOT_FOUND"' in result["content"][0]["text"]

    channel = grpc.aio.insecure_channel(metrics_stack.core_target)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await analytics_pb2_grpc.AnalyticsServiceStub(channel).GetPostMetrics(
                analytics_pb2.GetPostMetricsRequest(post_id=post_id), metadata=other.metadata
            )
    finally:
        await channel.close()
    assert error_info(refused.value).reason == "NOT_FOUND"
