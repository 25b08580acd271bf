"""A post's language, a profile's default language, TikTok settings, and the notices that say
which request fields a destination does not use (issue 30), through /v1 and MCP: what the API
answers, and (in the sandbox) the platform requests the outbox records."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from harness.oauth_flow import mcp, register, sign_in, tokens_for
from tests.conftest import Org

PLATFORMS = ("bluesky", "mastodon", "youtube", "x", "linkedin", "tiktok")


@pytest.fixture
async def org(orgs):
    org = await orgs(credits=1000)
    for platform in PLATFORMS:
        await orgs.profile(org, f"p-{platform}", platform)
    return org


@pytest.fixture
async def video(orgs, org) -> str:
    """A confirmed vertical video: every platform here takes it."""
    return await orgs.media(org, "video", width=1080, height=1920)


async def create(http: httpx.AsyncClient, org: Org, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    response = await http.post("/v1/posts", json=body, headers={**org.auth, **headers})
    assert response.status_code == 201, response.text
    return response.json()


async def count_posts(http: httpx.AsyncClient, org: Org) -> int:
    return len((await http.get("/v1/posts", headers=org.auth)).json()["posts"])


async def outbox(http: httpx.AsyncClient, org: Org, post_id: str, within: float = 30) -> list[dict[str, Any]]:
    """The platform requests of the post's delivery, once the sandbox worker recorded it."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        post = (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()
        if post["status"] not in ("scheduled", "queued", "publishing"):
            assert post["status"] == "published", post
            (entry,) = (await http.get(f"/v1/posts/{post_id}/outbox", headers=org.auth)).json()["entries"]
            return entry["requests"]
        assert asyncio.get_running_loop().time() < deadline, post
        await asyncio.sleep(0.1)


def creating(requests: list[dict[str, Any]], url_end: str) -> dict[str, Any]:
    """The JSON body of the request whose URL ends (before its query) with `url_end`."""
    return next(r["json"] for r in requests if r["url"].split("?")[0].endswith(url_end) and r.get("json"))


def fields_of(notices: list[dict[str, Any]], profile: str) -> list[str]:
    assert all(n["code"] == "FIELD_IGNORED" and n["message"] for n in notices)
    return [n["field"] for n in notices if n["profile"] == profile]


# --- language -------------------------------------------------------------------------------------


@pytest.mark.one_backend  # the platforms' request shapes; storage is checked on both below
@pytest.mark.usefixtures("worker")
async def test_a_language_goes_where_each_platform_has_the_field(http, org, video) -> None:
    profiles = ["p-bluesky", "p-mastodon", "p-youtube", "p-x"]
    body = {
        "content": "Olá a todos",
        "profiles": profiles,
        "language": "PT-br",
        "customizations": {"p-youtube": {"media_ids": [video], "title": "Olá"}},
    }
    created = await create(http, org, body)
    assert [p["language"] for p in created["posts"]] == ["pt-BR"] * 4  # normalized case
    # X's API has no language field: said, not dropped silently. The others have one.
    assert [(n["profile"], n["field"]) for n in created["notices"]] == [("p-x", "language")]
    sent = {p["profile"]: await outbox(http, org, p["id"]) for p in created["posts"]}
    record = creating(sent["p-bluesky"], "com.atproto.repo.createRecord")["record"]
    assert record["langs"] == ["pt-BR"]
    assert creating(sent["p-mastodon"], "/api/v1/statuses")["language"] == "pt"  # ISO 639, as Mastodon takes it
    snippet = creating(sent["p-youtube"], "/upload/youtube/v3/videos")["snippet"]
    assert snippet["defaultLanguage"] == "pt-BR"
    assert not any("lang" in str(r.get("json", {})) for r in sent["p-x"])


@pytest.mark.one_backend
@pytest.mark.usefixtures("worker")
async def test_a_post_without_a_language_sends_none(http, org) -> None:
    created = await create(http, org, {"content": "no language", "profiles": ["p-bluesky", "p-mastodon"]})
    assert [p["language"] for p in created["posts"]] == [None, None] and created["notices"] == []
    sent = {p["profile"]: await outbox(http, org, p["id"]) for p in created["posts"]}
    assert "langs" not in creating(sent["p-bluesky"], "com.atproto.repo.createRecord")["record"]
    assert "language" not in creating(sent["p-mastodon"], "/api/v1/statuses")


