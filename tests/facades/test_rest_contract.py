"""/v1 driven by the contract: strict arguments (no coercion, no unknown fields, nothing lenient
the docs say is refused), any body at all answered without a 500, and a 401 that tells a server
what /v1 wants. Each case here was a defect found trying Herald as a new user would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.messages import names

# The facade's argument checks and error bodies: nothing here depends on the database.
pytestmark = pytest.mark.one_backend

DEEP = b"[" * 1000 + b"]" * 1000
DEEP_OBJECT = b'{"a":' * 1000 + b"1" + b"}" * 1000


@pytest.fixture
async def org(orgs):
    org = await orgs()
    await orgs.profile(org, "acme-x", "x", ("launch",))
    return org


async def _scheduled_post(http, org) -> str:
    when = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    created = await http.post(
        "/v1/posts", json={"content": "hi", "profiles": ["acme-x"], "schedule_at": when}, headers=org.auth
    )
    assert created.status_code == 201, created.text
    return created.json()["posts"][0]["id"]


@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT])
async def test_deeply_nested_json_is_a_400_on_every_surface(http, org, body: bytes) -> None:
    headers = {**org.auth, "Content-Type": "application/json"}
    post_id = await _scheduled_post(http, org)
    for method, path in (("POST", "/v1/posts"), ("POST", "/v1/media/presign"), ("PATCH", f"/v1/posts/{post_id}")):
        response = await http.request(method, path, content=body, headers=headers)
        assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR"), path
    register = await http.post("/api/auth/oauth2/register", content=body, headers={"Content-Type": "application/json"})
    assert (register.status_code, register.json()["error"]) == (400, "invalid_client_metadata")


async def test_deeply_nested_json_at_mcp_is_a_parse_error(http, channel, orgs) -> None:
    from harness.oauth_flow import MCP_HEADERS, register, sign_in, tokens_for

    org = await orgs()
    tokens = await tokens_for(http, await sign_in(channel, org.email), (await register(http))["client_id"])
    response = await http.post(
        "/mcp", content=DEEP, headers={**MCP_HEADERS, "Authorization": f"Bearer {tokens['access_token']}"}
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == -32700


@pytest.mark.parametrize(
    ("body", "argument"),
    [
        ({"content": 5, "profiles": ["acme-x"]}, "content"),
        ({"content": "hi", "profiles": "acme-x"}, "profiles"),
        ({"content": "hi", "profiles": [5]}, "profiles"),
        ({"content": "hi", "profiles": ["acme-x", "acme-x"]}, "profiles"),
        ({"content": "hi", "profiles": ["acme-x"], "title": 7}, "title"),
        ({"content": "hi", "profiles": ["acme-x"], "post_types": {"x": "reel"}}, "post_types"),
        ({"content": "hi", "profiles": ["acme-x"], "post_types": {"myspace": "post"}}, "post_types"),
        ({"content": "hi", "profiles": ["acme-x"], "schedule_at": ""}, "schedule_at"),
        ({"content": "hi", "profiles": ["acme-x"], "surprise": True}, "surprise"),
        ({"content": "   ", "profiles": ["acme-x"]}, "content"),
    ],
)
async def test_create_arguments_are_strict(http, org, body, argument: str) -> None:
    response = await http.post("/v1/posts", json=body, headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR"), response.text
    assert names(response.json(), argument)
    assert (await http.get("/v1/posts", headers=org.auth)).json()["posts"] == []


async def test_empty_content_hash_is_refused_not_ignored(http, org) -> None:
    response = await http.post(
        "/v1/media/presign",
        json={"filename": "a.png", "mime_type": "image/png", "size_bytes": 10, "content_hash": ""},
        headers=org.auth,
    )
    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR")
    assert names(response.json(), "content_hash")


async def test_zero_and_negative_sizes_get_the_same_answer(http, org) -> None:
    for size in (0, -1, 2**63):
        response = await http.post(
            "/v1/media/presign",
            json={"filename": "a.png", "mime_type": "image/png", "size_bytes": size},
            headers=org.auth,
        )
        assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR"), size
        assert names(response.json(), "size_bytes"), size


async def test_an_empty_idempotency_key_is_refused(http, org) -> None:
    response = await http.post(
        "/v1/posts", json={"content": "hi", "profiles": ["acme-x"]}, headers={**org.auth, "Idempotency-Key": ""}
    )
    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR")
    twice = await http.post(
        "/v1/posts",
        json={"content": "hi", "profiles": ["acme-x"]},
        headers=[*org.auth.items(), ("Idempotency-Key", "a"), ("Idempotency-Key", "b")],
    )
    assert (twice.status_code, twice.json()["code"]) == (400, "VALIDATION_ERROR")


@pytest.mark.parametrize(
    "query",
    [
        "/v1/profiles?tag=",
        "/v1/media?tag=",
        "/v1/posts?scheduled_before=",
        "/v1/posts?scheduled_after=",
        "/v1/posts?profile=",
        "/v1/posts?profile=a&profile=b",
        "/v1/posts?page_size=10&page_size=20",
        "/v1/posts?page_size=abc",
        "/v1/posts?page_size=1.5",
        "/v1/posts?page_size=101",
        "/v1/profiles?page_size=501",
        "/v1/posts?status=done",
        "/v1/posts?connector=myspace",
        "/v1/credits?ledger_limit=101",
        "/v1/posts?page_token=",
    ],
)
async def test_query_parameters_are_strict(http, org, query: str) -> None:
    response = await http.get(query, headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR"), query


async def test_page_sizes_are_the_cores(http, org) -> None:
    """The bounds come from the core's catalog: 500 for profiles, 100 for posts."""
    assert (await http.get("/v1/profiles?page_size=500", headers=org.auth)).status_code == 200
    assert (await http.get("/v1/posts?page_size=100", headers=org.auth)).status_code == 200


async def test_patch_refuses_null_and_output_fields(http, org) -> None:
    post_id = await _scheduled_post(http, org)
    for body in ({"content": None}, {"media_ids": None}, {"status": "published"}, {"post_id": "pst_other"}):
        response = await http.patch(f"/v1/posts/{post_id}", json=body, headers=org.auth)
        assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR"), body
    assert (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()["content"] == "hi"


async def test_a_401_tells_a_server_what_v1_wants(http, stack) -> None:
    for headers in ({}, {"Authorization": "Bearer hoa_an-oauth-token"}, {"Authorization": "Bearer svc_unknown"}):
        response = await http.get("/v1/posts", headers=headers)
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer ")
        assert (
            f'resource_metadata="{stack.base_url}/.well-known/oauth-protected-resource"'
            in (response.headers["www-authenticate"])
        )
        assert response.json()["code"] == "UNAUTHORIZED"
        # What /v1 takes and where keys are made is said in the message only (docs/api.md).
        assert names(response.json(), "svc_", f"{stack.base_url}/dashboard/keys"), response.text


async def test_malformed_requests_are_answered_after_the_credential_and_the_plan(http, orgs) -> None:
    bad = {"content": 5, "profiles": ["acme-x"]}
    no_key = await http.post("/v1/posts", json=bad)
    assert no_key.status_code == 401
    unpaid = await orgs(plan="none")
    assert (await http.post("/v1/posts", json=bad, headers=unpaid.auth)).json()["code"] == "SUBSCRIPTION_REQUIRED"
    assert (await http.get("/v1/posts?page_size=abc", headers=unpaid.auth)).status_code == 402
