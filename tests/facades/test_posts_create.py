"""POST /v1/posts (docs/api.md, docs/posts.md "Creating posts"): creation, every validation error,
nothing partial. Refusals are asserted on their code; which profile refuses, and why, on the dry
run's fields (POST /v1/posts:validate)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from tests.messages import names

TIMESTAMP_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture
async def org3(orgs):
    """An organization with an X, a Bluesky and a LinkedIn profile."""
    return await orgs.with_profiles("x", "bluesky", "linkedin")


async def post_count(http, org) -> int:
    return len((await http.get("/v1/posts", headers=org.auth)).json()["posts"])


async def profile_checks(http, org, body: dict) -> dict[str, dict]:
    """The dry run's verdict per profile (POST /v1/posts:validate): the fields that say which
    profile refuses a post and why (its counted length, its limit, its problems' codes)."""
    report = await http.post("/v1/posts:validate", json=body, headers=org.auth)
    assert report.status_code == 200, report.text
    return {check["profile"]: check for check in report.json()["profiles"]}


def codes(check: dict) -> list[str]:
    return [problem["code"] for problem in check["problems"]]


async def test_publish_now_to_three_profiles(http, org3) -> None:
    response = await http.post(
        "/v1/posts", json={"content": "Hello, world", "profiles": ["acme-x", "acme-bsky", "acme-li"]}, headers=org3.auth
    )
    assert response.status_code == 201, response.text
    assert response.headers["x-credits-remaining"] == "100"
    posts = response.json()["posts"]
    assert [(p["profile"], p["connector"], p["post_type"]) for p in posts] == [
        ("acme-x", "x", "post"),
        ("acme-bsky", "bluesky", "post"),
        ("acme-li", "linkedin", "post"),
    ]
    for post in posts:
        assert post["id"].startswith("pst_")
        assert post["status"] == "queued"
        assert post["content"] == "Hello, world"
        assert post["media_ids"] == []
        assert TIMESTAMP_MS.match(post["created_at"])
        assert post["schedule_at"] == post["created_at"]
        assert post["title"] is None and post["failure_reason"] is None
    assert "warning" not in response.json()


async def test_scheduled_post(http, org3) -> None:
    when = (datetime.now(UTC) + timedelta(days=2)).replace(microsecond=0)
    local = when.astimezone(__import__("datetime").timezone(timedelta(hours=2))).isoformat()
    response = await http.post(
        "/v1/posts", json={"content": "Later", "profiles": ["acme-x"], "schedule_at": local}, headers=org3.auth
    )
    assert response.status_code == 201
    post = response.json()["posts"][0]
    assert post["status"] == "scheduled"
    assert post["schedule_at"] == when.strftime("%Y-%m-%dT%H:%M:%S.000Z")


async def test_low_credit_warning_on_create(http, orgs) -> None:
    org = await orgs(credits=3)
    await orgs.profile(org, "p", "x")
    response = await http.post("/v1/posts", json={"content": "hi", "profiles": ["p"]}, headers=org.auth)
    assert response.status_code == 201
    assert response.json()["warning"] == {"code": "low_credits", "remaining": 3}


FUTURE = (datetime.now(UTC) + timedelta(days=1)).isoformat()


@pytest.mark.parametrize(
    "body",
    [
        {"profiles": ["acme-x"]},  # content missing
        {"content": "", "profiles": ["acme-x"]},
        {"content": "   \n", "profiles": ["acme-x"]},
        {"content": 42, "profiles": ["acme-x"]},
        {"content": "x" * 25_001, "profiles": ["acme-x"]},
        {"content": "hi"},  # profiles missing
        {"content": "hi", "profiles": []},
        {"content": "hi", "profiles": "acme-x"},
        {"content": "hi", "profiles": ["acme-x", 3]},
        {"content": "hi", "profiles": ["acme-x", "acme-x"]},
        {"content": "hi", "profiles": ["acme-x", "nope", "also-nope"]},
        {"content": "hi", "profiles": ["acme-x"], "schedule_at": "tomorrow"},
        {"content": "hi", "profiles": ["acme-x"], "schedule_at": "2030-01-01T09:00:00"},  # no offset
        {"content": "hi", "profiles": ["acme-x"], "schedule_at": "2030-01-01"},  # no time
        {"content": "hi", "profiles": ["acme-x"], "schedule_at": "2020-01-01T09:00:00Z"},  # past
        {"content": "hi", "profiles": ["acme-x"], "schedule_at": "2099-01-01T09:00:00Z"},  # too far
        {"content": "hi", "profiles": ["acme-x"], "schedule_at": 1767225600},
        {"content": "hi", "profiles": ["acme-x"], "title": "t" * 101},
        {"content": "hi", "profiles": ["acme-x"], "title": 5},
        {"content": "hi", "profiles": ["acme-x"], "post_types": {"x": "reel"}},
        {"content": "hi", "profiles": ["acme-x"], "post_types": {"myspace": "post"}},
        {"content": "hi", "profiles": ["acme-x"], "post_types": {"x": 1}},
        {"content": "hi", "profiles": ["acme-x"], "media_ids": "med_1"},
        {"content": "hi", "profiles": ["acme-x"], "surprise": True},
        ["not", "an", "object"],
    ],
)
async def test_validation_errors_create_nothing(http, org3, body) -> None:
    response = await http.post("/v1/posts", json=body, headers=org3.auth)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_ERROR"
    assert await post_count(http, org3) == 0


async def test_unknown_and_duplicate_profiles_are_named(http, org3) -> None:
    body = {"content": "hi", "profiles": ["acme-x", "ghost"]}
    unknown = await http.post("/v1/posts", json=body, headers=org3.auth)
    assert (unknown.status_code, unknown.json()["code"]) == (400, "VALIDATION_ERROR")
    assert names(unknown.json(), "ghost")
    ghost = (await profile_checks(http, org3, body))["ghost"]
    assert (ghost["valid"], ghost["connector"]) == (False, None)  # the dry run's field: unknown
    dup = await http.post("/v1/posts", json={"content": "hi", "profiles": ["acme-li", "acme-li"]}, headers=org3.auth)
    assert (dup.status_code, dup.json()["code"]) == (400, "VALIDATION_ERROR")
    assert names(dup.json(), "acme-li")


@pytest.mark.parametrize("raw", [b"{not json", b"", b"\xff\xfe", b"null", b"[]"])
async def test_malformed_bodies(http, org3, raw: bytes) -> None:
    response = await http.post("/v1/posts", content=raw, headers={**org3.auth, "Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_ERROR"


async def test_malformed_body_without_key_is_still_401(http) -> None:
    response = await http.post("/v1/posts", content=b"{not json")
    assert response.status_code == 401


async def test_platform_limits_name_profile_count_and_limit(http, org3) -> None:
    # 281 characters: fine for LinkedIn (3000) and... not for X (280) nor Bluesky (300 is fine).
    response = await http.post(
        "/v1/posts", json={"content": "a" * 281, "profiles": ["acme-li", "acme-x"]}, headers=org3.auth
    )
    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR")
    assert names(response.json(), "acme-x")
    assert await post_count(http, org3) == 0  # not even the LinkedIn post
    # The count as the platform counts and its limit are the dry run's fields.
    checks = await profile_checks(http, org3, {"content": "a" * 281, "profiles": ["acme-li", "acme-x"]})
    x = checks["acme-x"]
    assert (x["valid"], x["length"], x["max_length"], codes(x)) == (False, 281, 280, ["VALIDATION_ERROR"])
    assert checks["acme-li"]["valid"] is True
    ok = await http.post("/v1/posts", json={"content": "a" * 280, "profiles": ["acme-x"]}, headers=org3.auth)
    assert ok.status_code == 201
    body = {"content": "é" * 301, "profiles": ["acme-bsky"]}
    bsky = await http.post("/v1/posts", json=body, headers=org3.auth)
    assert (bsky.status_code, bsky.json()["code"]) == (400, "VALIDATION_ERROR")
    counted = (await profile_checks(http, org3, body))["acme-bsky"]
    assert (counted["length"], counted["max_length"]) == (301, 300)


async def test_x_counts_urls_as_23(http, org3) -> None:
    url = "https://example.com/" + "a" * 200
    content = "b" * (280 - 24) + " " + url  # 256 + 1 + 23 = 280 weighted
    response = await http.post("/v1/posts", json={"content": content, "profiles": ["acme-x"]}, headers=org3.auth)
    assert response.status_code == 201, response.text


async def test_invalid_media(http, orgs, org3) -> None:
    pending = await orgs.media(org3, status="pending")
    other = await orgs()
    foreign = await orgs.media(other)
    for media_ids in (["med_doesnotexist"], [pending], [foreign]):
        response = await http.post(
            "/v1/posts", json={"content": "hi", "profiles": ["acme-x"], "media_ids": media_ids}, headers=org3.auth
        )
        # Unknown, unconfirmed and another organization's media answer alike (docs/posts.md).
        assert (response.status_code, response.json()["code"]) == (400, "INVALID_MEDIA")
    assert await post_count(http, org3) == 0


async def test_invalid_media_combinations(http, orgs, org3) -> None:
    await orgs.profile(org3, "acme-ig", "instagram")
    images = [await orgs.media(org3) for _ in range(5)]
    video = await orgs.media(org3, "video", size_bytes=5_000_000)
    cases = [
        (["acme-x"], images),  # five images on X
        (["acme-bsky"], images),  # five images on Bluesky
        (["acme-x"], [video, images[0]]),  # video mixed with an image
        (["acme-ig"], []),  # text-only to Instagram
    ]
    for profiles, media_ids in cases:
        response = await http.post(
            "/v1/posts", json={"content": "hi", "profiles": profiles, "media_ids": media_ids}, headers=org3.auth
        )
        assert response.status_code == 400, (profiles, response.text)
        assert response.json()["code"] == "INVALID_MEDIA_COMBINATION"
        body = {"content": "hi", "profiles": profiles, "media_ids": media_ids}
        refusing = (await profile_checks(http, org3, body))[profiles[0]]  # which profile: the dry run's field
        assert codes(refusing) == ["INVALID_MEDIA_COMBINATION"], (profiles, refusing)
    assert await post_count(http, org3) == 0
    four = await http.post(
        "/v1/posts",
        json={"content": "hi", "profiles": ["acme-x", "acme-bsky"], "media_ids": images[:4]},
        headers=org3.auth,
    )
    assert four.status_code == 201
    assert four.json()["posts"][0]["media_ids"] == images[:4]


async def test_instagram_post_types(http, orgs, org3) -> None:
    await orgs.profile(org3, "acme-ig", "instagram")
    video = await orgs.media(org3, "video", size_bytes=5_000_000, width=1080, height=1920)
    image = await orgs.media(org3)
    reel = await http.post(
        "/v1/posts",
        json={"content": "reel", "profiles": ["acme-ig"], "media_ids": [video], "post_types": {"instagram": "reel"}},
        headers=org3.auth,
    )
    assert reel.status_code == 201 and reel.json()["posts"][0]["post_type"] == "reel"
    bad = await http.post(
        "/v1/posts",
        json={"content": "reel", "profiles": ["acme-ig"], "media_ids": [image], "post_types": {"instagram": "reel"}},
        headers=org3.auth,
    )
    assert bad.json()["code"] == "INVALID_MEDIA_COMBINATION"


async def test_title_for_youtube(http, orgs, org3) -> None:
    await orgs.profile(org3, "acme-yt", "youtube")
    video = await orgs.media(org3, "video", size_bytes=5_000_000)
    response = await http.post(
        "/v1/posts",
        json={"content": "Watch this", "profiles": ["acme-yt"], "media_ids": [video], "title": "A" * 100},
        headers=org3.auth,
    )
    assert response.status_code == 201, response.text
    assert response.json()["posts"][0]["title"] == "A" * 100
