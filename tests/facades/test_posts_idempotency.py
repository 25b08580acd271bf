"""Idempotency-Key on POST /v1/posts."""

from __future__ import annotations

import asyncio


async def setup(orgs):
    org = await orgs()
    await orgs.profile(org, "p1", "x")
    await orgs.profile(org, "p2", "mastodon")
    return org


async def test_same_key_same_body_replays_and_creates_nothing(http, orgs) -> None:
    org = await setup(orgs)
    headers = {**org.auth, "Idempotency-Key": "order-4711"}
    body = {"content": "once", "profiles": ["p1", "p2"]}
    first = await http.post("/v1/posts", json=body, headers=headers)
    # The same request with the keys in another order is the same request.
    again = await http.post("/v1/posts", json={"profiles": ["p1", "p2"], "content": "once"}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert len((await http.get("/v1/posts", headers=org.auth)).json()["posts"]) == 2


async def test_same_key_different_body_is_409(http, orgs) -> None:
    org = await setup(orgs)
    headers = {**org.auth, "Idempotency-Key": "k-1"}
    assert (await http.post("/v1/posts", json={"content": "a", "profiles": ["p1"]}, headers=headers)).status_code == 201
    response = await http.post("/v1/posts", json={"content": "b", "profiles": ["p1"]}, headers=headers)
    assert response.status_code == 409
    assert response.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert len((await http.get("/v1/posts", headers=org.auth)).json()["posts"]) == 1


async def test_a_failed_request_does_not_burn_the_key(http, orgs) -> None:
    org = await setup(orgs)
    headers = {**org.auth, "Idempotency-Key": "k-2"}
    bad = await http.post("/v1/posts", json={"content": "a", "profiles": ["ghost"]}, headers=headers)
    assert bad.status_code == 400
    good = await http.post("/v1/posts", json={"content": "a", "profiles": ["p1"]}, headers=headers)
    assert good.status_code == 201


async def test_keys_are_per_organization(http, orgs) -> None:
    a, b = await setup(orgs), await setup(orgs)
    body = {"content": "same", "profiles": ["p1"]}
    ra = await http.post("/v1/posts", json=body, headers={**a.auth, "Idempotency-Key": "shared"})
    rb = await http.post("/v1/posts", json=body, headers={**b.auth, "Idempotency-Key": "shared"})
    assert ra.status_code == rb.status_code == 201
    assert ra.json()["posts"][0]["id"] != rb.json()["posts"][0]["id"]


async def test_concurrent_requests_with_one_key_create_once(http, orgs) -> None:
    org = await setup(orgs)
    headers = {**org.auth, "Idempotency-Key": "race"}
    body = {"content": "race", "profiles": ["p1", "p2"]}
    responses = await asyncio.gather(*(http.post("/v1/posts", json=body, headers=headers) for _ in range(8)))
    assert {r.status_code for r in responses} == {201}
    assert len({tuple(p["id"] for p in r.json()["posts"]) for r in responses}) == 1
    assert len((await http.get("/v1/posts", headers=org.auth)).json()["posts"]) == 2


async def test_malformed_key_is_a_validation_error(http, orgs) -> None:
    org = await setup(orgs)
    response = await http.post(
        "/v1/posts", json={"content": "a", "profiles": ["p1"]}, headers={**org.auth, "Idempotency-Key": "k" * 256}
    )
    assert response.status_code == 400 and response.json()["code"] == "VALIDATION_ERROR"
