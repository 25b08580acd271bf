"""A profile's best times and queue slots suggested from them (docs/analytics.md, "Best times",
"Suggesting queue slots") over /v1, MCP and gRPC, on both databases, over a history seeded with
a known answer: posts published at chosen instants (summer 2026, daylight saving time in Paris and
New York alike), each with readings whose latest gives its engagement (an earlier reading, and a
thread item's, that would give another answer if read). The organization's time zone moves the
cells; below the minimum sample the platform's default answers, said as such; the suggestion
spreads over the week and `apply` saves it only for a role that may set slots; another
organization's profile is 404 everywhere."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import grpc
import pytest
from herald.analytics.v1 import audience_pb2, audience_pb2_grpc
from sqlalchemy import insert, update
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.models import organizations, post_metric_series, post_metric_snapshots, posts
from harness.oauth_flow import mcp, register, sign_in, tokens_for
from tests.conftest import Org
from tests.core.rpc_helpers import error_info

PARIS = ZoneInfo("Europe/Paris")
# (weekday's first date, local hour in Paris, posts, engagement at the latest reading)
GROUPS = (
    (datetime(2026, 6, 2), 9, 10, 100),  # Tuesdays 09:xx: the best
    (datetime(2026, 6, 4), 18, 8, 40),  # Thursdays 18:xx
    (datetime(2026, 6, 6), 7, 6, 10),  # Saturdays 07:xx: an earlier reading said 5,000
)


def engagement_values(total: int) -> dict[str, int]:
    """`total` as likes, reposts, replies, quotes, bookmarks (X gives no shares)."""
    likes = total - 4 * (total // 10)
    return {"likes": likes, "reposts": total // 10, "replies": total // 10, "quotes": total // 10,
            "bookmarks": total // 10, "impressions": 50 * total}  # fmt: skip


async def drafts(http, org: Org, slug: str, count: int) -> list[str]:
    made = []
    for i in range(count):
        answer = await http.post(
            "/v1/posts", json={"content": f"history {i}", "profiles": [slug], "draft": True}, headers=org.auth
        )
        assert answer.status_code == 201, answer.text
        made.append(answer.json()["posts"][0]["id"])
    return made


async def publish_with_readings(
    engine: AsyncEngine, org: Org, post_id: str, published_at: datetime, total: int, *, earlier: int, thread: int
) -> None:
    """The draft as published then, with a series and readings: an earlier one of `earlier`, the
    latest of `total` (a day after publishing), and a thread item's of `thread`."""
    async with engine.begin() as conn:
        await conn.execute(
            update(posts).where(posts.c.id == post_id).values(status="published", published_at=published_at)
        )
        series_id = (
            await conn.execute(
                insert(post_metric_series)
                .values(
                    post_id=post_id,
                    org_id=org.org_id,
                    published_at=published_at,
                    due_at=None,
                    step=6,
                    refresh=False,
                    failures=0,
                    last_error="",
                    raw="",
                )  # fmt: skip
                .returning(post_metric_series.c.id)
            )
        ).scalar_one()
        rows = [
            (-1, published_at + timedelta(hours=1), earlier),
            (-1, published_at + timedelta(days=1), total),
            (0, published_at + timedelta(days=1), thread),
        ]
        await conn.execute(
            insert(post_metric_snapshots),
            [
                {
                    "series_id": series_id,
                    "part": part,
                    "collected_at": at,
                    "sandbox": True,
                    "reach": None,
                    "video_views": None,
                    "watch_time_seconds": None,
                    "shares": None,
                    "link_clicks": None,
                    **engagement_values(value),
                }  # fmt: skip
                for part, at, value in rows
            ],
        )


async def seeded_history(http, engine: AsyncEngine, orgs) -> Org:
    """An organization in Europe/Paris whose X profile has the GROUPS' 24 posts read."""
    org = await orgs.with_profiles("x")
    async with engine.begin() as conn:
        await conn.execute(
            update(organizations).where(organizations.c.id == org.org_id).values(time_zone="Europe/Paris")
        )
    ids = iter(await drafts(http, org, "acme-x", sum(g[2] for g in GROUPS)))
    for first, hour, count, total in GROUPS:
        for week in range(count):
            local = (first + timedelta(weeks=week)).replace(hour=hour, minute=7 * week % 60, tzinfo=PARIS)
            await publish_with_readings(
                engine, org, next(ids), local.astimezone(UTC), total,
                earlier=5000 if hour == 7 else total // 2, thread=9000,
            )  # fmt: skip
    return org


def cell(body: dict, day: str, hour: int) -> dict:
    index = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].index(day) * 24 + hour
    found = body["grid"][index]
    assert (found["day"], found["hour"]) == (day, hour)
    return found


