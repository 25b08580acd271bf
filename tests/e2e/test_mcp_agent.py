"""An agent with nothing but Herald's base URL, on the official MCP SDK (streamable HTTP,
OAuthClientProvider, era negotiation left on `auto`): 401 → discovery → registration → a human
approving once in Chromium (the 401 asks for every scope the tools need) → every tool, with good
and bad arguments → a post published by the sandbox publisher. Then a scope step-up: a client
holding a posts:read token re-authorizes for posts:write when create_post asks for it, and the
agent's one grant is widened."""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import UTC, datetime, timedelta

import httpx
import httpx2
import pytest
from herald.identity.v1.oauth_pb2 import ListGrantsRequest
from herald.identity.v1.oauth_pb2_grpc import OAuthServiceStub
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from contract.operations import TOOLS
from harness.oauth_flow import register, sign_in, tokens_for
from tests.e2e.agent_helpers import MemoryStorage, approving_provider

# An agent's flow through the SDK; the core paths it uses run on both backends elsewhere: nothing here depends on the database.
pytestmark = pytest.mark.one_backend

# What the /mcp 401 challenge asks for: every scope some tool needs.
EVERY_TOOL_SCOPE = {"posts:read", "posts:write", "media:write", "generate:read", "generate:write"}

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108020000009077"
    "53de0000000c4944415478da63f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
)


def _output(result) -> dict:  # a CallToolResult
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def _failure(result) -> dict:
    assert result.is_error and result.structured_content is None
    return json.loads(result.content[0].text)


@pytest.mark.parametrize("revision", ["2026-07-28", "2025-06-18"])
async def test_from_a_base_url_to_a_published_post(page, orgs, stack, worker, revision, monkeypatch) -> None:
    """At the SDK's default (it discovers 2026-07-28 and stays stateless) and as a client of the
    2025-06-18 handshake (the SDK's handshake, offering that revision)."""
    mode = "auto"
    if revision != "2026-07-28":
        mode = "legacy"
        monkeypatch.setattr("mcp.client.session.LATEST_HANDSHAKE_VERSION", revision)
    org = await orgs(credits=100)
    await orgs.profile(org, "launch-bsky", "bluesky", ("launch",))
    await orgs.profile(org, "launch-x", "x", ("launch",))
    storage = MemoryStorage()
    provider = approving_provider(stack, page, org.email, "http://127.0.0.1:48124/callback", storage)
    async with (
        httpx2.AsyncClient(auth=provider, timeout=30) as http_client,
        Client(streamable_http_client(f"{stack.base_url}/mcp", http_client=http_client), mode=mode) as client,
    ):
        assert client.protocol_version == revision and client.server_info.name == "herald"
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"create_post", "create_media", "confirm_media", "get_post"} <= set(tools)
        assert all(t.output_schema and t.annotations for t in tools.values())

        def conforms(name: str, out: dict) -> dict:
            errors = [e.message for e in Draft202012Validator(tools[name].output_schema).iter_errors(out)]
            assert not errors, (name, errors)
            return out

        profiles = conforms("list_profiles", _output(await client.call_tool("list_profiles", {"tag": "launch"})))
        slugs = [p["slug"] for p in profiles["profiles"]]
        assert slugs == ["launch-bsky", "launch-x"]
        assert _failure(await client.call_tool("list_profiles", {"page_size": "all"}))["argument"] == "page_size"

        ticket = conforms(
            "create_media",
            _output(
                await client.call_tool(
                    "create_media",
                    {
                        "filename": "dot.png",
                        "mime_type": "image/png",
                        "size_bytes": len(PNG),
                        "content_hash": hashlib.sha256(PNG).hexdigest(),
                    },
                )
            ),
        )
        assert _failure(await client.call_tool("create_media", {"filename": "x.png"}))["code"] == "VALIDATION_ERROR"
        early = _failure(await client.call_tool("confirm_media", {"media_id": ticket["media_id"]}))
        assert early["code"] == "FILE_NOT_UPLOADED"
        async with httpx.AsyncClient() as storage_http:
            put = await storage_http.put(ticket["upload"]["url"], content=PNG, headers=ticket["upload"]["headers"])
            assert put.status_code == 200
        media = conforms(
            "confirm_media", _output(await client.call_tool("confirm_media", {"media_id": ticket["media_id"]}))
        )
        assert (
            conforms("list_media", _output(await client.call_tool("list_media", {})))["media"][0]["media_id"]
            == (media["media_id"])
        )

        # The preview shows what create_post would do, and creates nothing.
        assert tools["preview_post"].meta == {"ui": {"resourceUri": "ui://herald/post-preview"}}
        shown = conforms(
            "preview_post", _output(await client.call_tool("preview_post", {"content": "é" * 290, "profiles": slugs}))
        )
        assert [(d["profile"], d["valid"], d["parts"][0]["length"]) for d in shown["destinations"]] == [
            ("launch-bsky", True, 290),
            ("launch-x", False, 290),
        ]
        app = await client.read_resource("ui://herald/post-preview")
        assert app.contents[0].mime_type == "text/html;profile=mcp-app"
        too_long = _failure(await client.call_tool("create_post", {"content": "é" * 301, "profiles": slugs}))
        assert too_long["code"] == "VALIDATION_ERROR"
        created = conforms(
            "create_post",
            _output(
                await client.call_tool(
                    "create_post",
                    {
                        "content": "Launch day 🚀",
                        "profiles": slugs,
                        "media_ids": [media["media_id"]],
                        "idempotency_key": "launch-1",
                    },
                )
            ),
        )
        ids = [p["id"] for p in created["posts"]]
        for _ in range(200):
            posts = [conforms("get_post", _output(await client.call_tool("get_post", {"post_id": i}))) for i in ids]
            if all(p["status"] == "published" for p in posts):
                break
            await asyncio.sleep(0.05)
        assert [p["status"] for p in posts] == ["published", "published"], posts
        assert all(p["url"] for p in posts)
        published = conforms("list_posts", _output(await client.call_tool("list_posts", {"status": "published"})))
        assert sorted(p["id"] for p in published["posts"]) == sorted(ids)
        assert _failure(await client.call_tool("list_posts", {"status": "sent"}))["argument"] == "status"

        # Editing and canceling a scheduled post; retrying only a failed one.
        when = (datetime.now(UTC) + timedelta(days=2)).isoformat()
        scheduled = _output(
            await client.call_tool("create_post", {"content": "Later", "profiles": ["launch-x"], "schedule_at": when})
        )["posts"][0]
        edited = conforms(
            "update_post",
            _output(await client.call_tool("update_post", {"post_id": scheduled["id"], "content": "Soon"})),
        )
        assert edited["content"] == "Soon"
        assert _failure(await client.call_tool("update_post", {"post_id": ids[0], "content": "x"}))["code"] == (
            "INVALID_POST_STATE"
        )
        canceled = conforms("cancel_post", _output(await client.call_tool("cancel_post", {"post_id": scheduled["id"]})))
        assert canceled["status"] == "canceled"
        retry = _failure(await client.call_tool("retry_post", {"post_id": ids[0]}))
        assert (retry["code"], retry["retryable"]) == ("INVALID_POST_STATE", False)
        assert _failure(await client.call_tool("cancel_post", {}))["argument"] == "post_id"

    # One registration, one human approval; the tokens rotate from here on.
    assert storage.client is not None and storage.tokens is not None and storage.tokens.refresh_token
    assert storage.approvals == 1
    assert set(storage.tokens.scope.split()) == EVERY_TOOL_SCOPE


