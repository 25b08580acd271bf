"""The post preview app (MCP Apps, issue 19) in Chromium, inside a minimal host written here
from the Apps dialect: the host reads `ui://herald/post-preview` over /mcp, renders it in a
sandboxed iframe, answers `ui/initialize`, pushes the arguments and the real `preview_post`
result, and forwards the app's `tools/call` to /mcp with the agent's token (as a host's backend
would). One card per destination for all eight platforms, counters against the API's numbers,
problems highlighted, and the button creates the post.

Screenshots go to $HERALD_SCREENSHOT_DIR when set (docs/images/ holds the committed ones, taken
with Debian's fonts-noto-color-emoji installed so emoji render), else to the test's temporary
directory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.oauth_flow import mcp, register, sign_in, tokens_for

# A page and the MCP surface; the preview's verdicts run on both backends in tests/facades.
pytestmark = pytest.mark.one_backend

PLATFORMS = ("x", "bluesky", "mastodon", "threads", "instagram", "tiktok", "youtube", "linkedin")

HOST = """<!doctype html><html><head><style>body{margin:0;background:#e9ecef}
iframe{border:0;width:1200px;height:300px;display:block}</style></head>
<body><iframe id="app" sandbox="allow-scripts"></iframe><script>
const frame = document.getElementById("app");
window.hostLog = [];
window.startApp = (html, toolInput, toolResult) => {
  window.addEventListener("message", async (event) => {
    if (event.source !== frame.contentWindow) return;
    const m = event.data; window.hostLog.push(m.method || ("response " + m.id));
    const reply = (body) => frame.contentWindow.postMessage(Object.assign({jsonrpc: "2.0", id: m.id}, body), "*");
    const notify = (method, params) => frame.contentWindow.postMessage({jsonrpc: "2.0", method, params}, "*");
    if (m.method === "ui/initialize") {
      reply({result: {protocolVersion: "2026-01-26", hostInfo: {name: "test-host", version: "1"},
        hostCapabilities: {serverTools: {}}, hostContext: {theme: "light", displayMode: "inline", locale: "en-US"}}});
    } else if (m.method === "ui/notifications/initialized") {
      notify("ui/notifications/tool-input", {arguments: toolInput});
      notify("ui/notifications/tool-result", toolResult);
    } else if (m.method === "ui/notifications/size-changed") {
      frame.style.height = m.params.height + "px";  // a host sizes the frame to its content
    } else if (m.method === "tools/call") {
      reply({result: JSON.parse(await window.hostCallTool(JSON.stringify(m.params)))});
    }
  });
  frame.srcdoc = html;
};
</script></body></html>"""


def _shots(tmp_path: Path) -> Path:
    where = Path(os.environ.get("HERALD_SCREENSHOT_DIR") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


async def _open(page, http, token: str, arguments: dict) -> tuple[object, dict]:
    """The app in the host, showing `preview_post(arguments)`; the frame and the tool's result."""
    read = (await mcp(http, token, "resources/read", {"uri": "ui://herald/post-preview"})).json()["result"]
    html = read["contents"][0]["text"]
    called = (await mcp(http, token, "tools/call", {"name": "preview_post", "arguments": arguments})).json()
    result = called["result"]

    async def call_tool(params: str) -> str:
        answered = (await mcp(http, token, "tools/call", json.loads(params))).json()
        return json.dumps(answered["result"])

    await page.expose_function("hostCallTool", call_tool)
    await page.set_viewport_size({"width": 1200, "height": 1800})
    await page.set_content(HOST)
    await page.evaluate("([html, input, result]) => window.startApp(html, input, result)", [html, arguments, result])
    frame = page.frame_locator("#app")
    await frame.locator(".summary").wait_for()
    return frame, result


async def _agent(http, channel, orgs, stack):
    org = await orgs(credits=100)
    for platform in PLATFORMS:
        await orgs.profile(org, f"acme-{platform}", platform)
    image = await orgs.media(org, "image", width=1200, height=1200)
    video = await orgs.media(org, "video", width=1080, height=1920)
    wide = await orgs.media(org, "video", width=1920, height=1080)
    token = (await tokens_for(http, await sign_in(channel, org.email), (await register(http))["client_id"]))[
        "access_token"
    ]
    arguments = {
        "content": "Our spring collection is here 🌱 Fresh colours, recycled fabrics, same fit. https://example.com/spring",
        "profiles": [f"acme-{p}" for p in PLATFORMS],
        "media_ids": [image],
        "thread": [{"content": "Every piece is made from at least 60% recycled fibre. Details in the lookbook."}],
        "customizations": {
            "acme-instagram": {"thread": [], "first_comment": "Sizes and prices: link in bio"},
            "acme-tiktok": {"media_ids": [video], "thread": [], "content": "Spring drop 🌱 #fashion #spring"},
            "acme-youtube": {
                "media_ids": [wide],
                "thread": [],
                "title": "Spring collection 2027 — lookbook",
                "first_comment": "Sizes and prices: https://example.com/spring/sizes",
            },
            "acme-linkedin": {"thread": []},
        },
    }
    return org, token, arguments


async def test_one_card_per_destination_with_the_api_numbers(page, http, channel, orgs, stack, tmp_path) -> None:
    _, token, arguments = await _agent(http, channel, orgs, stack)
    frame, result = await _open(page, http, token, arguments)
    shown = result["structuredContent"]
    assert shown["valid"] is True, [(d["profile"], d["problems"]) for d in shown["destinations"]] + shown["problems"]
    cards = frame.locator("article.card")
    assert await cards.count() == 8
    for destination in shown["destinations"]:
        card = frame.locator(f'article.card[data-profile="{destination["profile"]}"]')
        assert await card.get_attribute("data-platform") == destination["connector"]
        assert destination["platform"] in await card.locator(".handle").inner_text()
        parts = card.locator("section.part")
        assert await parts.count() == len(destination["parts"])
        for index, part in enumerate(destination["parts"]):
            section = parts.nth(index)
            assert await section.get_attribute("data-role") == part["role"]
            assert await section.locator(".text").inner_text() == part["text"]
            assert await section.locator(".count").inner_text() == f"{part['length']} / {part['max_length']}"
            assert await section.locator(".tile").count() == len(part["media"])
    # X weighs the emoji 2 and each URL 23: the card says what the API counted.
    x = next(d for d in shown["destinations"] if d["connector"] == "x")
    url = "https://example.com/spring"
    assert x["parts"][0]["length"] == len(arguments["content"]) - len(url) - 1 + 2 + 23
    assert await frame.locator(".summary .verdict").inner_text() == "Ready for all 8 destinations"
    await page.locator("#app").screenshot(path=str(_shots(tmp_path) / "post-preview.png"))

    # The human's click: create_post through the host, with the agent's token.
    button = frame.locator("button.schedule")
    assert await button.inner_text() == "Publish now" and await button.is_enabled()
    await button.click()
    await frame.locator(".outcome.ok").wait_for()
    outcome = await frame.locator(".outcome").inner_text()
    assert outcome.startswith("Created 8 posts") and await button.is_disabled()
    listed = (await mcp(http, token, "tools/call", {"name": "list_posts", "arguments": {}})).json()["result"]
    assert sorted(p["profile"] for p in listed["structuredContent"]["posts"]) == sorted(arguments["profiles"])
    assert "tools/call" in await page.evaluate("window.hostLog")


async def test_problems_are_highlighted_and_block_the_button(page, http, channel, orgs, stack, tmp_path) -> None:
    _, token, arguments = await _agent(http, channel, orgs, stack)
    arguments = {**arguments, "content": "A launch note. " * 21}  # 315 characters: over X and Bluesky
    arguments["customizations"] = {**arguments["customizations"], "acme-youtube": {"media_ids": [], "thread": []}}
    frame, result = await _open(page, http, token, arguments)
    shown = result["structuredContent"]
    invalid = {d["profile"] for d in shown["destinations"] if not d["valid"]}
    assert {"acme-x", "acme-bluesky", "acme-youtube"} <= invalid
    for destination in shown["destinations"]:
        card = frame.locator(f'article.card[data-profile="{destination["profile"]}"]')
        assert ("invalid" in (await card.get_attribute("class")).split()) is (not destination["valid"])
        assert await card.locator("li.problem").count() == len(destination["problems"])
        if not destination["valid"] and destination["connector"] in ("x", "bluesky"):
            assert await card.locator(".role-content .counter.over").count() == 1
    assert await frame.locator("button.schedule").is_disabled()
    assert await frame.locator(".summary .verdict").inner_text() == f"{8 - len(invalid)} of 8 destinations ready"
    await page.locator("#app").screenshot(path=str(_shots(tmp_path) / "post-preview-problems.png"))