async def test_the_profiles_default_language_applies_when_a_post_names_none(http, org) -> None:
    changed = await http.patch("/v1/profiles/p-bluesky", json={"default_language": "EN-gb"}, headers=org.auth)
    assert changed.status_code == 200, changed.text
    assert changed.json()["default_language"] == "en-GB" and changed.json()["slug"] == "p-bluesky"
    shown = (await http.get("/v1/profiles/p-bluesky", headers=org.auth)).json()
    assert shown["default_language"] == "en-GB"
    assert (await http.get("/v1/profiles/p-x", headers=org.auth)).json()["default_language"] is None

    plain = await create(http, org, {"content": "default", "profiles": ["p-bluesky", "p-x"]})
    assert [p["language"] for p in plain["posts"]] == ["en-GB", None]
    assert plain["notices"] == []  # a profile's setting is not something this request asked for
    named = await create(
        http,
        org,
        {"content": "named", "profiles": ["p-bluesky", "p-x"], "customizations": {"p-bluesky": {"language": "fr"}}},
    )
    assert [p["language"] for p in named["posts"]] == ["fr", None]
    fetched = (await http.get(f"/v1/posts/{named['posts'][0]['id']}", headers=org.auth)).json()
    assert fetched["language"] == "fr"

    cleared = await http.patch("/v1/profiles/p-bluesky", json={"default_language": ""}, headers=org.auth)
    assert cleared.status_code == 200 and cleared.json()["default_language"] is None
    later = await create(http, org, {"content": "after", "profiles": ["p-bluesky"]})
    assert later["posts"][0]["language"] is None
    kept = (await http.get(f"/v1/posts/{plain['posts'][0]['id']}", headers=org.auth)).json()
    assert kept["language"] == "en-GB"  # posts keep the language they were created with


async def test_a_malformed_language_is_refused_and_nothing_is_created(http, org) -> None:
    before = await count_posts(http, org)
    for body in (
        {"content": "x", "profiles": ["p-bluesky"], "language": "en_US"},
        {"content": "x", "profiles": ["p-bluesky"], "language": "english-language-of-the-realm"},
        {"content": "x", "profiles": ["p-bluesky"], "customizations": {"p-bluesky": {"language": "de--DE"}}},
        {"content": "x", "profiles": ["p-bluesky"], "language": ""},
    ):
        response = await http.post("/v1/posts", json=body, headers=org.auth)
        assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR"), body
        report = (await http.post("/v1/posts:validate", json=body, headers=org.auth)).json()
        if report.get("code") is None:  # the core's check: the dry run reports it
            assert report["valid"] is False and report["problems"][0]["code"] == "VALIDATION_ERROR"
    assert await count_posts(http, org) == before
    for change in ({"default_language": "en_US"}, {"default_language": "a" * 36}, {}):
        response = await http.patch("/v1/profiles/p-bluesky", json=change, headers=org.auth)
        assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR"), change
    missing = await http.patch("/v1/profiles/nope", json={"default_language": "en"}, headers=org.auth)
    assert (missing.status_code, missing.json()["code"]) == (404, "NOT_FOUND")
    assert (await http.get("/v1/profiles/p-bluesky", headers=org.auth)).json()["default_language"] is None