async def test_scope_step_up_for_a_dynamically_registered_client(page, orgs, stack, channel) -> None:
    """The agent holds a posts:read token of a client registered for posts:read (as it would after
    an earlier session); create_post needs posts:write."""
    org = await orgs()
    await orgs.profile(org, "step-x", "x")
    redirect = "http://127.0.0.1:48125/callback"
    async with httpx.AsyncClient(base_url=stack.base_url) as http:
        client_info = await register(http, scope="posts:read", redirect_uris=[redirect])
        tokens = await tokens_for(
            http, await sign_in(channel, org.email), client_info["client_id"], "posts:read", redirect_uri=redirect
        )
    storage = MemoryStorage()
    storage.client = OAuthClientInformationFull.model_validate(client_info)
    storage.tokens = OAuthToken.model_validate(tokens)
    provider = approving_provider(stack, page, org.email, redirect, storage, scope="posts:read")
    async with (
        httpx2.AsyncClient(auth=provider, timeout=30) as http_client,
        Client(streamable_http_client(f"{stack.base_url}/mcp", http_client=http_client)) as client,
    ):
        assert _output(await client.call_tool("list_profiles", {}))["profiles"][0]["slug"] == "step-x"
        assert storage.tokens.access_token == tokens["access_token"]
        # 403 insufficient_scope (scope="posts:write") → the SDK re-authorizes with the union of
        # scopes, the human approves in the browser, the call is replayed with the new token.
        created = _output(await client.call_tool("create_post", {"content": "stepped up", "profiles": ["step-x"]}))
        assert created["posts"][0]["profile"] == "step-x"
    assert storage.client.client_id == client_info["client_id"]  # the same registration, no new client
    assert set(storage.tokens.scope.split()) == {"posts:read", "posts:write"}
    assert storage.approvals == 1
    # The step-up widened the agent's one grant (docs/oauth.md, "One grant per agent").
    session = (("authorization", f"Bearer {await sign_in(channel, org.email)}"),)
    grants = (await OAuthServiceStub(channel).ListGrants(ListGrantsRequest(), metadata=session)).grants
    assert [(g.client_id, list(g.scopes)) for g in grants] == [
        (client_info["client_id"], ["posts:read", "posts:write"])
    ]


