"""The demo stock provider as a newcomer meets it (docs/stock.md, "The embedded demo provider"):
through POST /v1/media/stock/search, every preset and both providers answer at least three
photos for any query (the closest the catalogue has when nothing matches), and each of them can
be sourced into the library."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from core.stock.demo import DemoStockServer
from harness.stack import Stack
from tests.stock_demo import stack_with_demo_stock

# What the results are decides this, not the database.
pytestmark = pytest.mark.one_backend

PRESETS = ("square", "portrait", "landscape", "story")
QUERIES = (
    "tea",  # a newcomer's first search: two tea photos, and none square
    "coffee",  # one coffee photo in landscape, one in portrait
    "zzzz",  # nothing matches
    "A calm photo for our newsletter about a team that ships software from home, with plants and good light",
)


@pytest.fixture(scope="module")
def demo_stack(backend: str, demo: DemoStockServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with stack_with_demo_stock(backend, demo, tmp_path_factory.mktemp(f"stock-demo-{backend}")) as stack:
        yield stack


@pytest.fixture
async def api(demo_stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=demo_stack.base_url, timeout=120) as client:
        yield client


@pytest.mark.parametrize("provider", ["stock_a", "stock_b"])
async def test_every_query_and_preset_finds_at_least_three_photos_each_usable(api, demo_stack, provider) -> None:
    engine = create_async_engine(demo_stack.database_url)
    slug = f"demo-{uuid.uuid4().hex[:8]}"
    try:
        made = await admin.bootstrap(
            engine, email=f"{slug}@example.com", password="correct horse battery", org=slug, credits_=500, plan="active"
        )
    finally:
        await engine.dispose()
    auth = {"Authorization": f"Bearer {made['api_key']}"}
    for preset in PRESETS:
        refs: list[str] = []
        for query in QUERIES:
            found = await api.post(
                "/v1/media/stock/search",
                json={"query": query, "preset": preset, "provider": provider, "count": 12},
                headers=auth,
            )
            assert found.status_code == 200, (preset, query, found.text)
            results = found.json()["results"]
            assert len(results) >= 3, (preset, query, results)
            assert len({r["source_ref"] for r in results}) == len(results)
            refs += [r["source_ref"] for r in results[:3]]
        # Each photo found turns into library media cropped for the preset.
        chosen = list(dict.fromkeys(refs))
        for start in range(0, len(chosen), 10):
            batch = chosen[start : start + 10]
            sourced = await api.post(
                "/v1/media/source",
                json={"source_refs": batch, "preset": preset, "provider": provider},
                headers=auth,
            )
            assert sourced.status_code == 200, (preset, sourced.text)
            body = sourced.json()
            assert (body["status"], body["delivered_count"], body["failures"]) == ("ready", len(batch), []), body
