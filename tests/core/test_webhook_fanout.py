"""Events are written with the change they describe and fanned out once (core/webhooks/fanout.py):
a change that rolls back leaves no event; the workers' fan-out writes one message and one delivery
job per enabled endpoint subscribed to the type, exactly once however many run at the same time."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from sqlalchemy import func, select

from core import admin
from core.db.models import jobs, webhook_events, webhook_messages
from core.db.types import utcnow
from core.platform_accounts.vault import TokenVault
from core.posts import service as posts
from core.posts.create import create_posts
from core.posts.validation import CreateRequest
from core.settings import CoreSettings
from core.webhooks import fanout
from core.webhooks import service as webhooks
from tests.core.module_database import engine, url

__all__ = ["engine", "url"]  # fixtures


async def new_org(engine, name: str) -> str:
    boot = await admin.bootstrap(
        engine, email=f"{name}@example.com", password="a long password", org=name, credits_=100, plan="active"
    )
    await admin.add_profile(engine, org=name, slug="px", platform="x", tags=[])
    return boot["org_id"]


async def hook(engine, org_id: str, events: list[str], *, enabled: bool = True) -> str:
    async with engine.begin() as conn:
        made = await webhooks.create(
            conn,
            TokenVault([("test", bytes(32))]),
            org_id,
            url="http://127.0.0.1:9/hooks",
            events=events,
            description="",
            now=utcnow(),
        )
        if not enabled:
            await webhooks.change(
                conn, org_id, made.id, url=None, events=None, description=None, enabled=False, now=utcnow()
            )
    return made.id


async def count(engine, table, **where: str) -> int:
    async with engine.connect() as conn:
        stmt = select(func.count()).select_from(table)
        for column, value in where.items():
            stmt = stmt.where(table.c[column] == value)
        return await conn.scalar(stmt)


async def test_a_rolled_back_change_leaves_no_event_and_a_committed_one_leaves_one(engine) -> None:
    org_id = await new_org(engine, "rollback")

    class Abandon(Exception):
        pass

    with pytest.raises(Abandon):
        async with engine.begin() as conn:
            await create_posts(conn, org_id, CreateRequest("never", ["px"]), utcnow())
            assert await conn.scalar(select(func.count()).select_from(webhook_events)) >= 1  # written, uncommitted
            raise Abandon
    assert await count(engine, webhook_events, org_id=org_id) == 0
    async with engine.begin() as conn:
        await create_posts(conn, org_id, CreateRequest("kept", ["px"]), utcnow())
    async with engine.connect() as conn:
        kinds = (await conn.execute(select(webhook_events.c.type).where(webhook_events.c.org_id == org_id))).all()
    assert [k.type for k in kinds] == ["post.created"]


async def test_fan_out_writes_a_message_per_subscribed_enabled_endpoint_once(engine) -> None:
    settings = CoreSettings(webhook_retry_schedule=[1, 2])
    org_id, other_org = await new_org(engine, "subscribers"), await new_org(engine, "bystander")
    everything = await hook(engine, org_id, ["*"])
    cancels = await hook(engine, org_id, ["post.canceled"])
    await hook(engine, org_id, ["*"], enabled=False)
    others = await hook(engine, other_org, ["*"])
    while await fanout.fan_out(engine, settings, utcnow()):  # what earlier tests left
        pass
    async with engine.begin() as conn:
        created = await create_posts(conn, org_id, CreateRequest("two", ["px"]), utcnow())
    async with engine.begin() as conn:
        await posts.cancel_post(conn, org_id, created.records[0].id, utcnow())
    assert await fanout.fan_out(engine, settings, utcnow()) == 2
    assert await fanout.fan_out(engine, settings, utcnow()) == 0
    async with engine.connect() as conn:
        messages = (
            await conn.execute(
                select(webhook_messages.c.webhook_id, webhook_events.c.type, jobs.c.max_attempts, jobs.c.status)
                .join(webhook_events, webhook_events.c.id == webhook_messages.c.event_id)
                .join(jobs, jobs.c.subject_id == webhook_messages.c.id)
                .where(webhook_messages.c.org_id.in_([org_id, other_org]))
            )
        ).all()
    assert sorted((m.webhook_id, m.type) for m in messages) == sorted(
        [(everything, "post.created"), (everything, "post.canceled"), (cancels, "post.canceled")]
    )
    assert {(m.max_attempts, m.status) for m in messages} == {(3, "queued")}  # the schedule's 2 retries + 1
    assert others not in {m.webhook_id for m in messages}


async def test_concurrent_fan_outs_fan_each_event_out_exactly_once(engine) -> None:
    settings = CoreSettings()
    org_id = await new_org(engine, "concurrent")
    endpoint = await hook(engine, org_id, ["*"])
    while await fanout.fan_out(engine, settings, utcnow()):
        pass
    async with engine.begin() as conn:
        ids = await fanout.emit(conn, org_id, "webhook.test", [{"n": i} for i in range(600)], utcnow())

    async def drain() -> int:
        done = 0
        while fanned := await fanout.fan_out(engine, settings, utcnow()):
            done += fanned
        return done

    done = await asyncio.gather(*(drain() for _ in range(4)))
    assert sum(done) == 600
    async with engine.connect() as conn:
        per_event = Counter(
            r.event_id
            for r in await conn.execute(
                select(webhook_messages.c.event_id).where(webhook_messages.c.webhook_id == endpoint)
            )
        )
        pending = await conn.scalar(
            select(func.count()).select_from(webhook_events).where(webhook_events.c.fanned_out_at.is_(None))
        )
    assert per_event == Counter(ids) and pending == 0
    assert await count(engine, jobs, kind="webhook.deliver", org_id=org_id) == 600
