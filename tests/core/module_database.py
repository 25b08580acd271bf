"""Fixtures for in-process core tests that share one migrated database per module and backend:
`url` (the database) and `engine` (the core's own engine on it, per test)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.engine import create_engine
from core.settings import CoreSettings
from harness.stack import database


@pytest.fixture(scope="module")
def url(backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    name = request.module.__name__.rsplit(".", 1)[-1]
    with database(backend, tmp_path_factory.mktemp(f"{name}-{backend}")) as u:
        yield u


@pytest.fixture
async def engine(url: str) -> AsyncIterator[AsyncEngine]:
    eng = create_engine(CoreSettings(database_url=url))
    yield eng
    await eng.dispose()
