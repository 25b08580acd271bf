"""The demo stock provider (core/stock/demo.py) as every stock test starts it, and a stack whose
providers point at it: one place for what tests/core/stock, tests/facades/test_stock*.py and
tests/e2e/test_media_page.py share. Its fixtures reach every test through tests/conftest.py's
`pytest_plugins`; a module imports the functions."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.stock.demo import DEMO_PEXELS_KEY, DEMO_UNSPLASH_KEY, DemoStockServer
from harness.stack import Stack, stack_on_own_database


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoStockServer]:
    """The demo provider on a port of its own for one test module (its faults, requests and
    download counts are that module's). Its catalogue is drawn once per test session, in a
    directory every module's server reads, and before the first search (drawing it takes
    seconds, which would otherwise fall on one test's timeouts)."""
    with DemoStockServer(tmp_path_factory.getbasetemp() / "stock-demo-data") as server:
        server.prepare()
        yield server


@pytest.fixture
def no_faults_left(demo: DemoStockServer) -> Iterator[None]:
    """A test's faults end with it, even when it fails before clearing them."""
    yield
    demo.clear_faults()


def demo_providers(demo: DemoStockServer, *, stock_b: bool = True) -> dict[str, str]:
    """The settings that send stock_a (Pexels' API), and stock_b (Unsplash's) unless told not
    to, to the demo provider, with the demo's keys (docs/stock.md)."""
    settings = {"HERALD_STOCK_A_API_KEY": DEMO_PEXELS_KEY, "HERALD_STOCK_A_BASE_URL": demo.pexels_base_url}
    if stock_b:
        settings |= {
            "HERALD_STOCK_B_ACCESS_KEY": DEMO_UNSPLASH_KEY,
            "HERALD_STOCK_B_BASE_URL": demo.unsplash_base_url,
            "HERALD_STOCK_B_APP_NAME": "herald_test",
        }
    return settings


@contextmanager
def stack_with_demo_stock(
    backend: str, demo: DemoStockServer, workdir: Path, *, stock_b: bool = True, **settings: str
) -> Iterator[Stack]:
    """A stack of its own (database, core, facade) whose providers are the demo's; no low-credit
    warning unless `settings` set one, so a body is compared whole."""
    settings = {"HERALD_LOW_CREDIT_THRESHOLD": "0", **demo_providers(demo, stock_b=stock_b), **settings}
    with stack_on_own_database(backend, workdir, **settings) as stack:
        yield stack