async def test_a_posts_language_and_tiktok_settings_can_be_edited_before_it_goes_out(http, org, video) -> None:
    later = {"schedule_at": (datetime.now(UTC) + timedelta(days=1)).isoformat()}
    posts = (
        await create(http, org, {"content": "hi", "profiles": ["p-bluesky", "p-tiktok"], "media_ids": [video], **later})
    )["posts"]
    bluesky, tiktok = (p["id"] for p in posts)
    edited = await http.patch(f"/v1/posts/{bluesky}", json={"language": "DE-at"}, headers=org.auth)
    assert edited.status_code == 200 and edited.json()["language"] == "de-AT"
    removed = await http.patch(f"/v1/posts/{bluesky}", json={"language": ""}, headers=org.auth)
    assert removed.json()["language"] is None
    bad = await http.patch(f"/v1/posts/{bluesky}", json={"language": "de_AT"}, headers=org.auth)
    assert (bad.status_code, bad.json()["code"]) == (400, "VALIDATION_ERROR")
    chosen = {"privacy_level": "PUBLIC_TO_EVERYONE", "disable_comment": False}
    set_ = await http.patch(f"/v1/posts/{tiktok}", json={"tiktok": chosen}, headers=org.auth)
    assert set_.status_code == 200
    assert set_.json()["tiktok"] == {**dict.fromkeys(("disable_duet", "disable_stitch", "auto_add_music")), **chosen}
    reset = await http.patch(f"/v1/posts/{tiktok}", json={"tiktok": {}}, headers=org.auth)
    assert reset.json()["tiktok"] is None  # back to every default
    elsewhere = await http.patch(f"/v1/posts/{bluesky}", json={"tiktok": chosen}, headers=org.auth)
    assert (elsewhere.status_code, elsewhere.json()["code"]) == (400, "VALIDATION_ERROR")
    level = await http.patch(f"/v1/posts/{tiktok}", json={"tiktok": {"privacy_level": "FRIENDS"}}, headers=org.auth)
    assert (level.status_code, level.json()["code"]) == (400, "VALIDATION_ERROR")


# --- notices --------------------------------------------------------------------------------------


@pytest.mark.one_backend  # which fields each destination uses: no SQL decides it
async def test_fields_a_destination_does_not_use_are_noticed_alike_by_creation_validation_and_preview(
    http, org, video
) -> None:
    profiles = ["p-linkedin", "p-youtube", "p-bluesky", "p-tiktok", "p-x"]
    body = {
        "content": "A launch video",
        "profiles": profiles,
        "media_ids": [video],
        "title": "Launch",
        "language": "en",
        "tiktok": {"privacy_level": "SELF_ONLY", "auto_add_music": True},
    }
    expected = {
        "p-linkedin": ["title", "language", "tiktok"],  # a LinkedIn video's title goes nowhere
        "p-youtube": ["tiktok"],
        "p-bluesky": ["title", "tiktok"],
        "p-tiktok": ["title", "language", "tiktok.auto_add_music"],  # a video: its caption is the content
        "p-x": ["title", "language", "tiktok"],
    }
    report = (await http.post("/v1/posts:validate", json=body, headers=org.auth)).json()
    assert report["valid"] is True, report
    preview = (await http.post("/v1/posts:preview", json=body, headers=org.auth)).json()
    created = await create(http, org, body, **{"Idempotency-Key": "notices-1"})
    for slug, check, shown in zip(profiles, report["profiles"], preview["destinations"], strict=True):
        assert fields_of(created["notices"], slug) == expected[slug], slug
        assert check["notices"] == shown["notices"] == [n for n in created["notices"] if n["profile"] == slug]
    assert [p["title"] for p in created["posts"]] == ["Launch"] * 5  # kept on the post as sent
    replayed = await create(http, org, body, **{"Idempotency-Key": "notices-1"})
    assert replayed == created  # the first answer again, notices included


@pytest.mark.one_backend
async def test_a_tiktok_photo_post_uses_its_title_and_no_duet_or_stitch(http, org, orgs) -> None:
    images = [await orgs.media(org, "image") for _ in range(2)]
    body = {
        "content": "Two photos",
        "profiles": ["p-tiktok"],
        "media_ids": images,
        "title": "Photos",
        "tiktok": {"disable_duet": True, "disable_stitch": False, "auto_add_music": True},
    }
    created = await create(http, org, body)
    assert fields_of(created["notices"], "p-tiktok") == ["tiktok.disable_duet", "tiktok.disable_stitch"]
    assert created["posts"][0]["tiktok"]["auto_add_music"] is True


# --- TikTok in the sandbox -------------------------------------------------------------------------


