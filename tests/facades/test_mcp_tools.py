"""The MCP tools (issue 15, part 2) over raw JSON-RPC: schemas from the operation table, every
tool with good and bad arguments, errors as tool results, scopes as HTTP challenges, and the
transport's rules. The official SDK drives the same tools in tests/e2e/test_mcp_agent.py."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from jsonschema import Draft202012Validator

from harness.oauth_flow import MCP_HEADERS, mcp, register, sign_in, tokens_for
from tests.messages import names

# The MCP surface: schemas, argument checks, errors, transport: nothing here depends on the database.
pytestmark = pytest.mark.one_backend

TOOLS = [
    "list_profiles",
    "get_profile_slots",
    "set_profile_slots",
    "update_profile",
    "get_organization",
    "create_post",
    "list_posts",
    "get_post",
    "update_post",
    "cancel_post",
    "retry_post",
    "schedule_post",
    "list_post_events",
    "get_post_group",
    "reschedule_post_group",
    "cancel_post_group",
    "get_post_analytics",
    "get_analytics_summary",
    "get_best_times",
    "suggest_queue_slots",
    "create_media",
    "confirm_media",
    "list_media",
    "search_stock",
    "source_media",
    "get_sourcing_run",
    "get_brand_voice",
    "validate_post",
    "preview_post",
    "get_recent_posts",
    "get_destination_limits",
    "generate_post",
    "generate_thread",
    "generate_variations",
    "generate_hashtags",
    "rewrite_for_destination",
    "get_generate_run",
]
WRITE_TOOLS = {
    "create_post": ("posts:write", {"content": "hi", "profiles": ["acme-x"]}),
    "update_post": ("posts:write", {"post_id": "pst_x", "content": "hi"}),
    "cancel_post": ("posts:write", {"post_id": "pst_x"}),
    "retry_post": ("posts:write", {"post_id": "pst_x"}),
    "reschedule_post_group": ("posts:write", {"group_id": "grp_x", "schedule_at": "2030-01-01T00:00:00Z"}),
    "cancel_post_group": ("posts:write", {"group_id": "grp_x"}),
    "create_media": ("media:write", {"filename": "a.png", "mime_type": "image/png", "size_bytes": 10}),
    "confirm_media": ("media:write", {"media_id": "med_x"}),
}
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108020000009077"
    "53de0000000c4944415478da63f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
)


class Agent:
    """One OAuth access token and the JSON-RPC calls it makes."""

    def __init__(self, http: httpx.AsyncClient, token: str) -> None:
        self.http = http
        self.token = token

    async def rpc(self, method: str, params: dict | None = None) -> httpx.Response:
        return await mcp(self.http, self.token, method, params)

    async def call(self, name: str, arguments: Any) -> dict[str, Any]:
        response = await self.rpc("tools/call", {"name": name, "arguments": arguments})
        assert response.status_code == 200, response.text
        return response.json()["result"]

    async def ok(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.call(name, arguments)
        assert not result.get("isError"), result
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
        return result["structuredContent"]

    async def fails(self, name: str, arguments: Any) -> dict[str, Any]:
        result = await self.call(name, arguments)
        assert result["isError"] is True, result
        assert "structuredContent" not in result
        return json.loads(result["content"][0]["text"])


async def _agent(http, channel, orgs, *, scope: str = "", **org_kwargs) -> tuple[Any, Agent]:
    org = await orgs(**org_kwargs)
    session = await sign_in(channel, org.email)
    client = await register(http)
    tokens = await tokens_for(http, session, client["client_id"], scope)
    return org, Agent(http, tokens["access_token"])


@pytest.fixture
async def agent(http, channel, orgs):
    org, agent = await _agent(http, channel, orgs)
    await orgs.profile(org, "acme-x", "x", ("launch",))
    await orgs.profile(org, "acme-yt", "youtube")
    agent.org = org  # type: ignore[attr-defined]
    return agent


async def test_tools_list_shows_every_tool_with_schemas_and_annotations(agent) -> None:
    first = (await agent.rpc("tools/list")).json()["result"]["tools"]
    assert [t["name"] for t in first] == TOOLS
    assert (await agent.rpc("tools/list")).json()["result"]["tools"] == first  # deterministic
    for tool in first:
        assert tool["title"] and len(tool["description"]) > 60, tool["name"]
        for key in ("inputSchema", "outputSchema"):
            Draft202012Validator.check_schema(tool[key])
            assert tool[key]["type"] == "object" and "$defs" not in json.dumps(tool[key]), (tool["name"], key)
        assert tool["inputSchema"]["additionalProperties"] is False
        assert "warning" in tool["outputSchema"]["properties"]
        hints = tool["annotations"]
        assert set(hints) >= {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
    by_name = {t["name"]: t for t in first}
    assert by_name["list_posts"]["annotations"]["readOnlyHint"] is True
    assert by_name["cancel_post"]["annotations"]["destructiveHint"] is True
    assert by_name["get_post_group"]["annotations"]["readOnlyHint"] is True
    assert by_name["cancel_post_group"]["annotations"]["destructiveHint"] is True
    assert by_name["create_post"]["annotations"]["openWorldHint"] is True
    create = by_name["create_post"]["inputSchema"]
    assert create["required"] == ["content", "profiles"]
    assert "idempotency_key" in create["properties"]
    # The same bounds the core enforces, from its catalog.
    assert by_name["list_profiles"]["inputSchema"]["properties"]["page_size"]["maximum"] == 500
    assert by_name["list_posts"]["inputSchema"]["properties"]["page_size"]["maximum"] == 100


async def test_every_tool_answers_structured_content_that_matches_its_output_schema(agent, stack) -> None:
    schemas = {t["name"]: t["outputSchema"] for t in (await agent.rpc("tools/list")).json()["result"]["tools"]}

    async def ok(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        out = await agent.ok(name, arguments)
        errors = [e.message for e in Draft202012Validator(schemas[name]).iter_errors(out)]
        assert not errors, (name, errors)
        return out

    profiles = await ok("list_profiles", {"tag": "launch"})
    assert [p["slug"] for p in profiles["profiles"]] == ["acme-x"]
    ticket = await ok(
        "create_media",
        {
            "filename": "dot.png",
            "mime_type": "image/png",
            "size_bytes": len(PNG),
            "content_hash": hashlib.sha256(PNG).hexdigest(),
        },
    )
    assert ticket["duplicate"] is False and ticket["upload"]["headers"] == {"Content-Type": "image/png"}
    put = await agent.http.put(ticket["upload_url"], content=PNG, headers=ticket["upload"]["headers"])
    assert put.status_code == 200, put.text
    media = await ok("confirm_media", {"media_id": ticket["media_id"]})
    assert media["status"] == "confirmed"
    assert [m["media_id"] for m in (await ok("list_media", {}))["media"]] == [ticket["media_id"]]
    when = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    created = await ok(
        "create_post",
        {"content": "Launch!", "profiles": ["acme-x"], "schedule_at": when, "media_ids": [ticket["media_id"]]},
    )
    post_id = created["posts"][0]["id"]
    assert created["posts"][0]["status"] == "scheduled"
    assert (await ok("get_post", {"post_id": post_id}))["media_ids"] == [ticket["media_id"]]
    listed = await ok("list_posts", {"profile": "acme-x", "connector": "x", "status": "scheduled"})
    assert [p["id"] for p in listed["posts"]] == [post_id]
    edited = await ok("update_post", {"post_id": post_id, "content": "Launch day!", "media_ids": []})
    assert (edited["content"], edited["media_ids"]) == ("Launch day!", [])
    assert (await ok("cancel_post", {"post_id": post_id}))["status"] == "canceled"
    steps = await ok("list_post_events", {"post_id": post_id, "order": "newest"})
    assert [e["kind"] for e in steps["events"]] == ["canceled", "edited", "created"]
    assert steps["events"][1]["detail"]["fields"] == ["content", "media_ids"]
    duplicate = await ok(
        "create_media",
        {
            "filename": "again.png",
            "mime_type": "image/png",
            "size_bytes": len(PNG),
            "content_hash": hashlib.sha256(PNG).hexdigest(),
        },
    )
    assert (duplicate["duplicate"], duplicate["media_id"], duplicate["upload"]) == (True, ticket["media_id"], None)


async def test_a_profile_without_an_account_says_sandbox_over_rest_and_mcp(agent, http) -> None:
    """A profile added without a platform account (`herald admin add-profile`) is a sandbox
    profile, not a `disconnected` one: an agent reading "disconnected" concludes it cannot post."""
    over_mcp = (await agent.ok("list_profiles", {}))["profiles"]
    assert {p["slug"]: p["connection"]["status"] for p in over_mcp} == {"acme-x": "sandbox", "acme-yt": "sandbox"}
    over_rest = (await http.get("/v1/profiles", headers=agent.org.auth)).json()["profiles"]
    assert {p["slug"]: p["connection"]["status"] for p in over_rest} == {"acme-x": "sandbox", "acme-yt": "sandbox"}
    one = (await http.get("/v1/profiles/acme-x", headers=agent.org.auth)).json()
    assert (one["connection"]["status"], one["connection"]["platform_account_id"]) == ("sandbox", None)


async def test_the_post_group_tools(agent, orgs) -> None:
    """A post group (docs/posts.md, "Post groups"): the posts one create_post call made, read,
    rescheduled and canceled as one; the same rules as /v1 (tests/facades/test_post_groups.py)."""
    await orgs.profile(agent.org, "acme-masto", "mastodon")
    when = datetime.now(UTC) + timedelta(days=1)
    created = await agent.ok(
        "create_post", {"content": "Hi", "profiles": ["acme-x", "acme-masto"], "schedule_at": when.isoformat()}
    )
    group_id = created["posts"][0]["group_id"]
    assert [p["group_id"] for p in created["posts"]] == [group_id] * 2
    assert [p["id"] for p in (await agent.ok("list_posts", {"group_id": group_id}))["posts"]] == [
        p["id"] for p in reversed(created["posts"])
    ]
    assert (await agent.ok("get_post_group", {"group_id": group_id}))["posts"] == created["posts"]
    later = (when + timedelta(days=1)).replace(microsecond=0)
    moved = await agent.ok("reschedule_post_group", {"group_id": group_id, "schedule_at": later.isoformat()})
    assert {datetime.fromisoformat(p["schedule_at"].replace("Z", "+00:00")) for p in moved["posts"]} == {later}
    canceled = await agent.ok("cancel_post_group", {"group_id": group_id})
    assert [p["status"] for p in canceled["posts"]] == ["canceled"] * 2
    refused = await agent.fails("reschedule_post_group", {"group_id": group_id, "schedule_at": later.isoformat()})
    assert (refused["code"], refused["retryable"]) == ("INVALID_POST_STATE", False)
    assert (await agent.fails("get_post_group", {"group_id": created["posts"][0]["id"]}))["code"] == "NOT_FOUND"


async def test_retry_post_requeues_a_failed_post(agent, engine) -> None:
    from sqlalchemy import update

    from core.db.models import posts

    created = await agent.ok("create_post", {"content": "Later", "profiles": ["acme-x"]})
    post_id = created["posts"][0]["id"]
    async with engine.begin() as conn:
        await conn.execute(
            update(posts).where(posts.c.id == post_id).values(status="failed", failure_reason="insufficient_credits")
        )
    assert (await agent.ok("retry_post", {"post_id": post_id}))["status"] == "queued"
    again = await agent.fails("retry_post", {"post_id": post_id})
    assert (again["code"], again["retryable"]) == ("INVALID_POST_STATE", False)


@pytest.mark.parametrize(
    ("name", "arguments", "argument"),
    [
        ("list_profiles", {"page_size": 600}, "page_size"),
        ("list_profiles", {"page_size": "abc"}, "page_size"),
        ("list_profiles", {"page_size": 5.0}, "page_size"),
        ("list_profiles", {"tag": 5}, "tag"),
        ("list_profiles", {"surprise": True}, "surprise"),
        ("create_post", {"content": "hi"}, "profiles"),
        ("create_post", {"content": "hi", "profiles": "acme-x"}, "profiles"),
        ("create_post", {"content": "hi", "profiles": ["acme-x"], "idempotency_key": ""}, "idempotency_key"),
        ("create_post", {"content": "hi", "profiles": ["acme-x"], "post_types": {"x": "reel"}}, "post_types"),
        ("list_posts", {"page_size": 300}, "page_size"),
        ("list_posts", {"status": "done"}, "status"),
        ("list_posts", {"connector": "myspace"}, "connector"),
        ("get_post", {}, "post_id"),
        ("get_post", {"post_id": 7}, "post_id"),
        ("update_post", {"post_id": "pst_x", "content": None}, "content"),
        ("cancel_post", {"id": "pst_x"}, "post_id"),
        ("retry_post", {"post_id": ""}, "post_id"),
        ("list_posts", {"group_id": ""}, "group_id"),
        ("get_post_group", {}, "group_id"),
        ("list_post_events", {}, "post_id"),
        ("list_post_events", {"post_id": "pst_x", "order": "sideways"}, "order"),
        ("reschedule_post_group", {"group_id": "grp_x"}, "schedule_at"),
        ("cancel_post_group", {"post_id": "pst_x"}, "group_id"),
        ("create_media", {"filename": "a.png", "mime_type": "image/png", "size_bytes": "10"}, "size_bytes"),
        ("create_media", {"filename": "a.png", "mime_type": "image/png", "size_bytes": 0}, "size_bytes"),
        (
            "create_media",
            {"filename": "a.png", "mime_type": "image/png", "size_bytes": 1, "content_hash": ""},
            "content_hash",
        ),
        ("confirm_media", {"media_id": ["med_x"]}, "media_id"),
        ("list_media", {"tag": ""}, "tag"),
    ],
)
async def test_bad_arguments_are_tool_errors_naming_the_argument(agent, name: str, arguments, argument: str) -> None:
    failure = await agent.fails(name, arguments)
    assert (failure["code"], failure["argument"], failure["retryable"]) == ("VALIDATION_ERROR", argument, False)


async def test_page_size_bounds_are_the_cores_not_a_copy(agent) -> None:
    assert "profiles" in await agent.ok("list_profiles", {"page_size": 300})  # profiles page up to 500


async def test_business_failures_carry_the_stable_code(agent) -> None:
    assert (await agent.fails("get_post", {"post_id": "pst_nope"}))["code"] == "NOT_FOUND"
    assert (await agent.fails("list_post_events", {"post_id": "pst_nope"}))["code"] == "NOT_FOUND"
    assert (await agent.fails("confirm_media", {"media_id": "med_nope"}))["code"] == "NOT_FOUND"
    bmp = await agent.fails("create_media", {"filename": "a.bmp", "mime_type": "image/bmp", "size_bytes": 10})
    assert bmp["code"] == "UNSUPPORTED_MEDIA_TYPE"
    too_long = await agent.fails("create_post", {"content": "x" * 281, "profiles": ["acme-x"]})
    assert too_long["code"] == "VALIDATION_ERROR" and names(too_long, "acme-x")
    no_title = await agent.fails("create_post", {"content": "video", "profiles": ["acme-yt"]})
    assert no_title["code"] == "VALIDATION_ERROR"
    assert (await agent.fails("create_post", {"content": "hi", "profiles": ["acme-x"], "media_ids": ["med_nope"]}))[
        "code"
    ] == "INVALID_MEDIA"
    assert (await agent.http.get("/v1/posts", headers=agent.org.auth)).json()["posts"] == []


async def test_threads_versions_drafts_and_slots_through_the_tools(agent, orgs) -> None:
    """Issue 18's fields through MCP, with the same schemas as REST."""
    await orgs.profile(agent.org, "acme-bsky", "bluesky")
    later = (datetime.now(UTC) + timedelta(days=2)).isoformat()
    created = await agent.ok(
        "create_post",
        {
            "content": "Launch",
            "profiles": ["acme-x", "acme-bsky"],
            "schedule_at": later,
            "thread": [{"content": "Two"}, {"content": "Three"}],
            "customizations": {"acme-bsky": {"content": "Launch on Bluesky", "first_comment": "Ask us anything"}},
        },
    )
    x, bsky = created["posts"]
    assert [t["content"] for t in x["thread"]] == ["Two", "Three"] and x["first_comment"] is None
    assert (bsky["content"], bsky["first_comment"], bsky["first_comment_status"]) == (
        "Launch on Bluesky",
        "Ask us anything",
        "pending",
    )
    edited = await agent.ok("update_post", {"post_id": x["id"], "thread": [{"content": "Only one"}]})
    assert [t["content"] for t in edited["thread"]] == ["Only one"]
    refused = await agent.fails(
        "create_post", {"content": "hi", "profiles": ["acme-yt"], "title": "T", "thread": [{"content": "2"}]}
    )
    assert (refused["code"], refused["feature"], refused["profiles"]) == ("UNSUPPORTED_FEATURE", "thread", ["acme-yt"])
    assert "x" in refused["valid_for"] and "youtube" not in refused["valid_for"]
    assert (await agent.fails("update_post", {"post_id": x["id"], "thread": [{"content": "a", "url": "u"}]}))[
        "code"
    ] == "VALIDATION_ERROR"
    slots = await agent.ok(
        "set_profile_slots", {"slug": "acme-x", "timezone": "Europe/Paris", "slots": [{"day": "tue", "time": "10:15"}]}
    )
    assert slots == {"timezone": "Europe/Paris", "slots": [{"day": "tue", "time": "10:15"}]}
    assert await agent.ok("get_profile_slots", {"slug": "acme-x"}) == slots
    draft = (await agent.ok("create_post", {"content": "Later", "profiles": ["acme-x"], "draft": True}))["posts"][0]
    assert draft["status"] == "draft"
    scheduled = await agent.ok("schedule_post", {"post_id": draft["id"], "next_slot": True})
    assert scheduled["status"] == "scheduled"
    local = datetime.fromisoformat(scheduled["schedule_at"].replace("Z", "+00:00")).astimezone(ZoneInfo("Europe/Paris"))
    assert (local.weekday(), local.hour, local.minute) == (1, 10, 15)
    assert (await agent.fails("schedule_post", {"post_id": draft["id"]}))["code"] == "INVALID_POST_STATE"