async def test_the_writing_tools_through_the_sdk(page, http, orgs, stack, worker) -> None:
    """Every writing tool through the official SDK, after the one approval of its first
    authorization: the 401 challenge asked for every scope the tools need, so no tool answers
    403 insufficient_scope (which would make the SDK open the browser again)."""
    org = await orgs(credits=50)
    await orgs.profile(org, "w-x", "x")
    await orgs.profile(org, "w-bsky", "bluesky")
    await http.put(
        "/v1/brand-voice",
        json={"never_publish": ["cheap"], "signature_hashtags": ["Acme"], "description": "Plain."},
        headers=org.auth,
    )
    published = (
        await http.post("/v1/posts", json={"content": "Already out", "profiles": ["w-x"]}, headers=org.auth)
    ).json()
    for _ in range(200):
        if (await http.get(f"/v1/posts/{published['posts'][0]['id']}", headers=org.auth)).json()[
            "status"
        ] == "published":
            break
        await asyncio.sleep(0.05)
    storage = MemoryStorage()
    provider = approving_provider(stack, page, org.email, "http://127.0.0.1:48126/callback", storage)
    brief = "Herald drafts posts in your voice. Details at https://herald.example/voice for @team."
    async with (
        httpx2.AsyncClient(auth=provider, timeout=30) as http_client,
        Client(streamable_http_client(f"{stack.base_url}/mcp", http_client=http_client)) as client,
    ):
        # Every listed tool, even with no arguments, gets past the scope check (checked first).
        tools = [t.name for t in (await client.list_tools()).tools]
        assert set(tools) == set(TOOLS)
        for name in tools:
            answer = await client.call_tool(name, {})
            assert not answer.is_error or json.loads(answer.content[0].text)["code"] != "INSUFFICIENT_SCOPE"
        assert storage.approvals == 1
        voice = _output(await client.call_tool("get_brand_voice", {}))
        assert voice["never_publish"] == ["cheap"]
        recent = _output(await client.call_tool("get_recent_posts", {}))
        assert [p["content"] for p in recent["posts"]] == ["Already out"]
        limits = _output(await client.call_tool("get_destination_limits", {"profiles": ["w-bsky"]}))
        assert limits["destinations"][0]["text"]["unit"] == "graphemes"
        check = _output(await client.call_tool("validate_post", {"content": "so cheap", "profiles": ["w-x"]}))
        assert check["valid"] is False and check["profiles"][0]["problems"][0]["code"] == "NEVER_PUBLISH_PHRASE"
        post = _output(await client.call_tool("generate_post", {"brief": brief, "profiles": ["w-x", "w-bsky"]}))
        assert post["status"] == "ready" and all(d["fits"] for d in post["output"]["drafts"])
        thread = _output(await client.call_tool("generate_thread", {"text": brief * 8, "profiles": ["w-x"]}))
        assert len(thread["output"]["drafts"][0]["parts"]) > 1
        variations = _output(
            await client.call_tool("generate_variations", {"brief": brief, "profiles": ["w-x"], "count": 2})
        )
        assert len(variations["output"]["drafts"]) == 2
        tags = _output(await client.call_tool("generate_hashtags", {"text": brief, "count": 3}))
        assert tags["output"]["hashtags"][0] == "#Acme"
        rewrite = _output(
            await client.call_tool(
                "rewrite_for_destination",
                {"text": brief + " More about the product, in detail." * 12, "profile": "w-x"},
            )
        )
        assert rewrite["output"]["drafts"][0]["fits"]
        again = _output(await client.call_tool("get_generate_run", {"run_id": post["id"]}))
        assert again == post
        bad = _failure(await client.call_tool("generate_post", {"brief": "", "profiles": ["w-x"]}))
        assert (bad["code"], bad["argument"]) == ("VALIDATION_ERROR", "brief")
        # The drafted post goes out as written.
        text = post["output"]["drafts"][0]["parts"][0]["text"]
        created = _output(await client.call_tool("create_post", {"content": text, "profiles": ["w-x"]}))
        assert created["posts"][0]["content"] == text
    assert set(storage.tokens.scope.split()) == EVERY_TOOL_SCOPE
    assert storage.approvals == 1
