"""GET, PATCH, DELETE and retry of /v1/posts/{id}; filters and pagination; isolation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.db.models import posts
from core.db.types import utcnow


def later(days: int = 1) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


@pytest.fixture
async def org2(orgs):
    org = await orgs()
    await orgs.profile(org, "x1", "x")
    await orgs.profile(org, "m1", "mastodon")
    return org


async def create(http, org, **body):
    """Scheduled a day ahead unless told otherwise, so the test's worker process leaves it alone."""
    body = {"content": "hi", "profiles": ["x1"], "schedule_at": later(), **body}
    response = await http.post("/v1/posts", json=body, headers=org.auth)
    assert response.status_code == 201, response.text
    return response.json()["posts"]


async def force_status(orgs, post_id: str, status: str) -> None:
    async with orgs.engine.begin() as conn:
        await conn.execute(posts.update().where(posts.c.id == post_id).values(status=status, updated_at=utcnow()))


async def test_get_and_filters(http, org2) -> None:
    scheduled = await create(http, org2, schedule_at=later(3), profiles=["x1", "m1"])
    now_post = (await create(http, org2))[0]
    got = await http.get(f"/v1/posts/{now_post['id']}", headers=org2.auth)
    assert got.status_code == 200 and got.json() == now_post
    now_post = (await http.delete(f"/v1/posts/{now_post['id']}", headers=org2.auth)).json()
    assert now_post["status"] == "canceled"

    def ids(response) -> list[str]:
        return [p["id"] for p in response.json()["posts"]]

    everything = await http.get("/v1/posts", headers=org2.auth)
    assert ids(everything) == [now_post["id"], scheduled[1]["id"], scheduled[0]["id"]]  # newest first
    assert ids(await http.get("/v1/posts", params={"status": "scheduled"}, headers=org2.auth)) == [
        scheduled[1]["id"],
        scheduled[0]["id"],
    ]
    assert ids(await http.get("/v1/posts", params={"status": "canceled"}, headers=org2.auth)) == [now_post["id"]]
    assert ids(await http.get("/v1/posts", params={"profile": "m1"}, headers=org2.auth)) == [scheduled[1]["id"]]
    assert ids(await http.get("/v1/posts", params={"connector": "x"}, headers=org2.auth)) == [
        now_post["id"],
        scheduled[0]["id"],
    ]
    window = {"scheduled_after": later(2), "scheduled_before": later(4)}
    assert ids(await http.get("/v1/posts", params=window, headers=org2.auth)) == [
        scheduled[1]["id"],
        scheduled[0]["id"],
    ]
    page = await http.get("/v1/posts", params={"page_size": "2"}, headers=org2.auth)
    rest = await http.get("/v1/posts", params={"page_token": page.json()["next_page_token"]}, headers=org2.auth)
    assert ids(page) + ids(rest) == ids(everything)


@pytest.mark.parametrize(
    "params",
    [
        {"status": "sent"},
        {"connector": "myspace"},
        {"scheduled_after": "yesterday"},
        {"page_size": "0.5"},
        {"page_size": "101"},
        {"page_token": "zzz"},
    ],
)
async def test_list_validation(http, org2, params) -> None:
    response = await http.get("/v1/posts", params=params, headers=org2.auth)
    assert response.status_code == 400 and response.json()["code"] == "VALIDATION_ERROR"


async def test_patch_content_schedule_and_media(http, orgs, org2) -> None:
    post = (await create(http, org2))[0]
    image = await orgs.media(org2)
    response = await http.patch(
        f"/v1/posts/{post['id']}",
        json={"content": "edited", "schedule_at": later(2), "media_ids": [image]},
        headers=org2.auth,
    )
    assert response.status_code == 200, response.text
    edited = response.json()
    assert (edited["content"], edited["status"], edited["media_ids"]) == ("edited", "scheduled", [image])
    cleared = await http.patch(f"/v1/posts/{post['id']}", json={"media_ids": []}, headers=org2.auth)
    assert cleared.json()["media_ids"] == []


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "VALIDATION_ERROR"),
        ({"content": "a" * 281}, "VALIDATION_ERROR"),
        ({"content": None}, "VALIDATION_ERROR"),
        ({"schedule_at": "2020-01-01T00:00:00Z"}, "VALIDATION_ERROR"),
        ({"profiles": ["m1"]}, "VALIDATION_ERROR"),
        ({"media_ids": ["med_unknown"]}, "INVALID_MEDIA"),
    ],
)
async def test_patch_errors(http, org2, body, code) -> None:
    post = (await create(http, org2))[0]
    response = await http.patch(f"/v1/posts/{post['id']}", json=body, headers=org2.auth)
    assert response.status_code == 400 and response.json()["code"] == code
    assert (await http.get(f"/v1/posts/{post['id']}", headers=org2.auth)).json() == post


async def test_patch_media_combination(http, orgs, org2) -> None:
    post = (await create(http, org2))[0]
    images = [await orgs.media(org2) for _ in range(5)]
    response = await http.patch(f"/v1/posts/{post['id']}", json={"media_ids": images}, headers=org2.auth)
    assert response.status_code == 400 and response.json()["code"] == "INVALID_MEDIA_COMBINATION"


@pytest.mark.parametrize("status", ["publishing", "published", "failed", "canceled"])
async def test_only_scheduled_or_queued_posts_change(http, orgs, org2, status: str) -> None:
    post = (await create(http, org2))[0]
    await force_status(orgs, post["id"], status)
    patch = await http.patch(f"/v1/posts/{post['id']}", json={"content": "late"}, headers=org2.auth)
    delete = await http.delete(f"/v1/posts/{post['id']}", headers=org2.auth)
    for response in (patch, delete):
        assert response.status_code == 409 and response.json()["code"] == "INVALID_POST_STATE"


async def test_cancel(http, org2) -> None:
    post = (await create(http, org2))[0]
    response = await http.delete(f"/v1/posts/{post['id']}", headers=org2.auth)
    assert response.status_code == 200 and response.json()["status"] == "canceled"
    again = await http.delete(f"/v1/posts/{post['id']}", headers=org2.auth)
    assert again.status_code == 409


async def test_retry_only_failed(http, orgs, org2) -> None:
    post = (await create(http, org2))[0]
    refused = await http.post(f"/v1/posts/{post['id']}/retry", headers=org2.auth)
    assert refused.status_code == 409 and refused.json()["code"] == "INVALID_POST_STATE"
    await force_status(orgs, post["id"], "failed")
    retried = await http.post(f"/v1/posts/{post['id']}/retry", headers=org2.auth)
    assert retried.status_code == 200
    assert (retried.json()["status"], retried.json()["failure_reason"]) == ("queued", None)


async def test_another_organization_sees_nothing(http, orgs, org2) -> None:
    post = (await create(http, org2))[0]
    other = await orgs()
    await orgs.profile(other, "x1", "x")
    for method, path in (("GET", ""), ("PATCH", ""), ("DELETE", ""), ("POST", "/retry"), ("GET", "/outbox")):
        kwargs = {"json": {"content": "mine"}} if method == "PATCH" else {}
        response = await http.request(method, f"/v1/posts/{post['id']}{path}", headers=other.auth, **kwargs)
        assert response.status_code == 404, (method, path)
        assert response.json()["code"] == "NOT_FOUND"
    assert (await http.get("/v1/posts", headers=other.auth)).json()["posts"] == []
    assert (await http.get(f"/v1/posts/{post['id']}", headers=org2.auth)).json() == post