async def test_idempotency_key_makes_create_post_safe_to_retry(agent) -> None:
    arguments = {"content": "Once", "profiles": ["acme-x"], "idempotency_key": "agent-run-1"}
    first = await agent.ok("create_post", arguments)
    again = await agent.ok("create_post", arguments)
    assert [p["id"] for p in again["posts"]] == [p["id"] for p in first["posts"]]
    reused = await agent.fails("create_post", {**arguments, "content": "Twice"})
    assert reused["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert len((await agent.http.get("/v1/posts", headers=agent.org.auth)).json()["posts"]) == 1


@pytest.mark.parametrize("name", sorted(WRITE_TOOLS))
async def test_a_read_only_token_gets_one_challenge_naming_the_scope_each_write_tool_needs(
    http, channel, orgs, stack, name: str
) -> None:
    _, reader = await _agent(http, channel, orgs, scope="posts:read")
    scope, arguments = WRITE_TOOLS[name]
    for args in (arguments, {"surprise": True}):  # access is checked before the arguments
        response = await reader.rpc("tools/call", {"name": name, "arguments": args})
        assert response.status_code == 403, response.text
        challenge = response.headers["www-authenticate"]
        assert challenge.count("Bearer") == 1
        assert 'error="insufficient_scope"' in challenge and f'scope="{scope}"' in challenge
        assert f'resource_metadata="{stack.base_url}/.well-known/oauth-protected-resource"' in challenge


async def test_low_credits_show_as_a_warning_and_no_plan_as_a_tool_error(http, channel, orgs) -> None:
    org, low = await _agent(http, channel, orgs, credits=7)
    out = await low.ok("list_profiles", {})
    assert out["warning"] == {"code": "low_credits", "remaining": 7}
    _, unpaid = await _agent(http, channel, orgs, plan="none")
    failure = await unpaid.fails("list_profiles", {})
    assert (failure["code"], failure["retryable"]) == ("SUBSCRIPTION_REQUIRED", False)
    assert (await unpaid.fails("create_post", {"content": 5}))["code"] == "SUBSCRIPTION_REQUIRED"


async def test_protocol_faults_are_json_rpc_errors(agent) -> None:
    unknown = await agent.rpc("tools/call", {"name": "publish_everything", "arguments": {}})
    assert unknown.status_code == 200 and unknown.json()["error"]["code"] == -32602
    not_object = await agent.rpc("tools/call", {"name": "list_profiles", "arguments": ["x"]})
    assert not_object.json()["error"]["code"] == -32602
    assert (await agent.rpc("prompts/list")).json()["error"]["code"] == -32601
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {agent.token}"}
    parse = await agent.http.post("/mcp", content=b'{"jsonrpc": "2.0", "id": 1, "method": ', headers=auth)
    assert parse.status_code == 400 and parse.json()["error"]["code"] == -32700
    batch = await agent.http.post("/mcp", json=[{"jsonrpc": "2.0", "id": 1, "method": "ping"}], headers=auth)
    assert batch.status_code == 400 and batch.json()["error"]["code"] == -32600


async def test_the_protocol_version_header_is_checked(agent) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {agent.token}"}
    for good in ("2025-06-18", "2025-11-25", "2024-11-05"):
        response = await agent.http.post("/mcp", json=body, headers={**auth, "MCP-Protocol-Version": good})
        assert response.status_code == 200, good
    for bad in ("banana", "2025-13-01", "2099-01-01", ""):
        response = await agent.http.post("/mcp", json=body, headers={**auth, "MCP-Protocol-Version": bad})
        assert response.status_code == 400, bad
        error = response.json()["error"]
        assert error["code"] == -32022 and "2025-11-25" in error["data"]["supported"]


async def test_every_method_but_post_is_405_allow_post(http) -> None:
    for method in ("GET", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"):
        response = await http.request(method, "/mcp", headers=MCP_HEADERS)
        assert (response.status_code, response.headers.get("allow")) == (405, "POST"), method


async def test_other_credentials_are_told_what_they_are(http, channel, orgs) -> None:
    org = await orgs()
    session = await sign_in(channel, org.email)
    for token, words in (
        (org.api_key, ("API key", "/v1")),
        (session, ("dashboard session",)),
        ("hor_" + "a" * 43, ("refresh token",)),
        ("eyJhbGciOiJIUzI1NiJ9.e30.sig", ("not an OAuth access token",)),
    ):
        response = await mcp(http, token, "ping")
        assert (response.status_code, response.json()["error"]) == (401, "invalid_token")
        # Which kind of credential was sent is said in the description only (docs/oauth.md).
        description = response.json()["error_description"]
        assert names(description, *words), (token[:4], description)
