"""Retention of posts' raw readings (core/analytics/retention.py; docs/analytics.md, "Retention")
with the time injected, on both databases: snapshots older than the cut (the start of the UTC day
HERALD_METRICS_RETENTION_DAYS before now) are thinned to the last of each day per item (the post,
each thread item); younger ones, and posts published after the cut, keep every reading. Batches
of one series walk every old series, and a second pass deletes nothing more."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import insert, select

from core import admin
from core.analytics.retention import Thinning, cut
from core.db.models import post_metric_series, post_metric_snapshots
from core.posts.create import create_posts
from core.posts.validation import CreateRequest
from tests.core.module_database import engine, url

__all__ = ["engine", "url"]  # fixtures

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)  # the cut at 90 days: 2026-08-30 00:00 UTC


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


async def series_with(engine, org_id: str, post_id: str, published: str, readings: dict[int, list[str]]) -> int:
    async with engine.begin() as conn:
        series_id = (
            await conn.execute(
                insert(post_metric_series)
                .values(
                    post_id=post_id,
                    org_id=org_id,
                    published_at=at(published),
                    due_at=None,
                    step=6,
                    refresh=False,
                    failures=0,
                    last_error="",
                    raw="",
                )  # fmt: skip
                .returning(post_metric_series.c.id)
            )
        ).scalar_one()
        await conn.execute(
            insert(post_metric_snapshots),
            [
                {"series_id": series_id, "part": part, "collected_at": at(when), "sandbox": True, "likes": i}
                for part, times in readings.items()
                for i, when in enumerate(times)
            ],
        )
    return series_id


async def kept(engine, series_id: int) -> dict[int, list[str]]:
    async with engine.connect() as conn:
        rows = await conn.execute(
            select(post_metric_snapshots.c.part, post_metric_snapshots.c.collected_at)
            .where(post_metric_snapshots.c.series_id == series_id)
            .order_by(post_metric_snapshots.c.part, post_metric_snapshots.c.collected_at)
        )
        out: dict[int, list[str]] = {}
        for part, when in rows:
            out.setdefault(part, []).append(when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M"))
        return out


async def test_old_readings_are_thinned_to_the_last_of_each_day(engine) -> None:
    boot = await admin.bootstrap(
        engine, email="r@example.com", password="a long password", org="retention", credits_=10, plan="active"
    )
    await admin.add_profile(engine, org="retention", slug="r-x", platform="x", tags=[])
    async with engine.begin() as conn:
        made = [
            (await create_posts(conn, boot["org_id"], CreateRequest(f"p{i}", ["r-x"], draft=True), NOW)).records[0].id
            for i in range(3)
        ]
    assert cut(NOW, 90) == at("2026-08-30T00:00")
    old = await series_with(
        engine, boot["org_id"], made[0], "2026-08-01T07:00",
        {
            -1: ["2026-08-01T08:00", "2026-08-01T12:00", "2026-08-01T20:00", "2026-08-02T09:00",
                 "2026-08-29T23:00", "2026-08-29T23:30", "2026-08-30T01:00", "2026-08-30T05:00"],
            0: ["2026-08-01T08:00", "2026-08-01T09:00"],
        },
    )  # fmt: skip
    refreshed = await series_with(
        engine, boot["org_id"], made[1], "2026-05-01T07:00",
        {-1: ["2026-05-01T08:00", "2026-05-01T09:00", "2026-11-27T10:00", "2026-11-27T11:00"]},
    )  # fmt: skip
    young = await series_with(
        engine, boot["org_id"], made[2], "2026-11-01T07:00",
        {-1: ["2026-11-01T08:00", "2026-11-01T13:00", "2026-11-01T19:00"]},
    )  # fmt: skip
    young_before = await kept(engine, young)

    thinning = Thinning()
    assert await thinning.round(engine, NOW, 90, size=1) == 5  # one series a batch: all of them in a round
    assert thinning.cursor == 0  # the pass reached the end
    assert await kept(engine, old) == {
        -1: ["2026-08-01T20:00", "2026-08-02T09:00", "2026-08-29T23:30", "2026-08-30T01:00", "2026-08-30T05:00"],
        0: ["2026-08-01T09:00"],
    }
    assert await kept(engine, refreshed) == {-1: ["2026-05-01T09:00", "2026-11-27T10:00", "2026-11-27T11:00"]}
    assert await kept(engine, young) == young_before

    assert await Thinning().round(engine, NOW, 90) == 0  # nothing more to thin
    # A day later, 2026-08-30 is past the cut too: its last reading stays.
    assert await Thinning().round(engine, datetime(2026, 11, 29, 12, 0, tzinfo=UTC), 90) == 1
    assert (await kept(engine, old))[-1][-2:] == ["2026-08-29T23:30", "2026-08-30T05:00"]
