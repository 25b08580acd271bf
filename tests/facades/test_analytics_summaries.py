"""Summaries and lists of analytics (docs/analytics.md, "Summaries and lists") over /v1 and MCP, on
both databases, against a seeded known answer: published posts written with their series and
latest readings as the workers leave them, in an organization on New York time, across a
Sunday-to-Monday midnight, the spring-forward Sunday and a week's end. Days and weeks are the
organization's; sums leave out what no post has; sorting, paging, filters, profile limits and
validation; another organization's posts never appear. The workers' own path to the latest
reading: tests/facades/test_post_metrics.py."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.models import post_metric_series, posts, profiles
from core.ids import new_id
from harness.oauth_flow import mcp, register, sign_in, tokens_for
from tests.conftest import Org, OrgFactory

RANGE = {"from": "2026-03-01T00:00:00Z", "to": "2026-03-15T00:00:00Z"}
# (name, profile, published at (UTC), latest metrics or None before the first reading)
POSTS = [
    # Sunday 1 March 22:30 in New York (EST, UTC-5): a Monday in UTC.
    ("p1", "acme-x", "2026-03-02T03:30:00Z", {"likes": 10, "reposts": 2, "impressions": 1000}),
    # Monday 2 March 00:30 in New York.
    ("p2", "acme-bsky", "2026-03-02T05:30:00Z", {"likes": 5, "replies": 1}),
    # Sunday 8 March 08:00 EDT (clocks went forward at 02:00).
    ("p3", "acme-x", "2026-03-08T12:00:00Z", {"likes": 1, "impressions": 50}),
    # Sunday 8 March 23:59 EDT: the week's last minute; not read yet.
    ("p4", "acme-bsky", "2026-03-09T03:59:00Z", None),
    # Monday 9 March 00:00 EDT: the next week.
    ("p5", "acme-x", "2026-03-09T04:00:00Z", {"likes": 7, "bookmarks": 3, "impressions": 700}),
    # Outside the range.
    ("p6", "acme-x", "2026-02-20T12:00:00Z", {"likes": 99}),
]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def publish(engine: AsyncEngine, org: Org, slug: str, when: datetime, values: dict | None) -> str:
    """A published post and its series, as the publisher and a worker's read leave them."""
    async with engine.begin() as conn:
        profile = (
            await conn.execute(
                select(profiles.c.id, profiles.c.connector).where(
                    profiles.c.org_id == org.org_id, profiles.c.slug == slug
                )
            )
        ).one()
        post_id = new_id("pst")
        await conn.execute(
            posts.insert().values(
                id=post_id, org_id=org.org_id, profile_id=profile.id, group_id=new_id("grp"), profile_slug=slug,
                connector=profile.connector, content=f"Post at {when:%d %H:%M}", post_type="feed",
                status="published", schedule_at=when, due_at=when, created_at=when, updated_at=when,
                delivery_key=uuid.uuid4().hex, published_at=when, platform_post_id=f"sb-{post_id}",
                platform_url=f"https://example.com/{post_id}",
            )
        )  # fmt: skip
        latest = {f"latest_{name}": value for name, value in (values or {}).items()}
        await conn.execute(
            post_metric_series.insert().values(
                post_id=post_id, org_id=org.org_id, profile_id=profile.id, connector=profile.connector,
                published_at=when, due_at=None, step=6, refresh=False, failures=0, last_error="", raw="",
                latest_at=when + timedelta(hours=1) if values is not None else None,
                latest_sandbox=True if values is not None else None, **latest,
            )
        )  # fmt: skip
    return post_id


@pytest.fixture
async def seeded(orgs: OrgFactory, engine: AsyncEngine, http: httpx.AsyncClient) -> tuple[Org, dict[str, str]]:
    """An organization on New York time with POSTS, and another organization with a post of its own
    in the same range."""
    org = await orgs()
    await orgs.profile(org, "acme-x", "x", tags=("launch",))
    await orgs.profile(org, "acme-bsky", "bluesky")
    changed = await http.patch("/v1/organization", json={"time_zone": "America/New_York"}, headers=org.auth)
    assert changed.status_code == 200, changed.text
    ids = {name: await publish(engine, org, slug, at(when), values) for name, slug, when, values in POSTS}
    other = await orgs()
    await orgs.profile(other, "acme-x", "x")
    ids["other"] = await publish(engine, other, "acme-x", at("2026-03-05T12:00:00Z"), {"likes": 1000})
    return org, ids


