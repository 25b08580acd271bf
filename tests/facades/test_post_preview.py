"""The preview of a post (issue 19): `POST /v1/posts:preview` and the MCP tool `preview_post`.
It is the dry run plus rendering, so its verdicts are held to validate_post's on the same bodies;
what it adds (each part's text, counts, media, warnings) is checked per platform."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from jsonschema import Draft202012Validator

from harness.oauth_flow import mcp, register, sign_in, tokens_for


@pytest.fixture
async def org(orgs):
    return await orgs.with_profiles("x", "bluesky", "instagram", "youtube")


async def _preview(http, org, body: dict) -> dict:
    response = await http.post("/v1/posts:preview", json=body, headers=org.auth)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(
    "body",
    [
        {"content": "Hello 👋 https://example.com/a", "profiles": ["acme-x", "acme-bsky"]},
        {"content": "cheap " + "x" * 290, "profiles": ["acme-x", "acme-bsky", "acme-ig", "acme-yt", "nope"]},
        {"content": "a video", "profiles": ["acme-yt"], "title": "T"},
        {"content": "ok", "profiles": ["acme-x"], "schedule_at": "2020-01-01T00:00:00Z"},
        {"content": "ok", "profiles": ["acme-x"], "media_ids": ["med_unknown"]},
        {"content": "one", "profiles": ["acme-x", "acme-bsky"], "thread": [{"content": "two"}, {"content": "y" * 299}]},
    ],
)
async def test_the_verdicts_are_validate_posts(http, org, body: dict) -> None:
    await http.put("/v1/brand-voice", json={"never_publish": ["cheap"]}, headers=org.auth)
    shown = await _preview(http, org, body)
    report = (await http.post("/v1/posts:validate", json=body, headers=org.auth)).json()
    assert (shown["valid"], shown["deliverable"], shown["problems"], shown["credits"]) == (
        report["valid"],
        report["deliverable"],
        report["problems"],
        report["credits"],
    )
    for destination, check in zip(shown["destinations"], report["profiles"], strict=True):
        assert (destination["profile"], destination["valid"], destination["problems"]) == (
            check["profile"],
            check["valid"],
            check["problems"],
        )
        content = [p for p in destination["parts"] if p["role"] == "content"]
        if check["connector"] is None:
            assert (destination["connector"], destination["parts"]) == (None, [])
        else:
            assert (content[0]["length"], content[0]["max_length"]) == (check["length"], check["max_length"])
    assert (await http.get("/v1/posts", headers=org.auth)).json()["posts"] == []  # nothing created


async def test_each_destination_shows_its_own_version_part_by_part(http, org, orgs) -> None:
    video = await orgs.media(org, "video", width=1080, height=1920)
    image = await orgs.media(org, "image", width=1200, height=630)
    when = (datetime.now(UTC) + timedelta(days=1)).replace(microsecond=0)
    body = {
        "content": "Launch day 🚀 https://example.com/launch",
        "profiles": ["acme-x", "acme-bsky", "acme-yt"],
        "media_ids": [image],
        "thread": [{"content": "Part two"}],
        "first_comment": "Link in bio",
        "schedule_at": when.isoformat(),
        "customizations": {
            "acme-yt": {"content": "The full story", "media_ids": [video], "title": "Launch", "thread": []},
            "acme-bsky": {"content": "Bluesky gets its own words"},
        },
    }
    shown = await _preview(http, org, body)
    x, bsky, yt = shown["destinations"]
    assert (x["platform"], x["display_name"], x["post_type"]) == ("X", "acme-x", "post")
    assert [(p["role"], p["text"]) for p in x["parts"]] == [
        ("content", body["content"]),
        ("thread_item", "Part two"),
        ("first_comment", "Link in bio"),
    ]
    # X weighs the emoji 2 and the URL 23; Bluesky counts graphemes.
    assert (x["parts"][0]["length"], x["parts"][0]["max_length"]) == (11 + 2 + 1 + 23, 280)
    assert x["parts"][0]["media"] == [
        {
            "media_id": image,
            "kind": "image",
            "mime_type": "image/jpeg",
            "width": 1200,
            "height": 630,
            "size_bytes": 200_000,
        }
    ]
    assert x["parts"][1]["media"] == []
    assert bsky["parts"][0]["text"] == "Bluesky gets its own words" and bsky["parts"][0]["unit"] == "graphemes"
    assert [(p["role"], p["text"]) for p in yt["parts"]] == [
        ("title", "Launch"),
        ("content", "The full story"),
        ("first_comment", "Link in bio"),
    ]
    assert [m["media_id"] for m in yt["parts"][1]["media"]] == [video]
    assert yt["parts"][0]["max_length"] == 100
    assert datetime.fromisoformat(shown["schedule_at"]) == when
    assert shown["credits"]["required"] == 2 + 2 + 1  # the post and its thread item, twice; YouTube's post


async def test_warnings_near_the_limit_and_for_drafts(http, org) -> None:
    shown = await _preview(http, org, {"content": "y" * 265, "profiles": ["acme-x", "acme-bsky"]})
    x, bsky = shown["destinations"]
    assert [w["code"] for w in x["warnings"]] == ["NEAR_LIMIT"]
    assert (x["parts"][0]["length"], x["parts"][0]["max_length"]) == (265, 280)
    assert bsky["warnings"] == [] and x["valid"] is True  # a warning is not a problem
    draft = await _preview(http, org, {"content": "later", "profiles": ["acme-x"], "draft": True})
    assert draft["draft"] is True and [w["code"] for w in draft["destinations"][0]["warnings"]] == ["DRAFT"]


async def test_preview_post_over_mcp_with_its_ui_resource(http, channel, org) -> None:
    session = await sign_in(channel, org.email)
    token = (await tokens_for(http, session, (await register(http))["client_id"], "posts:read"))["access_token"]
    tools = {t["name"]: t for t in (await mcp(http, token, "tools/list")).json()["result"]["tools"]}
    tool = tools["preview_post"]
    assert tool["_meta"]["ui"] == {"resourceUri": "ui://herald/post-preview"}
    assert tool["annotations"]["readOnlyHint"] is True
    # create_post's arguments (but its retry key: a preview creates nothing to retry).
    same = set(tools["create_post"]["inputSchema"]["properties"]) - {"idempotency_key"}
    assert set(tool["inputSchema"]["properties"]) == same
    arguments = {"content": "z" * 300, "profiles": ["acme-x", "acme-bsky"]}
    result = (await mcp(http, token, "tools/call", {"name": "preview_post", "arguments": arguments})).json()["result"]
    out = result["structuredContent"]
    assert not [e.message for e in Draft202012Validator(tool["outputSchema"]).iter_errors(out)]
    assert json.loads(result["content"][0]["text"]) == out
    assert [d["valid"] for d in out["destinations"]] == [False, True]


async def test_the_app_inlines_the_dashboards_card_renderer(http, channel, org) -> None:
    """One renderer for the cards (docs/dashboard.md, "Compose"): the dashboard serves
    preview_cards.js and .css from /static, and the app's resource carries both inline, whole, so it
    stays self-contained under its own policy."""
    session = await sign_in(channel, org.email)
    token = (await tokens_for(http, session, (await register(http))["client_id"], "posts:read"))["access_token"]
    read = (await mcp(http, token, "resources/read", {"uri": "ui://herald/post-preview"})).json()["result"]
    html = read["contents"][0]["text"]
    for name in ("preview_cards.js", "preview_cards.css"):
        served = await http.get(f"/static/{name}")
        assert served.status_code == 200
        assert served.text.rstrip("\n") in html, name
    assert "herald:include" not in html
    assert "<script src" not in html and "<link" not in html
    assert html.index("const HeraldPreviewCards") < html.index("HeraldPreviewCards;")  # defined before used
