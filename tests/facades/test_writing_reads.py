"""Writing tools that read (issue 11): the dry run of a post (`POST /v1/posts:validate`,
`validate_post`), recent posts (`GET /v1/posts:recent`, `get_recent_posts`) and destination
limits (`GET /v1/destination-limits`, `/v1/profiles/{slug}/limits`, `get_destination_limits`)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest

from harness.oauth_flow import mcp, register, sign_in, tokens_for


@pytest.fixture
async def org(orgs):
    return await orgs.with_profiles("x", "bluesky", "instagram", "youtube")


async def _tool(http, token: str, name: str, arguments: dict) -> dict:
    result = (await mcp(http, token, "tools/call", {"name": name, "arguments": arguments})).json()["result"]
    return json.loads(result["content"][0]["text"]) if result.get("isError") else result["structuredContent"]


async def _token(http, channel, org, scope: str) -> str:
    return (await tokens_for(http, await sign_in(channel, org.email), (await register(http))["client_id"], scope))[
        "access_token"
    ]


# --- the dry run -------------------------------------------------------------------------------


async def test_a_valid_post_is_valid_and_nothing_is_created(http, org) -> None:
    body = {"content": "Hello 👋 https://example.com/a", "profiles": ["acme-x", "acme-bsky"]}
    report = await http.post("/v1/posts:validate", json=body, headers=org.auth)
    assert report.status_code == 200, report.text
    out = report.json()
    assert (out["valid"], out["deliverable"], out["problems"]) == (True, True, [])
    assert out["credits"] == {"required": 2, "balance": 100, "sufficient": True}
    x, bsky = out["profiles"]
    # Each platform's own counting: X weighs the emoji 2 and the URL 23; Bluesky counts graphemes.
    assert (x["profile"], x["length"], x["max_length"]) == ("acme-x", 6 + 2 + 1 + 23, 280)
    assert (bsky["length"], bsky["max_length"], bsky["unit"]) == (
        29,
        300,
        "graphemes",
    )
    assert (await http.get("/v1/posts", headers=org.auth)).json()["posts"] == []


async def test_every_problem_of_every_profile_is_reported(http, org, orgs) -> None:
    await http.put("/v1/brand-voice", json={"never_publish": ["cheap"]}, headers=org.auth)
    video = await orgs.media(org, "video")
    content = "cheap " + "x" * 290
    body = {"content": content, "profiles": ["acme-x", "acme-bsky", "acme-ig", "acme-yt", "nope"], "media_ids": [video]}
    out = (await http.post("/v1/posts:validate", json=body, headers=org.auth)).json()
    assert out["valid"] is False and out["deliverable"] is False
    by_profile = {p["profile"]: p for p in out["profiles"]}
    codes = {slug: sorted({problem["code"] for problem in p["problems"]}) for slug, p in by_profile.items()}
    assert codes["acme-x"] == ["NEVER_PUBLISH_PHRASE", "VALIDATION_ERROR"]  # 296 > 280, and the phrase
    assert codes["acme-bsky"] == ["NEVER_PUBLISH_PHRASE"]  # 296 graphemes fit in 300
    assert "NEVER_PUBLISH_PHRASE" in codes["acme-ig"]
    assert codes["acme-yt"] == ["NEVER_PUBLISH_PHRASE", "VALIDATION_ERROR"]  # no title
    assert by_profile["nope"]["connector"] is None and codes["nope"] == ["VALIDATION_ERROR"]
    # Creation refuses the same request (it stops at its first failing step).
    assert (await http.post("/v1/posts", json=body, headers=org.auth)).status_code == 400


@pytest.mark.parametrize(
    ("body", "valid"),
    [
        ({"content": "short", "profiles": ["acme-x"]}, True),
        ({"content": "y" * 281, "profiles": ["acme-x"]}, False),
        ({"content": "y" * 281, "profiles": ["acme-bsky"]}, True),
        ({"content": "a video", "profiles": ["acme-yt"], "title": "T"}, False),  # no video attached
        ({"content": "ok", "profiles": ["acme-x"], "schedule_at": "2020-01-01T00:00:00Z"}, False),
        ({"content": "ok", "profiles": ["acme-x"], "media_ids": ["med_unknown"]}, False),
        ({"content": "ok", "profiles": ["acme-x"], "post_types": {"instagram": "reel"}}, True),
        ({"content": "ok", "profiles": ["acme-ig"], "post_types": {"instagram": "reel"}}, False),
    ],
)
async def test_valid_means_creation_would_accept_it(http, org, body: dict, valid: bool) -> None:
    report = (await http.post("/v1/posts:validate", json=body, headers=org.auth)).json()
    assert report["valid"] is valid, report
    created = await http.post("/v1/posts", json=body, headers=org.auth)
    assert (created.status_code == 201) is valid, created.text


async def test_insufficient_credits_make_it_undeliverable_not_invalid(http, orgs) -> None:
    org = await orgs(credits=1)
    await orgs.profile(org, "a-x", "x")
    await orgs.profile(org, "a-li", "linkedin")
    out = (
        await http.post("/v1/posts:validate", json={"content": "hi", "profiles": ["a-x", "a-li"]}, headers=org.auth)
    ).json()
    assert (out["valid"], out["deliverable"], out["credits"]) == (
        True,
        False,
        {"required": 2, "balance": 1, "sufficient": False},
    )


async def test_malformed_bodies_are_refused_as_at_creation(http, org) -> None:
    for body in (
        {"content": 5, "profiles": ["acme-x"]},
        {"content": "x"},
        {"content": "x", "profiles": ["acme-x"], "idempotency_key": "k"},
    ):
        response = await http.post("/v1/posts:validate", json=body, headers=org.auth)
        assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR"), body


async def test_validate_post_over_mcp(http, channel, org) -> None:
    token = await _token(http, channel, org, "posts:read")
    out = await _tool(http, token, "validate_post", {"content": "z" * 300, "profiles": ["acme-x", "acme-bsky"]})
    assert out["valid"] is False and [p["valid"] for p in out["profiles"]] == [False, True]


# --- recent posts -------------------------------------------------------------------------------


async def test_recent_posts_are_the_published_ones_newest_first(http, channel, org, worker) -> None:
    ids = []
    for i, profile in enumerate(["acme-x", "acme-bsky", "acme-x"]):
        created = await http.post("/v1/posts", json={"content": f"post {i}", "profiles": [profile]}, headers=org.auth)
        ids.append(created.json()["posts"][0]["id"])
        for _ in range(200):  # one at a time, so their publication times are ordered
            if (await http.get(f"/v1/posts/{ids[-1]}", headers=org.auth)).json()["status"] == "published":
                break
            await asyncio.sleep(0.05)
    later = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    await http.post(
        "/v1/posts", json={"content": "not yet", "profiles": ["acme-x"], "schedule_at": later}, headers=org.auth
    )
    recent = (await http.get("/v1/posts:recent", headers=org.auth)).json()
    assert [p["id"] for p in recent["posts"]] == ids[::-1]
    assert all(p["status"] == "published" and p["published_at"] and p["url"] for p in recent["posts"])
    only_x = (await http.get("/v1/posts:recent?profile=acme-x", headers=org.auth)).json()
    assert [p["id"] for p in only_x["posts"]] == [ids[2], ids[0]]
    bsky = (await http.get("/v1/posts:recent?connector=bluesky", headers=org.auth)).json()
    assert [p["id"] for p in bsky["posts"]] == [ids[1]]
    first = (await http.get("/v1/posts:recent?page_size=2", headers=org.auth)).json()
    rest = (
        await http.get(f"/v1/posts:recent?page_size=2&page_token={first['next_page_token']}", headers=org.auth)
    ).json()
    assert [p["id"] for p in first["posts"] + rest["posts"]] == ids[::-1] and "next_page_token" not in rest
    token = await _token(http, channel, org, "generate:read")
    assert [p["id"] for p in (await _tool(http, token, "get_recent_posts", {"page_size": 1}))["posts"]] == [ids[2]]
    bad = await http.get("/v1/posts:recent?page_token=garbage", headers=org.auth)
    assert bad.json()["code"] == "VALIDATION_ERROR"


# --- destination limits -------------------------------------------------------------------------


async def test_destination_limits_come_from_the_catalog(http, channel, org) -> None:
    everything = (await http.get("/v1/destination-limits", headers=org.auth)).json()["destinations"]
    assert [d["profile"] for d in everything] == ["acme-bsky", "acme-ig", "acme-x", "acme-yt"]
    named = (await http.get("/v1/destination-limits?profiles=acme-yt&profiles=acme-x", headers=org.auth)).json()
    yt, x = named["destinations"]
    assert (x["connector"], x["text"]["max_length"], x["kind"]) == ("x", 280, "microblogging")
    assert "23" in x["text"]["counting"]
    assert yt["title"] == {"required": True, "max_length": 100}
    assert [t["name"] for t in yt["post_types"]] == ["video", "short"] and yt["post_types"][0]["default"]
    bsky = (await http.get("/v1/profiles/acme-bsky/limits", headers=org.auth)).json()
    assert (bsky["text"]["unit"], bsky["text"]["max_utf8_bytes"]) == ("graphemes", 3000)
    unknown = await http.get("/v1/destination-limits?profiles=acme-x&profiles=nope", headers=org.auth)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "NOT_FOUND")
    assert (await http.get("/v1/profiles/nope/limits", headers=org.auth)).status_code == 404
    token = await _token(http, channel, org, "generate:read")
    out = await _tool(http, token, "get_destination_limits", {"profiles": ["acme-ig"]})
    assert out["destinations"][0]["text"]["max_hashtags"] == 30
    assert (await _tool(http, token, "get_destination_limits", {"profiles": []}))["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize(
    ("tool", "scope"), [("get_recent_posts", "generate:read"), ("get_destination_limits", "generate:read")]
)
async def test_reading_tools_need_generate_read(http, channel, org, tool: str, scope: str) -> None:
    token = await _token(http, channel, org, "posts:read posts:write media:write")
    response = await mcp(http, token, "tools/call", {"name": tool, "arguments": {}})
    assert response.status_code == 403 and f'scope="{scope}"' in response.headers["www-authenticate"]
