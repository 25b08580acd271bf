"""Posts made through /v1 by the tests: a send time ahead, and a creation that must succeed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from tests.conftest import Org


def later(days: float = 1) -> str:
    """An instant `days` ahead, as schedule_at takes it."""
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


async def create(http: httpx.AsyncClient, org: Org, body: dict[str, Any]) -> str:
    """POST /v1/posts, which must answer 201; the id of its first post."""
    created = await http.post("/v1/posts", json=body, headers=org.auth)
    assert created.status_code == 201, created.text
    return created.json()["posts"][0]["id"]
