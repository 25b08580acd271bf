"""What each role may do (issue 32; docs/teams.md), over every /v1 route and every MCP tool, built
from the role table the core serves in its catalog and the operation table, never written by hand
per route: a member whose role lacks a method's permission gets 403 FORBIDDEN naming it, and one
whose role has it is never refused for it. A lowered role holds on the member's next request, for
their API key and their agent's token alike."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from herald.catalog.v1 import catalog_pb2, catalog_pb2_grpc

from contract.operations import OPERATIONS
from harness.oauth_flow import mcp, register, sign_in, tokens_for

LATER = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
ALL_SCOPES = "posts:read posts:write media:write generate:read generate:write"
_PLACEHOLDERS = {"user_id": "usr_nobody", "post_id": "pst_nobody", "group_id": "grp_nobody", "slug": "nobody"}


@pytest.fixture(scope="module")
async def rules(channel) -> tuple[dict[str, frozenset[str]], dict[str, str]]:
    """The roles with their permissions, and each method's permission: the core's catalog."""
    catalog = await catalog_pb2_grpc.CatalogServiceStub(channel).GetCatalog(catalog_pb2.GetCatalogRequest())
    roles = {r.name: frozenset(r.permissions) for r in catalog.roles}
    return roles, {m.name: m.permission for m in catalog.methods}


def _path(template: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: _PLACEHOLDERS.get(m.group(1), "nobody"), template)


async def _call(http, op, auth: dict[str, str]):
    kwargs = {"json": {}} if op.method in ("POST", "PUT", "PATCH") and op.body_media_type == "application/json" else {}
    return await http.request(op.method, _path(op.path), headers=auth, **kwargs)


def _refused_by_role(response) -> str | None:
    """The permission a 403 says the role lacks; None for any other answer."""
    if response.status_code != 403:
        return None
    body = response.json()
    assert body["code"] == "FORBIDDEN", body
    return body.get("permission")


async def test_every_route_answers_each_role_as_the_role_table_says(http, orgs, rules) -> None:
    roles, permission_of = rules
    assert list(roles) == ["owner", "admin", "editor", "contributor", "viewer"]
    org = await orgs()
    members = {role: await orgs.member(org, role) for role in roles}
    checked = refused = 0
    for op in OPERATIONS:
        needed = permission_of[op.rpc]
        assert needed, f"{op.id}: its core method names no permission"
        for role, member in members.items():
            response = await _call(http, op, member.auth)
            lacking = _refused_by_role(response)
            if needed in roles[role]:
                assert lacking is None, f"{op.id} refused to {role}: {response.text}"
            else:
                assert response.status_code == 403 and lacking == needed, f"{op.id} as {role}: {response.text}"
                assert response.json()["role"] == role
                refused += 1
            checked += 1
    # Every role is refused something but the owner's and the admin's.
    assert checked == len(OPERATIONS) * len(roles) and refused > 0


async def test_a_lowered_role_holds_on_the_next_request_of_the_members_key(http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "acme-x")
    editor = await orgs.member(org, "editor")
    draft = {"content": "hello", "profiles": ["acme-x"], "draft": True}
    assert (await http.post("/v1/posts", json=draft, headers=editor.auth)).status_code == 201
    lowered = await http.patch(f"/v1/members/{editor.user_id}", json={"role": "viewer"}, headers=org.auth)
    assert lowered.status_code == 200 and lowered.json()["role"] == "viewer", lowered.text
    refused = await http.post("/v1/posts", json=draft, headers=editor.auth)
    assert refused.status_code == 403
    assert (refused.json()["code"], refused.json()["permission"]) == ("FORBIDDEN", "compose")
    # Reading stays.
    assert (await http.get("/v1/posts", headers=editor.auth)).status_code == 200


async def test_every_tool_answers_each_role_as_the_role_table_says(http, channel, orgs, rules) -> None:
    """An agent acts with its member's role: the same table over tools/call."""
    roles, permission_of = rules
    org = await orgs()
    tools = [op for op in OPERATIONS if op.tool is not None]
    client_id = (await register(http))["client_id"]
    for role in roles:
        member = await orgs.member(org, role)
        session = await sign_in(channel, member.email)
        token = (await tokens_for(http, session, client_id, ALL_SCOPES))["access_token"]
        for op in tools:
            needed = permission_of[op.rpc]
            answer = await mcp(http, token, "tools/call", {"name": op.tool.name, "arguments": {}})
            assert answer.status_code == 200, answer.text
            result = answer.json()["result"]
            text = " ".join(c.get("text", "") for c in result["content"])
            # A refusal by the role is a tool error whose JSON carries the stable code and the
            # permission lacking (facades/mcp/tools.py tool_error), never a message to parse.
            failure = json.loads(result["content"][-1]["text"]) if result.get("isError") else {}
            if needed in roles[role]:
                assert failure.get("permission") is None, f"{op.tool.name} as {role}: {text}"
            else:
                assert (failure.get("code"), failure.get("permission"), failure.get("role")) == (
                    "FORBIDDEN",
                    needed,
                    role,
                ), f"{op.tool.name} as {role}: {text}"


async def test_a_contributors_posts_never_go_out_without_approval(http, orgs) -> None:
    """Contributors write and submit; every post of theirs that would go out waits for a person
    (docs/teams.md, "Approvals", has the rest)."""
    org = await orgs()
    await orgs.profile(org, "acme-x")
    contributor = await orgs.member(org, "contributor")
    post = {"content": "hello", "profiles": ["acme-x"]}
    for body in (post, {**post, "schedule_at": LATER}):
        created = await http.post("/v1/posts", json=body, headers=contributor.auth)
        assert (created.status_code, created.json()["posts"][0]["status"]) == (201, "pending_approval"), created.text
    draft = await http.post("/v1/posts", json={**post, "draft": True}, headers=contributor.auth)
    assert draft.json()["posts"][0]["status"] == "draft"
    draft_id = draft.json()["posts"][0]["id"]
    submitted = await http.post(f"/v1/posts/{draft_id}/schedule", json={}, headers=contributor.auth)
    assert submitted.json()["status"] == "pending_approval", submitted.text
    # What needs `publish` stays refused: cancelling, retrying, rescheduling a group.
    cancel = await http.delete(f"/v1/posts/{draft_id}", headers=contributor.auth)
    assert (cancel.status_code, cancel.json()["permission"]) == (403, "publish")
