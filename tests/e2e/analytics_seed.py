"""Posts with metrics for the analytics pages' tests (tests/e2e/test_analytics_pages.py), on the
shared stack and its worker: published by the worker, their publication moved back some days
(the one write behind the API's back, as scripts/screenshots.py does: the sandbox's numbers grow
with a post's age, and the daily series needs days), then read by the worker at each `POST
/v1/posts/{id}/metrics/refresh` (docs/analytics.md, "Schedule")."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db.models import post_metric_series, posts
from harness.live import settled
from tests.conftest import Org


async def publish(http: httpx.AsyncClient, org: Org, body: dict) -> list[str]:
    """The request's posts once the worker published them."""
    made = await http.post("/v1/posts", json=body, headers=org.auth)
    assert made.status_code == 201, made.text
    ids = [p["id"] for p in made.json()["posts"]]
    for post_id in ids:
        assert (await settled(http, org.auth, post_id))["status"] == "published"
    return ids


async def age(engine: AsyncEngine, post_id: str, days: float) -> datetime:
    """Moves the post's publication `days` back (the post and its metric series)."""
    out = datetime.now(UTC) - timedelta(days=days)
    async with engine.begin() as conn:
        await conn.execute(update(posts).where(posts.c.id == post_id).values(published_at=out))
        await conn.execute(
            update(post_metric_series).where(post_metric_series.c.post_id == post_id).values(published_at=out)
        )
    return out


async def readings(http: httpx.AsyncClient, org: Org, post_id: str) -> int:
    body = (await http.get(f"/v1/posts/{post_id}/metrics", headers=org.auth)).json()
    return 0 if body["collected_at"] is None else 1 + len(body["history"])


async def read(http: httpx.AsyncClient, org: Org, post_ids: list[str], within: float = 30) -> None:
    """One more reading of each post: a refresh each, then the worker's read (it looks every
    few seconds)."""
    before = {post_id: await readings(http, org, post_id) for post_id in post_ids}
    for post_id in post_ids:
        asked = await http.post(f"/v1/posts/{post_id}/metrics/refresh", headers=org.auth)
        assert asked.status_code == 202 and asked.json()["queued"], asked.text
    deadline = time.monotonic() + within
    for post_id in post_ids:
        while await readings(http, org, post_id) <= before[post_id]:
            assert time.monotonic() < deadline, f"{post_id} was not read within {within}s"
            await asyncio.sleep(0.2)
