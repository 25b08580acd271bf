"""Threads, first comments and per-profile versions through /v1 (issue 18): creation's checks,
UNSUPPORTED_FEATURE, delivery item by item in the sandbox (the outbox's reply references), and
credits charged per delivery, all or nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from core.posts.rules import PLATFORM_LIMITS
from harness.live import settled
from tests.conftest import Org
from tests.messages import names
from tests.posts_api import later

THREADING = ("x", "bluesky", "threads", "mastodon")


@pytest.fixture
async def org(orgs):
    org = await orgs(credits=1000)
    for platform in (*THREADING, "instagram", "tiktok", "youtube", "linkedin"):
        await orgs.profile(org, f"p-{platform}", platform)
    return org


async def post_json(http: httpx.AsyncClient, org: Org, body: dict[str, Any]) -> httpx.Response:
    return await http.post("/v1/posts", json=body, headers=org.auth)


async def count_posts(http: httpx.AsyncClient, org: Org) -> int:
    return len((await http.get("/v1/posts", headers=org.auth)).json()["posts"])


def parent_reference(connector: str, entry: dict[str, Any]) -> Any:
    """The id a reply's creating request names as the post it answers, as the platform takes it."""
    requests = entry["requests"]
    if connector == "x":
        return next(r["json"]["reply"]["in_reply_to_tweet_id"] for r in requests if "reply" in (r.get("json") or {}))
    if connector == "mastodon":
        body = next(r for r in requests if r["url"].endswith("/api/v1/statuses"))
        return (body.get("json") or body.get("form"))["in_reply_to_id"]
    if connector == "bluesky":
        record = next(r["json"]["record"] for r in requests if r["url"].endswith("createRecord"))
        return record["reply"]["parent"]["uri"]
    if connector == "threads":
        container = next(r for r in requests if "reply_to_id" in r["url"] or "reply_to_id" in (r.get("form") or {}))
        form = container.get("form") or {}
        return form.get("reply_to_id") or container["url"].split("reply_to_id=")[1].split("&")[0]
    raise AssertionError(connector)


@pytest.mark.one_backend  # request shapes per platform; the exactly-once part runs on both (test_publisher_workers)
@pytest.mark.usefixtures("worker")
@pytest.mark.parametrize("platform", THREADING)
async def test_a_thread_goes_out_item_by_item_each_replying_to_the_one_before(http, org, platform: str) -> None:
    body = {
        "content": f"The main post on {platform}",
        "profiles": [f"p-{platform}"],
        "thread": [{"content": f"item {i} on {platform}"} for i in (1, 2, 3)],
        "first_comment": "and a first comment",
    }
    created = await post_json(http, org, body)
    assert created.status_code == 201, created.text
    post = created.json()["posts"][0]
    assert [t["status"] for t in post["thread"]] == ["pending"] * 3
    assert (post["first_comment"], post["first_comment_status"]) == ("and a first comment", "pending")
    post = await settled(http, org.auth, post["id"])
    assert post["status"] == "published", post
    assert [t["status"] for t in post["thread"]] == ["published"] * 3
    assert all(t["platform_post_id"] and t["url"] for t in post["thread"])
    assert post["first_comment_status"] == "published" and post["first_comment_id"]
    entries = (await http.get(f"/v1/posts/{post['id']}/outbox", headers=org.auth)).json()["entries"]
    assert [(e["part"], e["position"]) for e in entries] == [
        ("post", None),
        ("thread", 0),
        ("thread", 1),
        ("thread", 2),
        ("first_comment", None),
    ]
    ids = [post["platform_post_id"], *(t["platform_post_id"] for t in post["thread"]), post["first_comment_id"]]
    assert [e["platform_post_id"] for e in entries] == ids
    for before, entry in zip(entries, entries[1:], strict=False):
        assert parent_reference(platform, entry) == before["platform_post_id"], entry
    if platform == "bluesky":  # every reply's root is the main post, by uri and cid
        for entry in entries[1:]:
            record = next(r["json"]["record"] for r in entry["requests"] if r["url"].endswith("createRecord"))
            assert record["reply"]["root"]["uri"] == post["platform_post_id"] and record["reply"]["root"]["cid"]


