"""What the live publishing modules (test_live_*.py) share. Each defines `live_stack`, a live-mode
stack of its own whose platform hosts go to its fakes (harness/live.py), and takes from here its
worker processes, its organization and an HTTP client on that stack. And `tab`, a browser page
whose clocks are in the module's `BROWSER_ZONE` (the calendar's and the workspace flow's)."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from harness.live import Live, client, live_org, workers
from harness.stack import Stack


@pytest.fixture
async def tab(browser, stack: Stack, request: pytest.FixtureRequest) -> AsyncIterator[object]:
    """A fresh context whose clocks are the module's `BROWSER_ZONE`'s, recording any
    Content-Security-Policy violation the page reports in `page.violations`."""
    zone = request.module.BROWSER_ZONE
    context = await browser.new_context(base_url=stack.base_url, timezone_id=zone, locale="en-GB")
    page = await context.new_page()
    page.violations = []
    page.on("console", lambda m: page.violations.append(m.text) if "Content Security Policy" in m.text else None)
    yield page
    await context.close()


def _module_name(request: pytest.FixtureRequest) -> str:
    """`test_live_graph` → `graph`: names the module's workers' logs and its organization."""
    return request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_live_").replace("_", "-")


@pytest.fixture(scope="module")
def live_workers(live_stack: Stack, request: pytest.FixtureRequest) -> Iterator[list[subprocess.Popen]]:
    """The module's `herald worker` processes: its `LIVE_WORKERS` (one unless it says more)."""
    count = getattr(request.module, "LIVE_WORKERS", 1)
    with workers(live_stack, _module_name(request), count=count) as procs:
        yield procs


@pytest.fixture(scope="module")
def live_worker(live_workers: list[subprocess.Popen]) -> subprocess.Popen:
    """The module's one worker, for a module that runs one."""
    (proc,) = live_workers
    return proc


@pytest.fixture(scope="module")
async def live(live_stack: Stack, request: pytest.FixtureRequest) -> AsyncIterator[Live]:
    """The organization the module publishes for (its accounts are its fixtures')."""
    async with live_org(live_stack, _module_name(request)) as org:
        yield org


@pytest.fixture
async def api(live_stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with client(live_stack) as http:
        yield http