async def best(http, org: Org, slug: str = "acme-x") -> dict:
    answer = await http.get(f"/v1/profiles/{slug}/best-times", headers=org.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def set_zone(engine: AsyncEngine, org: Org, zone: str) -> None:
    async with engine.begin() as conn:
        await conn.execute(update(organizations).where(organizations.c.id == org.org_id).values(time_zone=zone))


async def test_best_times_from_a_seeded_history_and_the_time_zone_moves_them(http, engine, orgs, stack) -> None:
    org = await seeded_history(http, engine, orgs)
    body = await best(http, org)
    assert {k: body[k] for k in ("profile", "connector", "timezone", "basis", "sample_size", "minimum_sample")} == {
        "profile": "acme-x", "connector": "x", "timezone": "Europe/Paris", "basis": "history", "sample_size": 24,
        "minimum_sample": 20,
    }  # fmt: skip
    assert len(body["grid"]) == 168
    assert body["top"] == [
        {"day": "tue", "hour": 9, "posts": 10, "engagement": 100.0, "score": 1.0},
        {"day": "thu", "hour": 18, "posts": 8, "engagement": 40.0, "score": 0.4},
        {"day": "sat", "hour": 7, "posts": 6, "engagement": 10.0, "score": 0.1},
    ]
    assert cell(body, "tue", 9) == body["top"][0]
    assert sum(c["posts"] for c in body["grid"]) == 24
    assert cell(body, "mon", 0) == {"day": "mon", "hour": 0, "posts": 0, "engagement": 0.0, "score": 0.0}

    # New York is six hours behind Paris all summer: the same posts, six hours earlier.
    await set_zone(engine, org, "America/New_York")
    shifted = await best(http, org)
    assert shifted["timezone"] == "America/New_York"
    assert [(c["day"], c["hour"], c["posts"]) for c in shifted["top"]] == [
        ("tue", 3, 10),
        ("thu", 12, 8),
        ("sat", 1, 6),
    ]
    # Asia/Tokyo is seven hours ahead: Thursday 18:00 in Paris is Friday 01:00 there.
    await set_zone(engine, org, "Asia/Tokyo")
    assert [(c["day"], c["hour"]) for c in (await best(http, org))["top"]] == [("tue", 16), ("fri", 1), ("sat", 14)]

    channel = grpc.aio.insecure_channel(stack.core_target)
    try:
        answer = await audience_pb2_grpc.AudienceServiceStub(channel).GetBestTimes(
            audience_pb2.GetBestTimesRequest(slug="acme-x"), metadata=org.metadata
        )
    finally:
        await channel.close()
    assert answer.basis == "history" and len(answer.grid) == 168 and answer.top[0].day == "tue"


async def test_below_the_minimum_sample_the_platforms_default_answers(http, engine, orgs) -> None:
    org = await orgs.with_profiles("x", "linkedin")
    ids = await drafts(http, org, "acme-x", 5)
    for i, post_id in enumerate(ids):  # Sundays 03:00 UTC: not an hour the default names
        await publish_with_readings(
            engine, org, post_id, datetime(2026, 6, 7, 3, tzinfo=UTC) + timedelta(weeks=i), 500, earlier=1, thread=1
        )
    body = await best(http, org)
    assert (body["basis"], body["sample_size"], body["minimum_sample"], body["timezone"]) == ("default", 5, 20, "UTC")
    assert [(c["day"], c["hour"], c["score"]) for c in body["top"]] == [
        ("tue", 9, 1.0), ("tue", 10, 1.0), ("tue", 11, 1.0), ("wed", 9, 1.0), ("wed", 10, 1.0),
    ]  # fmt: skip
    assert cell(body, "sun", 3) == {"day": "sun", "hour": 3, "posts": 5, "engagement": 500.0, "score": 0.0}
    assert cell(body, "mon", 12)["score"] == 0.6  # X's second-best hours
    empty = await best(http, org, "acme-li")  # nothing published: LinkedIn's own default
    assert (empty["basis"], empty["sample_size"], empty["connector"]) == ("default", 0, "linkedin")
    assert [(c["day"], c["hour"]) for c in empty["top"]][:3] == [("tue", 8), ("tue", 9), ("tue", 10)]


async def test_suggested_slots_spread_over_the_week_and_apply_needs_the_publish_permission(http, engine, orgs) -> None:
    org = await seeded_history(http, engine, orgs)
    path = "/v1/profiles/acme-x/queue/suggest"
    proposed = await http.post(path, json={"count": 3}, headers=org.auth)
    assert proposed.status_code == 200, proposed.text
    assert proposed.json() == {
        "profile": "acme-x", "timezone": "Europe/Paris", "basis": "history", "sample_size": 24,
        "slots": [{"day": "tue", "time": "09:00"}, {"day": "thu", "time": "18:00"}, {"day": "sat", "time": "07:00"}],
        "applied": False,
    }  # fmt: skip
    unchanged = await http.get("/v1/profiles/acme-x/slots", headers=org.auth)
    assert unchanged.json() == {"timezone": "UTC", "slots": []}  # only proposed

    viewer = await orgs.member(org, "viewer")
    assert (await http.post(path, json={}, headers=viewer.auth)).json()["slots"] == proposed.json()["slots"]
    refused = await http.post(path, json={"apply": True}, headers=viewer.auth)
    assert (refused.status_code, refused.json()["code"]) == (403, "FORBIDDEN"), refused.text
    for bad in ({"count": 0}, {"count": 22}, {"count": "3"}):
        answer = await http.post(path, json=bad, headers=org.auth)
        assert (answer.status_code, answer.json()["code"]) == (400, "VALIDATION_ERROR"), (bad, answer.text)

    editor = await orgs.member(org, "editor")
    applied = await http.post(path, json={"count": 7, "apply": True}, headers=editor.auth)
    assert applied.status_code == 200, applied.text
    assert applied.json()["applied"] is True and applied.json()["slots"] == proposed.json()["slots"]  # 3 cells scored
    saved = await http.get("/v1/profiles/acme-x/slots", headers=org.auth)
    assert saved.json() == {"timezone": "Europe/Paris", "slots": proposed.json()["slots"]}


async def test_an_agent_proposes_slots_and_saves_them_only_with_posts_write(http, engine, orgs, channel) -> None:
    org = await seeded_history(http, engine, orgs)
    session = await sign_in(channel, org.email)
    client = await register(http)

    async def send(scope: str, arguments: dict):
        token = (await tokens_for(http, session, client["client_id"], scope))["access_token"]
        return await mcp(http, token, "tools/call", {"name": "suggest_queue_slots", "arguments": arguments})

    async def call(scope: str, arguments: dict) -> dict:
        answer = await send(scope, arguments)
        assert "result" in answer.json(), answer.text
        return answer.json()["result"]

    rest = await http.post("/v1/profiles/acme-x/queue/suggest", json={"count": 3}, headers=org.auth)
    proposed = await call("posts:read", {"slug": "acme-x", "count": 3})
    assert not proposed.get("isError"), proposed
    assert {k: v for k, v in proposed["structuredContent"].items() if k != "warning"} == rest.json()
    # Saving asks for more scope, as /mcp does: 403 with the challenge naming it (step-up).
    refused = await send("posts:read", {"slug": "acme-x", "count": 3, "apply": True})
    challenge = refused.headers["www-authenticate"]
    assert refused.status_code == 403 and 'error="insufficient_scope"' in challenge, refused.text
    assert "posts:write" in challenge
    assert (await http.get("/v1/profiles/acme-x/slots", headers=org.auth)).json()["slots"] == []
    applied = await call("posts:read posts:write", {"slug": "acme-x", "count": 3, "apply": True})
    assert applied["structuredContent"]["applied"] is True, applied
    saved = await http.get("/v1/profiles/acme-x/slots", headers=org.auth)
    assert saved.json() == {"timezone": "Europe/Paris", "slots": rest.json()["slots"]}
    bad = await call("posts:read", {"slug": "acme-x", "count": 0})
    assert bad["isError"] is True and '"VALIDATION_ERROR"' in bad["content"][0]["text"], bad


async def test_another_organizations_profile_is_not_found_on_every_route_the_tool_and_grpc(
    http, engine, orgs, stack
) -> None:
    owner = await orgs.with_profiles("x")
    other = await orgs.with_profiles("bluesky")
    for method, path in (("GET", "/v1/profiles/acme-x/best-times"), ("POST", "/v1/profiles/acme-x/queue/suggest")):
        answer = await http.request(method, path, headers=other.auth, **({"json": {}} if method == "POST" else {}))
        assert (answer.status_code, answer.json()["code"]) == (404, "NOT_FOUND"), answer.text
    assert (await http.get("/v1/profiles/acme-x/best-times", headers=owner.auth)).status_code == 200

    channel = grpc.aio.insecure_channel(stack.core_target)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await audience_pb2_grpc.AudienceServiceStub(channel).SuggestQueueSlots(
                audience_pb2.SuggestQueueSlotsRequest(slug="acme-x", apply=True), metadata=other.metadata
            )
        session = await sign_in(channel, other.email)
    finally:
        await channel.close()
    assert error_info(refused.value).reason == "NOT_FOUND"

    client = await register(http)
    token = (await tokens_for(http, session, client["client_id"], "posts:read"))["access_token"]
    mine = await mcp(http, token, "tools/call", {"name": "get_best_times", "arguments": {"slug": "acme-bsky"}})
    result = mine.json()["result"]
    assert not result.get("isError"), result
    rest = await best(http, other, "acme-bsky")
    assert {k: v for k, v in result["structuredContent"].items() if k != "warning"} == rest
    theirs = await mcp(http, token, "tools/call", {"name": "get_best_times", "arguments": {"slug": "acme-x"}})
    assert theirs.json()["result"]["isError"] is True and '"NOT_FOUND"' in theirs.json()["result"]["content"][0]["text"]