@pytest.mark.one_backend
@pytest.mark.usefixtures("worker")
@pytest.mark.parametrize("platform", ["instagram", "youtube", "linkedin"])
async def test_a_first_comment_goes_out_through_the_comment_api(http, orgs, org, platform: str) -> None:
    body: dict[str, Any] = {
        "content": "A post with a comment",
        "profiles": [f"p-{platform}"],
        "first_comment": "first!",
    }
    if platform == "instagram":
        body["media_ids"] = [await orgs.media(org)]
    if platform == "youtube":
        body |= {"media_ids": [await orgs.media(org, "video", width=1920, height=1080)], "title": "A video"}
    created = await post_json(http, org, body)
    assert created.status_code == 201, created.text
    post = await settled(http, org.auth, created.json()["posts"][0]["id"])
    assert (post["status"], post["first_comment_status"]) == ("published", "published"), post
    entries = (await http.get(f"/v1/posts/{post['id']}/outbox", headers=org.auth)).json()["entries"]
    assert [e["part"] for e in entries] == ["post", "first_comment"]
    comment = entries[1]["requests"][-1]
    assert "comment" in comment["url"].lower(), comment
    assert "first!" in str(comment), comment


@pytest.mark.parametrize(
    ("profiles", "extra", "feature", "refused", "valid_for"),
    [
        (["p-x", "p-instagram"], {"thread": [{"content": "two"}]}, "thread", ["p-instagram"], THREADING),
        (["p-tiktok", "p-x"], {"first_comment": "hello"}, "first_comment", ["p-tiktok"], None),
        (
            ["p-x", "p-youtube", "p-linkedin"],
            {"customizations": {"p-linkedin": {"thread": [{"content": "two"}]}}},
            "thread",
            ["p-linkedin"],
            THREADING,
        ),
    ],
)
async def test_a_destination_that_cannot_take_a_feature_refuses_the_whole_request(
    http, org, profiles, extra, feature, refused, valid_for
) -> None:
    before = await count_posts(http, org)
    body = {"content": "hi", "profiles": profiles, "title": "A title", **extra}
    response = await post_json(http, org, body)
    assert response.status_code == 400, response.text
    error = response.json()
    assert (error["code"], error["feature"], error["profiles"]) == ("UNSUPPORTED_FEATURE", feature, refused)
    expected = set(valid_for or ("x", "bluesky", "threads", "mastodon", "instagram", "youtube", "linkedin"))
    assert set(error["valid_for"]) == expected
    assert await count_posts(http, org) == before
    dry = await http.post("/v1/posts:validate", json=body, headers=org.auth)
    assert dry.status_code == 200 and dry.json()["valid"] is False
    codes = {p["profile"]: [x["code"] for x in p["problems"]] for p in dry.json()["profiles"]}
    assert all("UNSUPPORTED_FEATURE" in codes[slug] for slug in refused)


