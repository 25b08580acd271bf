"""What every dashboard page's browser test checks besides its behaviour (docs/dashboard.md,
"How a page is built"): axe-core finds no WCAG 2.2 A or AA violation, at a desktop width and at
390 CSS pixels (a phone), where the page never scrolls sideways (WCAG 1.4.10, reflow: long ids and URLs
wrap), and a full-page screenshot of each is kept for review."""

from __future__ import annotations

from pathlib import Path

# axe-core comes from the npm registry with the other Node test tools (scripts/ensure_node_tools.sh).
AXE_SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "node" / "node_modules" / "axe-core" / "axe.min.js"
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "390px": {"width": 390, "height": 844}}
# The rules of WCAG 2.0, 2.1 and 2.2 at levels A and AA, as axe-core tags them.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


async def axe_violations(page) -> list[str]:  # a Playwright Page
    """axe-core's WCAG violations on the page as it is now, one line each ("rule (impact):
    elements"); empty when it passes. The engine is evaluated through the browser's DevTools
    protocol, which the page's Content-Security-Policy does not govern, so the page is checked
    under the very headers it is served with."""
    if not AXE_SCRIPT.exists():
        raise RuntimeError(f"{AXE_SCRIPT} is missing: run scripts/ensure_node_tools.sh")
    if not await page.evaluate("() => typeof axe !== 'undefined'"):
        await page.evaluate(AXE_SCRIPT.read_text())
    result = await page.evaluate(
        "(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}})",
        WCAG_TAGS,
    )
    return [
        f"{v['id']} ({v['impact']}): " + ", ".join(" ".join(node["target"]) for node in v["nodes"][:5])
        for v in result["violations"]
    ]


async def check_page(page, artifacts_dir: Path, backend: str, name: str) -> None:
    """The page as it is now passes axe-core at each width; its screenshots are
    `test-artifacts/screenshots/<backend>-<name>-<desktop|390px>.png`."""
    folder = artifacts_dir / "screenshots"
    folder.mkdir(exist_ok=True)
    for label, size in VIEWPORTS.items():
        await page.set_viewport_size(size)
        violations = await axe_violations(page)
        await page.screenshot(path=str(folder / f"{backend}-{name}-{label}.png"), full_page=True)
        assert not violations, f"{name} at {label}: " + "; ".join(violations)
        overflow = await page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} at {label} scrolls sideways by {overflow} px"
