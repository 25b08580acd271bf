"""Changing and deleting profiles over /v1, MCP (the official SDK) and gRPC (docs/api.md, "Changing a
profile" and "Deleting a profile"): PATCH's display name and tags with the rules of creation,
nothing changed on a refusal; DELETE of a profile without an account and without a post that has
not gone out, with its past posts and their outbox, a profile.deleted event; PROFILE_IN_USE while
it holds an account or a pending post; another organization's slug is 404; agents have no tool
and an access token calling the method is FORBIDDEN."""

from __future__ import annotations

import json

import grpc
import httpx
import httpx2
import pytest
from herald.profiles.v1 import profiles_pb2, profiles_pb2_grpc
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import func, select

from core.db.models import outbox, posts, profile_tags, profiles, webhook_events
from harness.live import settled
from harness.oauth_flow import register, sign_in, tokens_for
from tests.connected_profiles import set_connection
from tests.posts_api import create, later


async def test_patch_changes_the_display_name_and_replaces_the_tags(http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "acme-x", "x", ("eu", "launch"))
    await orgs.profile(org, "acme-bsky", "bluesky", ("eu",))

    changed = await http.patch(
        "/v1/profiles/acme-x", json={"display_name": "  Acme on X  ", "tags": ["Launch", "US", "us"]}, headers=org.auth
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert (body["display_name"], body["tags"]) == ("Acme on X", ["launch", "us"])  # trimmed; lowercase, sorted, once
    assert (await http.get("/v1/profiles/acme-x", headers=org.auth)).json()["tags"] == ["launch", "us"]
    # Tags decide which profiles a tag reaches: acme-x left "eu".
    eu = (await http.get("/v1/profiles", params={"tag": "eu"}, headers=org.auth)).json()["profiles"]
    assert [p["slug"] for p in eu] == ["acme-bsky"]

    # Absent fields are kept; [] removes every tag; the language beside them.
    kept = await http.patch("/v1/profiles/acme-x", json={"default_language": "de"}, headers=org.auth)
    assert (kept.json()["display_name"], kept.json()["tags"], kept.json()["default_language"]) == (
        "Acme on X",
        ["launch", "us"],
        "de",
    )
    cleared = await http.patch("/v1/profiles/acme-x", json={"tags": []}, headers=org.auth)
    assert cleared.status_code == 200 and cleared.json()["tags"] == []
    assert cleared.json()["display_name"] == "Acme on X"


async def test_a_refused_patch_changes_nothing(http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "acme-x", "x", ("eu",))
    before = (await http.get("/v1/profiles/acme-x", headers=org.auth)).json()
    for change in (
        {"display_name": ""},  # the contract: 1-200 characters
        {"display_name": "x" * 201},
        {"tags": [f"t{i}" for i in range(21)]},
        {"tags": "eu"},
        {"display_name": None},
        {},  # nothing to change
        {"display_name": "   "},  # empty once trimmed: the core's check
        {"display_name": "Fine", "tags": ["no spaces"]},  # the tag rule: nothing of the request saved
        {"display_name": "Fine", "tags": ["eu"], "default_language": "en_US"},
    ):
        refused = await http.patch("/v1/profiles/acme-x", json=change, headers=org.auth)
        assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR"), change
    assert (await http.get("/v1/profiles/acme-x", headers=org.auth)).json() == before

    other = await orgs()
    foreign = await http.patch("/v1/profiles/acme-x", json={"display_name": "Mine"}, headers=other.auth)
    assert (foreign.status_code, foreign.json()["code"]) == (404, "NOT_FOUND")
    assert (await http.get("/v1/profiles/acme-x", headers=org.auth)).json()["display_name"] == "acme-x"


@pytest.mark.usefixtures("worker")
async def test_delete_removes_a_sandbox_profile_with_its_past_posts(http, orgs, engine) -> None:
    org = await orgs.with_profiles("x", "bluesky")
    published = await create(http, org, {"content": "Out already", "profiles": ["acme-x", "acme-bsky"]})
    assert (await settled(http, org.auth, published))["status"] == "published"
    canceled = await create(http, org, {"content": "Never", "profiles": ["acme-x"], "schedule_at": later()})
    assert (await http.delete(f"/v1/posts/{canceled}", headers=org.auth)).status_code == 200
    async with engine.connect() as conn:
        profile_id = await conn.scalar(
            select(profiles.c.id).where(profiles.c.org_id == org.org_id, profiles.c.slug == "acme-x")
        )
    before = (await http.get("/v1/profiles/acme-x", headers=org.auth)).json()

    deleted = await http.delete("/v1/profiles/acme-x", headers=org.auth)
    assert deleted.status_code == 200, deleted.text
    assert deleted.json() == before  # the profile as it was
    gone = await http.get("/v1/profiles/acme-x", headers=org.auth)
    assert (gone.status_code, gone.json()["code"]) == (404, "NOT_FOUND")
    again = await http.delete("/v1/profiles/acme-x", headers=org.auth)
    assert (again.status_code, again.json()["code"]) == (404, "NOT_FOUND")
    for post_id in (published, canceled):
        assert (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).status_code == 404
    async with engine.connect() as conn:
        left = await conn.scalar(select(func.count()).select_from(posts).where(posts.c.profile_id == profile_id))
        tags = await conn.scalar(
            select(func.count()).select_from(profile_tags).where(profile_tags.c.profile_id == profile_id)
        )
        entries = await conn.scalar(
            select(func.count()).select_from(outbox).where(outbox.c.post_id.in_([published, canceled]))
        )
        event = await conn.scalar(
            select(webhook_events.c.body).where(
                webhook_events.c.org_id == org.org_id, webhook_events.c.type == "profile.deleted"
            )
        )
    assert (left, tags, entries) == (0, 0, 0)
    assert json.loads(event)["data"] == before  # the profile as it was, as GET rendered it
    # The other destination of the same request keeps its post; the slug is free again.
    listed = (await http.get("/v1/posts", headers=org.auth)).json()["posts"]
    assert [p["profile"] for p in listed] == ["acme-bsky"]
    assert (await http.get("/v1/credits", headers=org.auth)).json()["ledger"]  # the ledger keeps its entries
    recreated = await orgs.profile(org, "acme-x", "x")
    assert recreated["slug"] == "acme-x"


async def test_delete_is_refused_while_the_profile_is_in_use(http, orgs, engine) -> None:
    org = await orgs.with_profiles("x", "mastodon")
    draft = (
        await http.post("/v1/posts", json={"content": "Draft", "profiles": ["acme-x"], "draft": True}, headers=org.auth)
    ).json()["posts"][0]["id"]
    scheduled = await create(http, org, {"content": "Later", "profiles": ["acme-x"], "schedule_at": later()})
    for _ in range(2):
        refused = await http.delete("/v1/profiles/acme-x", headers=org.auth)
        assert (refused.status_code, refused.json()["code"]) == (409, "PROFILE_IN_USE")
        assert (await http.get("/v1/profiles/acme-x", headers=org.auth)).status_code == 200
        assert (await http.delete(f"/v1/posts/{draft if _ == 0 else scheduled}", headers=org.auth)).status_code == 200
    assert (await http.get(f"/v1/posts/{scheduled}", headers=org.auth)).json()["status"] == "canceled"

    # An account is disconnected first (that revokes Herald's access), then the profile may go.
    for status in ("connected", "needs_reauth"):
        await set_connection(engine, org, "acme-mastodon", status=status)
        held = await http.delete("/v1/profiles/acme-mastodon", headers=org.auth)
        assert (held.status_code, held.json()["code"]) == (409, "PROFILE_IN_USE"), status
    assert (await http.post("/v1/profiles/acme-mastodon/disconnect", headers=org.auth)).status_code == 200
    shown = (await http.get("/v1/profiles/acme-mastodon", headers=org.auth)).json()
    assert shown["connection"]["status"] == "disconnected"
    assert (await http.delete("/v1/profiles/acme-mastodon", headers=org.auth)).status_code == 200
    # Every pending post canceled: acme-x goes too.
    assert (await http.delete("/v1/profiles/acme-x", headers=org.auth)).status_code == 200

    other = await orgs.with_profiles("x")
    foreign = await http.delete("/v1/profiles/acme-x", headers=(await orgs()).auth)
    assert (foreign.status_code, foreign.json()["code"]) == (404, "NOT_FOUND")
    assert (await http.get("/v1/profiles/acme-x", headers=other.auth)).status_code == 200


@pytest.mark.one_backend
async def test_grpc_validate_only_checks_without_deleting_and_sessions_may_delete(stack, channel, orgs) -> None:
    org = await orgs.with_profiles("x")
    profiles_stub = profiles_pb2_grpc.ProfileServiceStub(channel)
    session = (("authorization", f"Bearer {await sign_in(channel, org.email)}"),)
    checked = await profiles_stub.DeleteProfile(
        profiles_pb2.DeleteProfileRequest(slug="acme-x", validate_only=True), metadata=session
    )
    assert checked.slug == "acme-x"
    assert (await profiles_stub.GetProfile(profiles_pb2.GetProfileRequest(slug="acme-x"), metadata=org.metadata)).slug
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        post_id = await create(http, org, {"content": "Later", "profiles": ["acme-x"], "schedule_at": later()})
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await profiles_stub.DeleteProfile(
                profiles_pb2.DeleteProfileRequest(slug="acme-x", validate_only=True), metadata=session
            )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "PROFILE_IN_USE" in str(refused.value.trailing_metadata())
        assert (await http.delete(f"/v1/posts/{post_id}", headers=org.auth)).status_code == 200
    deleted = await profiles_stub.DeleteProfile(profiles_pb2.DeleteProfileRequest(slug="acme-x"), metadata=session)
    assert deleted.slug == "acme-x"
    with pytest.raises(grpc.aio.AioRpcError) as gone:
        await profiles_stub.GetProfile(profiles_pb2.GetProfileRequest(slug="acme-x"), metadata=org.metadata)
    assert gone.value.code() == grpc.StatusCode.NOT_FOUND


@pytest.mark.one_backend
async def test_agents_change_profiles_but_cannot_delete_them(stack, http, channel, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "acme-x", "x", ("eu",))
    session = await sign_in(channel, org.email)
    token = (await tokens_for(http, session, (await register(http))["client_id"], ""))["access_token"]
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http_client,
        Client(streamable_http_client(f"{stack.base_url}/mcp", http_client=http_client)) as client,
    ):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"display_name", "tags", "default_language"} <= set(tools["update_profile"].input_schema["properties"])
        assert not any("delete" in name and "profile" in name for name in tools)
        done = await client.call_tool("update_profile", {"slug": "acme-x", "display_name": "Acme", "tags": ["Launch"]})
        assert not done.is_error, done.content
        assert (done.structured_content["display_name"], done.structured_content["tags"]) == ("Acme", ["launch"])
        refused = await client.call_tool("update_profile", {"slug": "acme-x", "tags": ["not a tag"]})
        assert refused.is_error and json.loads(refused.content[0].text)["code"] == "VALIDATION_ERROR"
        missing = await client.call_tool("update_profile", {"slug": "nope", "display_name": "Acme"})
        assert missing.is_error and json.loads(missing.content[0].text)["code"] == "NOT_FOUND"
    assert (await http.get("/v1/profiles/acme-x", headers=org.auth)).json()["tags"] == ["launch"]

    # The method itself refuses an agent's token, whatever its scopes.
    stub = profiles_pb2_grpc.ProfileServiceStub(channel)
    agent = (("authorization", f"Bearer {token}"), ("herald-audience", f"{stack.base_url}/mcp"))
    assert (await stub.GetProfile(profiles_pb2.GetProfileRequest(slug="acme-x"), metadata=agent)).slug == "acme-x"
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.DeleteProfile(profiles_pb2.DeleteProfileRequest(slug="acme-x"), metadata=agent)
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert (await http.get("/v1/profiles/acme-x", headers=org.auth)).status_code == 200