async def test_customizations_give_each_profile_its_version_and_its_own_limits(http, org) -> None:
    limit = PLATFORM_LIMITS["bluesky"]["max_length"]
    long_text = "a" * (limit + 1)  # over Bluesky's limit, well within Mastodon's
    body = {
        "content": "the shared text",
        "profiles": ["p-bluesky", "p-mastodon", "p-x"],
        "schedule_at": later(),
        "customizations": {"p-bluesky": {"content": long_text}},
    }
    before = await count_posts(http, org)
    refused = await post_json(http, org, body)
    assert refused.status_code == 400 and refused.json()["code"] == "VALIDATION_ERROR"
    dry = (await http.post("/v1/posts:validate", json=body, headers=org.auth)).json()
    assert {p["profile"]: p["valid"] for p in dry["profiles"]} == {"p-bluesky": False, "p-mastodon": True, "p-x": True}
    assert await count_posts(http, org) == before
    body["customizations"] = {
        "p-mastodon": {"content": long_text, "thread": [{"content": "mastodon's own item"}]},
        "p-x": {"first_comment": "only on x"},
    }
    created = await post_json(http, org, body)
    assert created.status_code == 201, created.text
    by_profile = {p["profile"]: p for p in created.json()["posts"]}
    assert by_profile["p-bluesky"]["content"] == "the shared text" and by_profile["p-bluesky"]["thread"] == []
    assert by_profile["p-mastodon"]["content"] == long_text
    assert [t["content"] for t in by_profile["p-mastodon"]["thread"]] == ["mastodon's own item"]
    assert by_profile["p-x"]["first_comment"] == "only on x" and by_profile["p-mastodon"]["first_comment"] is None
    for post in created.json()["posts"]:  # what creation answered is what a read answers
        assert (await http.get(f"/v1/posts/{post['id']}", headers=org.auth)).json() == post


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"customizations": {"p-nobody": {"content": "x"}}}, "p-nobody"),
        ({"thread": []}, "thread"),
        ({"thread": [{"content": f"{i}"} for i in range(26)]}, "thread"),
        ({"thread": [{"content": "  "}]}, "thread"),
        ({"thread": [{"content": "ok", "status": "published"}]}, "status"),
        ({"first_comment": ""}, "first_comment"),
        ({"customizations": {"p-x": {"post_type": "reel"}}}, "post_type"),
        ({"next_slot": True, "schedule_at": "2030-01-01T00:00:00Z"}, "next_slot"),
    ],
)
async def test_malformed_new_fields_are_validation_errors_and_create_nothing(http, org, extra, named: str) -> None:
    before = await count_posts(http, org)
    response = await post_json(http, org, {"content": "hi", "profiles": ["p-x"], **extra})
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_ERROR" and names(response.json(), named)
    assert await count_posts(http, org) == before


async def test_each_thread_item_is_checked_by_the_platforms_rules(http, org) -> None:
    limit = PLATFORM_LIMITS["x"]["max_length"]
    body = {"content": "fine", "profiles": ["p-x"], "thread": [{"content": "fine"}, {"content": "b" * (limit + 1)}]}
    response = await post_json(http, org, body)
    assert response.status_code == 400 and response.json()["code"] == "VALIDATION_ERROR"
    assert names(response.json(), "thread item 2", "p-x")  # docs/posts.md: `thread item N` in the message


async def test_patch_edits_the_thread_and_refuses_output_fields(http, org) -> None:
    created = await post_json(
        http, org, {"content": "hi", "profiles": ["p-x"], "schedule_at": later(), "thread": [{"content": "one"}]}
    )
    post_id = created.json()["posts"][0]["id"]
    bad = await http.patch(
        f"/v1/posts/{post_id}",
        json={"thread": [{"content": "two", "platform_post_id": "1", "status": "published"}]},
        headers=org.auth,
    )
    assert bad.status_code == 400 and bad.json()["code"] == "VALIDATION_ERROR"
    edited = await http.patch(
        f"/v1/posts/{post_id}",
        json={"thread": [{"content": "two"}, {"content": "three"}], "first_comment": "hey"},
        headers=org.auth,
    )
    assert edited.status_code == 200, edited.text
    assert [t["content"] for t in edited.json()["thread"]] == ["two", "three"]
    assert edited.json()["first_comment"] == "hey"
    cleared = await http.patch(f"/v1/posts/{post_id}", json={"thread": [], "first_comment": ""}, headers=org.auth)
    assert (cleared.json()["thread"], cleared.json()["first_comment"]) == ([], None)


