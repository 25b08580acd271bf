"""History retention (core/worker/retention.py): webhook events older than the retention, fanned
out and with no message still pending, go with their messages and attempts; finished jobs older
than theirs go; everything younger, pending, or not yet fanned out stays."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import insert, select, update

from core.db.models import jobs, webhook_attempts, webhook_events, webhook_messages
from core.db.types import utcnow
from core.ids import new_id
from core.settings import CoreSettings
from core.webhooks import fanout
from core.worker import retention
from tests.core.module_database import engine, url
from tests.core.test_webhook_fanout import hook, new_org

__all__ = ["engine", "url"]  # fixtures


async def _event(engine, org_id: str, *, delivered: bool | None) -> str:
    """An event, fanned out to the org's endpoint; its message delivered (with an attempt),
    left pending (None), or failed (False)."""
    async with engine.begin() as conn:
        [event_id] = await fanout.emit(conn, org_id, "webhook.test", [{"webhook_id": "x"}], utcnow())
    await fanout.fan_out(engine, CoreSettings(database_url="sqlite://"), utcnow())
    async with engine.begin() as conn:
        message = (await conn.execute(select(webhook_messages).where(webhook_messages.c.event_id == event_id))).one()
        if delivered is not None:
            await conn.execute(
                update(webhook_messages)
                .where(webhook_messages.c.id == message.id)
                .values(status="delivered" if delivered else "failed")
            )
            await conn.execute(
                insert(webhook_attempts).values(
                    id=new_id("wha"),
                    webhook_id=message.webhook_id,
                    message_id=message.id,
                    event_id=event_id,
                    type="webhook.test",
                    attempt=1,
                    status_code=200 if delivered else 500,
                    duration_ms=1,
                    error="",
                    response_body="",
                    delivered_at=utcnow(),
                    next_attempt_at=None,
                )
            )
            await conn.execute(update(jobs).where(jobs.c.subject_id == message.id).values(status="done", finished_at=utcnow()))
    return event_id


async def _ids(engine, table) -> set[str]:
    async with engine.connect() as conn:
        return set((await conn.scalars(select(table.c.id))).all())


async def test_old_finished_history_goes_and_the_rest_stays(engine) -> None:
    org = await new_org(engine, "retained")
    await hook(engine, org, ["*"])
    delivered = await _event(engine, org, delivered=True)
    failed = await _event(engine, org, delivered=False)
    pending = await _event(engine, org, delivered=None)
    async with engine.begin() as conn:
        [unfanned] = await fanout.emit(conn, org, "webhook.test", [{"webhook_id": "y"}], utcnow())
    await asyncio.sleep(0.01)
    boundary = utcnow()
    await asyncio.sleep(0.01)
    younger = await _event(engine, org, delivered=True)
    events_before, messages_before = await _ids(engine, webhook_events), await _ids(engine, webhook_messages)
    attempts_before, jobs_before = await _ids(engine, webhook_attempts), await _ids(engine, jobs)

    # Nothing is older than a day ago.
    assert await retention.prune_webhook_history(engine, boundary - timedelta(days=1)) == 0
    assert await retention.prune_jobs(engine, boundary - timedelta(days=1)) == 0

    assert await retention.prune_webhook_history(engine, boundary, batch=1) == 1  # batches of one
    assert await retention.prune_webhook_history(engine, boundary) == 1
    assert await retention.prune_webhook_history(engine, boundary) == 0
    events = await _ids(engine, webhook_events)
    assert events == events_before - {delivered, failed}
    assert {pending, unfanned, younger} <= events
    async with engine.connect() as conn:
        left = set((await conn.scalars(select(webhook_messages.c.event_id))).all())
        attempted = set((await conn.scalars(select(webhook_attempts.c.event_id))).all())
    # (`unfanned` was fanned out with `younger`: its message is pending.)
    assert left == {pending, unfanned, younger} and attempted == {younger}
    assert len(await _ids(engine, webhook_messages)) == len(messages_before) - 2
    assert len(await _ids(engine, webhook_attempts)) == len(attempts_before) - 2

    # Jobs: the two finished before the boundary go; the pending one's and the younger one's stay.
    assert await retention.prune_jobs(engine, boundary) == 2
    async with engine.connect() as conn:
        kept = (await conn.execute(select(jobs.c.status, jobs.c.subject_id))).all()
    assert len(kept) == len(jobs_before) - 2
    assert sorted(status for status, _ in kept) == ["done", "queued", "queued"]

    # An event not fanned out yet stays, however old; so does one with a pending message.
    async with engine.begin() as conn:
        [waiting] = await fanout.emit(conn, org, "webhook.test", [{"webhook_id": "z"}], utcnow())
    assert await retention.prune_webhook_history(engine, utcnow() + timedelta(days=1)) == 1  # `younger`
    assert await _ids(engine, webhook_events) == {pending, unfanned, waiting}


async def test_a_round_uses_the_settings(engine) -> None:
    org = await new_org(engine, "rounds")
    await hook(engine, org, ["*"])
    await _event(engine, org, delivered=True)
    settings = CoreSettings(database_url="sqlite://", webhook_retention_days=1, jobs_retention_days=1)
    assert await retention.prune(engine, settings, utcnow()) == (0, 0)  # all younger than a day
    events, finished = await retention.prune(engine, settings, utcnow() + timedelta(days=2))
    assert events >= 1 and finished >= 1