async def summary(http: httpx.AsyncClient, org: Org, **params: str) -> dict:
    answer = await http.get("/v1/analytics/summary", params={**RANGE, **params}, headers=org.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def listed(http: httpx.AsyncClient, org: Org, **params: str) -> dict:
    answer = await http.get("/v1/analytics/posts", params={**RANGE, **params}, headers=org.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


def group(key: str, posts: int, engagement: int | None, **metrics: int) -> dict:
    return {"key": key, "posts": posts, "metrics": metrics, "engagement": engagement}


async def test_days_are_the_organizations_and_absent_metrics_stay_absent(http, seeded) -> None:
    org, _ = seeded
    body = await summary(http, org)
    assert body["group_by"] == "day" and body["time_zone"] == "America/New_York"
    assert (body["from"], body["to"]) == ("2026-03-01T00:00:00.000Z", "2026-03-15T00:00:00.000Z")
    assert body["groups"] == [
        group("2026-03-01", 1, 12, likes=10, reposts=2, impressions=1000),
        group("2026-03-02", 1, 6, likes=5, replies=1),
        group("2026-03-08", 2, 1, likes=1, impressions=50),
        group("2026-03-09", 1, 10, likes=7, bookmarks=3, impressions=700),
    ]
    assert body["total"] == group("", 5, 29, impressions=1750, likes=23, reposts=2, replies=1, bookmarks=3)


async def test_weeks_run_monday_to_sunday_in_the_organizations_zone(http, seeded) -> None:
    org, _ = seeded
    body = await summary(http, org, group_by="week")
    assert body["groups"] == [
        group("2026-02-23", 1, 12, likes=10, reposts=2, impressions=1000),
        group("2026-03-02", 3, 7, likes=6, replies=1, impressions=50),
        group("2026-03-09", 1, 10, likes=7, bookmarks=3, impressions=700),
    ]


async def test_per_profile_and_per_connector(http, seeded) -> None:
    org, _ = seeded
    x = group("acme-x", 3, 29 - 6, likes=18, reposts=2, bookmarks=3, impressions=1750)
    bsky = group("acme-bsky", 2, 6, likes=5, replies=1)
    assert (await summary(http, org, group_by="profile"))["groups"] == [bsky, x]
    by_connector = (await summary(http, org, group_by="connector"))["groups"]
    assert by_connector == [bsky | {"key": "bluesky"}, x | {"key": "x"}]
    only = await summary(http, org, group_by="connector", tag="launch")
    assert only["groups"] == [x | {"key": "x"}] and only["total"]["posts"] == 3


async def test_posts_newest_first_with_their_latest_metrics(http, seeded) -> None:
    org, ids = seeded
    body = await listed(http, org)
    assert [p["post_id"] for p in body["posts"]] == [ids[n] for n in ("p5", "p4", "p3", "p2", "p1")]
    assert "next_page_token" not in body
    first = body["posts"][0]
    assert first == {
        "post_id": ids["p5"],
        "profile": "acme-x",
        "connector": "x",
        "content": "Post at 09 04:00",
        "url": f"https://example.com/{ids['p5']}",
        "published_at": "2026-03-09T04:00:00.000Z",
        "metrics": {"impressions": 700, "likes": 7, "bookmarks": 3},
        "engagement": 10,
        "collected_at": "2026-03-09T05:00:00.000Z",
        "source": "sandbox",
    }
    unread = body["posts"][1]
    assert (unread["metrics"], unread["engagement"], unread["collected_at"], unread["source"]) == ({}, None, None, None)


async def test_sorted_by_a_metric_and_paged_without_the_value_last(http, seeded) -> None:
    org, ids = seeded
    seen, token = [], None
    while True:
        params = {"sort": "likes", "page_size": "2"} | ({"page_token": token} if token else {})
        body = await listed(http, org, **params)
        seen.append([p["post_id"] for p in body["posts"]])
        token = body.get("next_page_token")
        if token is None:
            break
    assert seen == [[ids["p1"], ids["p5"]], [ids["p2"], ids["p3"]], [ids["p4"]]]
    rising = await listed(http, org, sort="impressions", order="asc")
    assert [p["post_id"] for p in rising["posts"]] == [ids[n] for n in ("p3", "p5", "p1", "p2", "p4")]
    engaged = await listed(http, org, sort="engagement")
    assert [p["engagement"] for p in engaged["posts"]] == [12, 10, 6, 1, None]
    other = await http.get(
        "/v1/analytics/posts", params={**RANGE, "sort": "reach", "page_token": token or body_token(seen)},
        headers=org.auth,
    )  # fmt: skip
    assert other.status_code == 400 and other.json()["code"] == "VALIDATION_ERROR", other.text


def body_token(_: list) -> str:
    """A page token of sort=likes (its pages are read above): made the way the core writes them."""
    import base64
    import json

    raw = json.dumps({"after": "likes:desc|5|2026-03-02T05:30:00+00:00|pst_x"}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


async def test_filters(http, seeded) -> None:
    org, ids = seeded
    by_profile = await listed(http, org, profile="acme-bsky")
    assert [p["post_id"] for p in by_profile["posts"]] == [ids["p4"], ids["p2"]]
    by_tag = await listed(http, org, tag="launch")
    assert [p["post_id"] for p in by_tag["posts"]] == [ids["p5"], ids["p3"], ids["p1"]]
    by_connector = await listed(http, org, connector="bluesky")
    assert [p["post_id"] for p in by_connector["posts"]] == [ids["p4"], ids["p2"]]
    narrow = await listed(http, org, **{"from": "2026-03-08T12:00:00Z", "to": "2026-03-09T04:00:00Z"})
    assert [p["post_id"] for p in narrow["posts"]] == [ids["p4"], ids["p3"]]  # from inclusive, to exclusive
    assert (await listed(http, org, profile="nobody"))["posts"] == []


async def test_the_last_30_days_by_default(http, orgs: OrgFactory, engine: AsyncEngine) -> None:
    org = await orgs()
    await orgs.profile(org, "acme-x", "x")
    now = datetime.now(UTC)
    recent = await publish(engine, org, "acme-x", now - timedelta(days=29), {"likes": 2})
    await publish(engine, org, "acme-x", now - timedelta(days=31), {"likes": 3})
    answer = await http.get("/v1/analytics/posts", headers=org.auth)
    assert [p["post_id"] for p in answer.json()["posts"]] == [recent]
    total = (await http.get("/v1/analytics/summary", headers=org.auth)).json()["total"]
    assert total == group("", 1, 2, likes=2)
    to_only = await http.get(
        "/v1/analytics/summary", params={"to": (now - timedelta(days=2)).isoformat()}, headers=org.auth
    )
    assert to_only.json()["total"]["posts"] == 2  # from: 30 days before to, both within
    assert at(to_only.json()["to"]) - at(to_only.json()["from"]) == timedelta(days=30)


@pytest.mark.parametrize(
    ("path", "params", "argument"),
    [
        ("/v1/analytics/posts", {"from": "yesterday"}, "from"),
        ("/v1/analytics/posts", {"to": "2026-03-01T00:00:00"}, "to"),  # no offset
        ("/v1/analytics/posts", {"from": "2026-03-02T00:00:00Z", "to": "2026-03-02T00:00:00Z"}, "from"),
        ("/v1/analytics/posts", {"sort": "virality"}, "sort"),
        ("/v1/analytics/posts", {"order": "up"}, "order"),
        ("/v1/analytics/posts", {"connector": "myspace"}, "connector"),
        ("/v1/analytics/posts", {"page_token": "!!"}, "page_token"),
        ("/v1/analytics/summary", {"group_by": "month"}, "group_by"),
        ("/v1/analytics/summary", {"from": "2026-03-03T00:00:00Z", "to": "2026-03-02T00:00:00Z"}, "from"),
        ("/v1/analytics/summary", {"tag": "Not a tag!"}, "tag"),
    ],
)
@pytest.mark.one_backend
async def test_bad_arguments_are_400_naming_the_argument(http, orgs, path, params, argument) -> None:
    org = await orgs()
    answer = await http.get(path, params=params, headers=org.auth)
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["code"] == "VALIDATION_ERROR" and argument in body["error"], body


async def test_another_organizations_posts_never_appear(http, seeded, orgs: OrgFactory) -> None:
    org, ids = seeded
    assert ids["other"] not in {p["post_id"] for p in (await listed(http, org))["posts"]}
    assert (await summary(http, org))["total"]["posts"] == 5
    stranger = await orgs()
    assert (await listed(http, stranger))["posts"] == []
    assert (await summary(http, stranger))["groups"] == []
    assert (await summary(http, stranger))["total"] == group("", 0, None)


async def test_any_role_reads_and_profile_limits_apply(http, seeded, orgs: OrgFactory, engine: AsyncEngine) -> None:
    org, ids = seeded
    viewer = await orgs.member(org, "viewer")
    assert (await summary(http, viewer))["total"]["posts"] == 5
    limited = await orgs.member(org, "editor")
    changed = await http.patch(f"/v1/members/{limited.user_id}", json={"profile_tags": ["launch"]}, headers=org.auth)
    assert changed.status_code == 200, changed.text
    assert [p["post_id"] for p in (await listed(http, limited))["posts"]] == [ids["p5"], ids["p3"], ids["p1"]]
    assert [g["key"] for g in (await summary(http, limited, group_by="profile"))["groups"]] == ["acme-x"]
    unauthenticated = await http.get("/v1/analytics/summary")
    assert unauthenticated.status_code == 401


async def test_recent_posts_carry_their_latest_metrics(http, seeded) -> None:
    org, ids = seeded
    answer = await http.get("/v1/posts:recent", params={"page_size": "3"}, headers=org.auth)
    assert answer.status_code == 200, answer.text
    shown = [(p["id"], p["metrics"]) for p in answer.json()["posts"]]
    assert shown == [
        (ids["p5"], {"impressions": 700, "likes": 7, "bookmarks": 3}),
        (ids["p4"], {}),
        (ids["p3"], {"impressions": 50, "likes": 1}),
    ]


async def test_the_agents_tools(http, seeded, channel) -> None:
    org, ids = seeded
    session = await sign_in(channel, org.email)
    client = await register(http)
    token = (await tokens_for(http, session, client["client_id"], "posts:read generate:read"))["access_token"]
    listed_tools = (await mcp(http, token, "tools/list")).json()["result"]["tools"]
    summary_tool = next(t for t in listed_tools if t["name"] == "get_analytics_summary")
    assert summary_tool["annotations"]["readOnlyHint"] is True and summary_tool["annotations"]["idempotentHint"]
    assert "outputSchema" in summary_tool and "from" in summary_tool["inputSchema"]["properties"]
    called = await mcp(
        http, token, "tools/call", {"name": "get_analytics_summary", "arguments": {**RANGE, "group_by": "week"}}
    )
    result = called.json()["result"]
    assert not result.get("isError"), result
    assert [g["key"] for g in result["structuredContent"]["groups"]] == ["2026-02-23", "2026-03-02", "2026-03-09"]
    assert result["structuredContent"]["total"]["engagement"] == 29
    recent = await mcp(http, token, "tools/call", {"name": "get_recent_posts", "arguments": {"page_size": 1}})
    posts_shown = recent.json()["result"]["structuredContent"]["posts"]
    assert posts_shown[0]["id"] == ids["p5"] and posts_shown[0]["metrics"]["likes"] == 7
    refused = await mcp(
        http, token, "tools/call", {"name": "get_analytics_summary", "arguments": {"group_by": "month"}}
    )
    assert refused.json()["result"]["isError"] is True