@pytest.mark.usefixtures("worker")
async def test_a_thread_costs_one_delivery_per_item_and_never_goes_out_half_paid(http, orgs) -> None:
    poor = await orgs(credits=2)
    await orgs.profile(poor, "p-x", "x")
    body = {"content": "main", "profiles": ["p-x"], "thread": [{"content": "two"}, {"content": "three"}]}
    created = await post_json(http, poor, body)
    assert created.status_code == 201, created.text
    post = await settled(http, poor.auth, created.json()["posts"][0]["id"])
    assert (post["status"], post["failure_reason"]) == ("failed", "insufficient_credits")
    assert (await http.get(f"/v1/posts/{post['id']}/outbox", headers=poor.auth)).json()["entries"] == []
    assert (await http.get("/v1/credits", headers=poor.auth)).json()["balance"] == 2
    rich = await orgs(credits=10)
    await orgs.profile(rich, "p-x", "x")
    created = await post_json(http, rich, body)
    post = await settled(http, rich.auth, created.json()["posts"][0]["id"])
    assert post["status"] == "published"
    assert (await http.get("/v1/credits", headers=rich.auth)).json()["balance"] == 7


@pytest.mark.parametrize(
    "extra",
    [
        {"thread": [{"content": "fine"}, {"content": "results are GUARANTEED RESULTS"}]},
        {"first_comment": "guaranteed results, really"},
        {"customizations": {"p-mastodon": {"content": "guaranteed results"}}},
    ],
)
async def test_never_publish_phrases_are_checked_in_every_text_a_post_sends(http, org, extra) -> None:
    voice = await http.put("/v1/brand-voice", json={"never_publish": ["guaranteed results"]}, headers=org.auth)
    assert voice.status_code == 200, voice.text
    before = await count_posts(http, org)
    body = {"content": "A clean post", "profiles": ["p-x", "p-mastodon"], "schedule_at": later(), **extra}
    response = await post_json(http, org, body)
    assert response.status_code == 400, response.text
    assert (response.json()["code"], response.json()["phrase"]) == ("NEVER_PUBLISH_PHRASE", "guaranteed results")
    assert await count_posts(http, org) == before


async def test_the_dry_run_takes_the_new_fields_and_counts_each_delivery(http, org) -> None:
    limit = PLATFORM_LIMITS["x"]["max_length"]
    body = {
        "content": "main",
        "profiles": ["p-x", "p-bluesky"],
        "thread": [{"content": "two"}, {"content": "three"}],
        "first_comment": "free",
    }
    dry = (await http.post("/v1/posts:validate", json=body, headers=org.auth)).json()
    assert dry["valid"] is True and dry["credits"]["required"] == 6  # 2 profiles x (post + 2 items)
    body["customizations"] = {"p-x": {"thread": [{"content": "c" * (limit + 1)}]}}
    dry = (await http.post("/v1/posts:validate", json=body, headers=org.auth)).json()
    assert dry["valid"] is False and dry["credits"]["required"] == 5
    problems = {p["profile"]: p["problems"] for p in dry["profiles"]}
    assert problems["p-bluesky"] == [] and [p["code"] for p in problems["p-x"]] == ["VALIDATION_ERROR"]
    assert names(problems["p-x"][0]["message"], "thread item 1")
    assert (await post_json(http, org, body)).status_code == 400  # creation agrees with the dry run


async def test_thread_texts_are_stored_exactly_whatever_their_characters(http, org) -> None:
    # The parts of a request are written in one statement (PostgreSQL: as one JSON document):
    # quotes, backslashes, JSON-looking text, line endings, emoji and other scripts come back as sent.
    texts = ['"quoted" \\ back\\slash {"a": [1]}', "line\r\nending\tand tab", "emoji 👍🏽 and 日本語, é", "spaces   "]
    body = {
        "content": "Main",
        "profiles": ["p-x", "p-mastodon"],
        "thread": [{"content": t} for t in texts],
        "first_comment": 'a "comment" \\',
        "schedule_at": later(),
    }
    created = await post_json(http, org, body)
    assert created.status_code == 201, created.text
    for post in created.json()["posts"]:
        stored = (await http.get(f"/v1/posts/{post['id']}", headers=org.auth)).json()
        assert [t["content"] for t in stored["thread"]] == texts
        assert stored["first_comment"] == 'a "comment" \\'