@pytest.mark.one_backend
@pytest.mark.usefixtures("worker")
async def test_a_tiktok_post_is_private_with_interactions_off_unless_the_request_chooses(http, org, video) -> None:
    default = (await create(http, org, {"content": "quiet", "profiles": ["p-tiktok"], "media_ids": [video]}))["posts"][
        0
    ]
    assert default["tiktok"] is None
    init = creating(await outbox(http, org, default["id"]), "/video/init/")["post_info"]
    assert (init["privacy_level"], init["disable_comment"], init["disable_duet"], init["disable_stitch"]) == (
        "SELF_ONLY",
        True,
        True,
        True,
    )
    chosen = {"privacy_level": "PUBLIC_TO_EVERYONE", "disable_comment": False, "disable_stitch": False}
    body = {"content": "loud", "profiles": ["p-tiktok"], "media_ids": [video], "tiktok": chosen}
    post = (await create(http, org, body))["posts"][0]
    assert post["tiktok"] == {"disable_duet": None, "auto_add_music": None, **chosen}
    init = creating(await outbox(http, org, post["id"]), "/video/init/")["post_info"]
    assert (init["privacy_level"], init["disable_comment"], init["disable_duet"], init["disable_stitch"]) == (
        "PUBLIC_TO_EVERYONE",
        False,
        True,  # not chosen: off
        False,
    )
    bad = {**body, "tiktok": {"privacy_level": "EVERYONE"}}
    response = await http.post("/v1/posts", json=bad, headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR")


# --- MCP and openapi.json ---------------------------------------------------------------------------


@pytest.mark.one_backend
async def test_agents_send_a_language_and_tiktok_settings_and_read_the_notices(http, channel, org) -> None:
    session = await sign_in(channel, org.email)
    token = (await tokens_for(http, session, (await register(http))["client_id"], ""))["access_token"]

    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        response = await mcp(http, token, "tools/call", {"name": name, "arguments": arguments})
        result = response.json()["result"]
        assert not result.get("isError"), result
        return result["structuredContent"]

    tools = {t["name"]: t for t in (await mcp(http, token, "tools/list")).json()["result"]["tools"]}
    for name in ("create_post", "validate_post", "preview_post"):
        assert {"language", "tiktok"} <= set(tools[name]["inputSchema"]["properties"]), name
    assert "notices" in tools["create_post"]["outputSchema"]["properties"]
    profile = await call("update_profile", {"slug": "p-mastodon", "default_language": "nl"})
    assert profile["default_language"] == "nl"
    arguments = {
        "content": "Hallo",
        "profiles": ["p-mastodon", "p-linkedin"],
        "title": "Hallo",
        "tiktok": {"privacy_level": "SELF_ONLY"},
    }
    checked = await call("validate_post", arguments)
    assert [fields_of(c["notices"], c["profile"]) for c in checked["profiles"]] == [
        ["title", "tiktok"],
        ["title", "tiktok"],
    ]
    created = await call("create_post", arguments)
    assert [p["language"] for p in created["posts"]] == ["nl", None]
    assert created["notices"] == [n for c in checked["profiles"] for n in c["notices"]]
    refused = (
        await mcp(http, token, "tools/call", {"name": "create_post", "arguments": {**arguments, "language": "nl_NL"}})
    ).json()["result"]
    assert refused["isError"] is True and '"VALIDATION_ERROR"' in refused["content"][0]["text"]


@pytest.mark.one_backend
async def test_openapi_documents_the_language_the_tiktok_settings_and_the_notices(http) -> None:
    doc = (await http.get("/openapi.json")).json()
    schemas = doc["components"]["schemas"]
    assert {"language", "tiktok"} <= set(schemas["CreatePostsRequest"]["properties"])
    assert {"language", "tiktok"} <= set(schemas["Post"]["properties"])
    assert "notices" in schemas["CreatedPosts"]["properties"]
    assert "default_language" in schemas["Profile"]["properties"]
    assert doc["paths"]["/v1/profiles/{slug}"]["patch"]["operationId"] == "updateProfile"
