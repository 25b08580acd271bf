"""The brand voice (issue 11): read and saved over REST, read by agents over MCP, versioned, with
profile overrides; never-publish phrases refused at creation, at edit, and again at delivery."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from harness.oauth_flow import mcp, register, sign_in, tokens_for
from tests.messages import names

VOICE = {
    "description": "Plain, warm and precise. We explain, we never hype.",
    "tone": ["warm", "direct"],
    "audience": "Small-business owners who post on their own",
    "examples": ["We shipped scheduled posts today. Tell us what you think!", "Three tips for calmer posting:"],
    "never_publish": ["guaranteed results", "cheap", "禁止"],
    "preferred_terms": [{"use": "customers", "instead_of": "users"}],
    "emoji": "none",
    "hashtags": "few",
    "signature_hashtags": ["acme", "#AcmeTips"],
}


@pytest.fixture
async def org(orgs):
    org = await orgs(credits=100)
    await orgs.profile(org, "acme-x", "x")
    await orgs.profile(org, "acme-li", "linkedin")
    return org


async def test_an_organization_starts_without_a_voice(http, org) -> None:
    voice = (await http.get("/v1/brand-voice", headers=org.auth)).json()
    assert (voice["version"], voice["never_publish"], voice["emoji"], voice["hashtags"]) == (0, [], "sparing", "few")
    assert voice["updated_at"] is None and voice["profile"] is None


async def test_saving_makes_versions(http, org) -> None:
    first = await http.put("/v1/brand-voice", json=VOICE, headers=org.auth)
    assert first.status_code == 200, first.text
    saved = first.json()
    assert saved["version"] == 1 and saved["updated_by"] == org.email
    assert saved["signature_hashtags"] == ["#acme", "#AcmeTips"]
    assert {k: saved[k] for k in ("description", "tone", "examples", "never_publish", "emoji")} == {
        k: VOICE[k] for k in ("description", "tone", "examples", "never_publish", "emoji")
    }
    second = (await http.put("/v1/brand-voice", json={"description": "Shorter."}, headers=org.auth)).json()
    assert second["version"] == 2 and second["never_publish"] == [] and second["description"] == "Shorter."
    assert (await http.get("/v1/brand-voice", headers=org.auth)).json() == second
    stale = await http.put("/v1/brand-voice", json={**VOICE, "expected_version": 1}, headers=org.auth)
    assert (stale.status_code, stale.json()["code"]) == (409, "CONFLICT")
    fresh = await http.put("/v1/brand-voice", json={**VOICE, "expected_version": 2}, headers=org.auth)
    assert fresh.json()["version"] == 3


async def test_concurrent_saves_each_get_a_version(http, org) -> None:
    answers = await asyncio.gather(
        *(http.put("/v1/brand-voice", json={"description": f"v{i}"}, headers=org.auth) for i in range(6))
    )
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
    assert sorted(a.json()["version"] for a in answers) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize(
    "body",
    [
        {"description": "x" * 2001},
        {"tone": ["ok"] * 11},
        {"never_publish": ["cheap", "CHEAP"]},
        {"never_publish": ["  "]},
        {"never_publish": ["x" * 101]},
        {"preferred_terms": [{"use": "", "instead_of": "users"}]},
        {"signature_hashtags": ["not a tag"]},
        {"emoji": "lots"},
        {"examples": ["x" * 5001]},
        {"tone": "warm"},
        {"surprise": 1},
    ],
)
async def test_bad_voices_are_refused_and_change_nothing(http, org, body) -> None:
    response = await http.put("/v1/brand-voice", json=body, headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR"), response.text
    assert (await http.get("/v1/brand-voice", headers=org.auth)).json()["version"] == 0


async def test_a_voice_read_can_be_edited_and_sent_back_whole(http, org) -> None:
    """GET, change one field, PUT the whole body back: the output-only fields it carries
    (version, profile_version, updated_at, updated_by) are ignored (AIP-203), the change applies."""
    await http.put("/v1/brand-voice", json=VOICE, headers=org.auth)
    read = (await http.get("/v1/brand-voice", headers=org.auth)).json()
    assert {"profile", "version", "profile_version", "updated_at", "updated_by"} <= set(read)
    saved = await http.put("/v1/brand-voice", json={**read, "tone": ["calm"]}, headers=org.auth)
    assert saved.status_code == 200, saved.text
    after = saved.json()
    assert (after["version"], after["tone"]) == (2, ["calm"])
    unchanged = ("profile_version", "updated_at", "version", "tone")
    assert {k: v for k, v in after.items() if k not in unchanged} == {
        k: v for k, v in read.items() if k not in unchanged
    }
    # Output-only values are not checked, only ignored: a stale or odd one changes nothing.
    odd = {**after, "version": "seven", "updated_at": 5, "updated_by": None, "profile_version": -1}
    assert (await http.put("/v1/brand-voice", json=odd, headers=org.auth)).json()["version"] == 3
    # A profile's voice read back is saved as that profile's override, and only there.
    effective = (await http.get("/v1/brand-voice?profile=acme-x", headers=org.auth)).json()
    override = await http.put("/v1/brand-voice?profile=acme-x", json={**effective, "emoji": "none"}, headers=org.auth)
    assert override.status_code == 200, override.text
    assert (override.json()["profile"], override.json()["profile_version"], override.json()["emoji"]) == (
        "acme-x",
        1,
        "none",
    )
    for path, body in (("/v1/brand-voice", effective), ("/v1/brand-voice?profile=acme-x", after)):
        mismatch = await http.put(path, json=body, headers=org.auth)
        # The same bodies were accepted where their profile is the query's (above).
        assert (mismatch.status_code, mismatch.json()["code"]) == (400, "VALIDATION_ERROR"), mismatch.text
    assert (await http.get("/v1/brand-voice", headers=org.auth)).json()["version"] == 3


@pytest.mark.one_backend  # the contract's field rules: no SQL decides them
async def test_unknown_fields_are_still_refused_and_the_schema_marks_output_only_fields(http, org) -> None:
    read = (await http.get("/v1/brand-voice", headers=org.auth)).json()
    for body in ({"descripton": "a typo"}, {**read, "tones": ["warm"]}, {**read, "id": "bvo_x"}):
        refused = await http.put("/v1/brand-voice", json=body, headers=org.auth)
        assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR"), refused.text
    assert (await http.get("/v1/brand-voice", headers=org.auth)).json()["version"] == 0
    components = (await http.get("/openapi.json")).json()["components"]["schemas"]
    voice = components["BrandVoice"]["properties"]
    assert {k for k, v in voice.items() if v.get("readOnly")} == {
        "version",
        "profile_version",
        "updated_at",
        "updated_by",
    }
    update = components["UpdateBrandVoiceRequest"]["properties"]
    assert {k for k, v in update.items() if v.get("readOnly")} == {
        "version",
        "profile_version",
        "updated_at",
        "updated_by",
        "warning",
    }


async def test_a_profile_override_applies_on_top(http, org) -> None:
    await http.put("/v1/brand-voice", json=VOICE, headers=org.auth)
    override = {"tone": ["terse"], "never_publish": ["synergy"], "emoji": "frequent"}
    saved = await http.put("/v1/brand-voice?profile=acme-x", json=override, headers=org.auth)
    assert saved.status_code == 200, saved.text
    voice = saved.json()
    assert (voice["profile"], voice["version"], voice["profile_version"]) == ("acme-x", 1, 1)
    assert voice["tone"] == ["terse"] and voice["emoji"] == "frequent"
    assert voice["description"] == VOICE["description"]  # inherited
    assert voice["never_publish"] == [*VOICE["never_publish"], "synergy"]  # added, never removed
    other = (await http.get("/v1/brand-voice?profile=acme-li", headers=org.auth)).json()
    assert other["never_publish"] == VOICE["never_publish"] and other["profile_version"] == 0
    unknown = await http.get("/v1/brand-voice?profile=nope", headers=org.auth)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "NOT_FOUND")
    # The override's phrase refuses posts to that profile only.
    refused = await http.post("/v1/posts", json={"content": "Pure synergy", "profiles": ["acme-x"]}, headers=org.auth)
    assert refused.json()["code"] == "NEVER_PUBLISH_PHRASE"
    allowed = await http.post("/v1/posts", json={"content": "Pure synergy", "profiles": ["acme-li"]}, headers=org.auth)
    assert allowed.status_code == 201


async def test_posts_with_a_never_publish_phrase_are_refused(http, org) -> None:
    await http.put("/v1/brand-voice", json=VOICE, headers=org.auth)
    for content in ("Not CHEAP at all", "Guaranteed   Results!", "これは禁止です", "Ch\u00e9ap"):
        response = await http.post(
            "/v1/posts", json={"content": content, "profiles": ["acme-li", "acme-x"]}, headers=org.auth
        )
        assert response.status_code == 400, content
        body = response.json()
        assert body["code"] == "NEVER_PUBLISH_PHRASE" and body["profile"] == "acme-li"
        assert body["phrase"] in VOICE["never_publish"]
    assert (
        await http.post("/v1/posts", json={"content": "Cheaper? No.", "profiles": ["acme-x"]}, headers=org.auth)
    ).status_code == 201
    assert len((await http.get("/v1/posts", headers=org.auth)).json()["posts"]) == 1


async def test_edits_are_checked_too(http, org) -> None:
    when = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    post = (
        await http.post(
            "/v1/posts", json={"content": "Fine", "profiles": ["acme-x"], "schedule_at": when}, headers=org.auth
        )
    ).json()["posts"][0]
    await http.put("/v1/brand-voice", json=VOICE, headers=org.auth)
    edited = await http.patch(f"/v1/posts/{post['id']}", json={"content": "So cheap"}, headers=org.auth)
    assert edited.json()["code"] == "NEVER_PUBLISH_PHRASE"
    assert (await http.get(f"/v1/posts/{post['id']}", headers=org.auth)).json()["content"] == "Fine"


async def test_a_post_scheduled_before_the_phrase_was_added_fails_uncharged(http, org, worker, engine) -> None:
    from core.db.models import posts

    soon = (datetime.now(UTC) + timedelta(seconds=2)).isoformat()
    created = await http.post(
        "/v1/posts", json={"content": "Cheap flights!", "profiles": ["acme-x"], "schedule_at": soon}, headers=org.auth
    )
    post_id = created.json()["posts"][0]["id"]
    await http.put("/v1/brand-voice", json={"never_publish": ["cheap flights"]}, headers=org.auth)
    for _ in range(200):
        post = (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()
        if post["status"] == "failed":
            break
        await asyncio.sleep(0.05)
    assert (post["status"], post["failure_reason"]) == ("failed", "never_publish_phrase")
    assert names(post["failure_detail"], "cheap flights")  # a post carries no field for the phrase
    assert (await http.get("/v1/credits", headers=org.auth)).json()["balance"] == 100  # never charged
    async with engine.connect() as conn:
        charged = (await conn.execute(select(posts.c.charged).where(posts.c.id == post_id))).scalar()
    assert charged == 0
    assert (await http.get(f"/v1/posts/{post_id}/outbox", headers=org.auth)).json()["entries"] == []


async def _agent(http, channel, org, scope: str) -> str:
    tokens = await tokens_for(http, await sign_in(channel, org.email), (await register(http))["client_id"], scope)
    return tokens["access_token"]


async def test_agents_read_the_voice_with_generate_read(http, channel, org) -> None:
    await http.put("/v1/brand-voice", json=VOICE, headers=org.auth)
    token = await _agent(http, channel, org, "generate:read posts:write")
    result = (await mcp(http, token, "tools/call", {"name": "get_brand_voice", "arguments": {}})).json()["result"]
    assert result["structuredContent"]["never_publish"] == VOICE["never_publish"]
    for_profile = await mcp(http, token, "tools/call", {"name": "get_brand_voice", "arguments": {"profile": "acme-x"}})
    assert for_profile.json()["result"]["structuredContent"]["profile"] == "acme-x"
    refused = await mcp(
        http, token, "tools/call", {"name": "create_post", "arguments": {"content": "cheap!", "profiles": ["acme-x"]}}
    )
    failure = json.loads(refused.json()["result"]["content"][0]["text"])
    assert (failure["code"], failure["phrase"], failure["profile"]) == ("NEVER_PUBLISH_PHRASE", "cheap", "acme-x")
    without = await _agent(http, channel, org, "posts:read posts:write")
    challenge = await mcp(http, without, "tools/call", {"name": "get_brand_voice", "arguments": {}})
    assert challenge.status_code == 403 and 'scope="generate:read"' in challenge.headers["www-authenticate"]
