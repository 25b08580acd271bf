"""Migration 0029 (docs/posts.md, "History"): the `created` rows of post_events move into their
posts' created_detail as they were and leave post_events; the history still starts with them,
at the post's created_at. A post created before histories were kept has none. The downgrade puts
them back as rows."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from alembic import command
from sqlalchemy import Integer, String, column, create_engine, insert, select, table
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from core.db.migrate import alembic_config, upgrade
from core.db.models import post_events, posts
from core.db.types import UTCDateTime
from core.ids import new_id
from core.pagination import Page
from core.posts import history
from harness.stack import database

T0 = datetime(2026, 11, 28, 9, 30, 0, 123000, tzinfo=UTC)
# posts as migration 0028 left it, the columns inserted here (the model names later ones too).
POSTS_0028 = table(
    "posts",
    *(column(name, String()) for name in ("id", "org_id", "group_id", "profile_id", "profile_slug", "connector")),
    *(column(name, String()) for name in ("content", "post_type", "status", "delivery_key", "request_id")),
    *(column(name, UTCDateTime()) for name in ("schedule_at", "due_at", "created_at", "updated_at")),
    *(column(name, Integer()) for name in ("attempts", "charged", "units")),
    *(column(name, String()) for name in ("failure_reason", "platform_error", "platform_post_id", "platform_url")),
)
QUEUED = '{"status":"queued","request_id":"req_1"}'
SCHEDULED = '{"status":"scheduled","schedule_at":"2026-11-29T09:00:00+00:00","request_id":"req_2"}'


async def _organization(url: str) -> dict:
    engine = create_async_engine(url)
    try:
        owner = await admin.bootstrap(
            engine, email="c@example.com", password="correct horse battery", org="c-one", credits_=0, plan="active"
        )
        profile = await admin.add_profile(engine, org="c-one", slug="c-one-x", platform="x", tags=[])
        return {**owner, "profile_id": profile["id"]}
    finally:
        await engine.dispose()


def _post(post_id: str, owner: dict, created_at: datetime, request_id: str | None) -> dict:
    return {
        "id": post_id,
        "org_id": owner["org_id"],
        "group_id": "grp_" + post_id[4:],
        "profile_id": owner["profile_id"],
        "profile_slug": "c-one-x",
        "connector": "x",
        "content": "before 0029",
        "post_type": "post",
        "status": "canceled",
        "schedule_at": created_at + timedelta(days=1),
        "due_at": created_at + timedelta(days=1),
        "created_at": created_at,
        "updated_at": created_at,
        "delivery_key": post_id,
        "request_id": request_id,
        **dict.fromkeys(("attempts", "charged"), 0),
        "units": 1,
        **dict.fromkeys(("failure_reason", "platform_error", "platform_post_id", "platform_url"), ""),
    }


def _event(event_id: str, owner: dict, post_id: str, at: datetime, kind: str, detail: str) -> dict:
    return {"id": event_id, "org_id": owner["org_id"], "post_id": post_id, "at": at, "kind": kind, "detail": detail}


async def _steps(url: str, org_id: str, post_id: str) -> list[history.PostEventRecord]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            steps, token = await history.list_events(conn, org_id, post_id, Page(50, None))
            assert token == ""
            return steps
    finally:
        await engine.dispose()


def test_created_rows_move_into_their_posts_and_back(backend, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        owner = asyncio.run(_organization(url))
        command.downgrade(alembic_config(url), "0028")
        queued, scheduled, older = (new_id("pst") for _ in range(3))
        created_one, edited, created_two = (new_id("pev") for _ in range(3))
        engine = create_engine(url.replace("+aiosqlite", ""))
        try:
            with engine.begin() as conn:
                conn.execute(
                    insert(POSTS_0028),
                    [
                        _post(queued, owner, T0, "req_1"),
                        _post(scheduled, owner, T0 + timedelta(seconds=1), "req_2"),
                        _post(older, owner, T0 - timedelta(days=1), None),  # before histories: no step
                    ],
                )
                conn.execute(
                    insert(post_events),
                    [
                        _event(created_one, owner, queued, T0, "created", QUEUED),
                        _event(edited, owner, queued, T0 + timedelta(minutes=1), "edited", '{"fields":["content"]}'),
                        _event(created_two, owner, scheduled, T0 + timedelta(seconds=1), "created", SCHEDULED),
                    ],
                )
            upgrade(url)
            with engine.connect() as conn:
                moved = dict(conn.execute(select(posts.c.id, posts.c.created_detail)).all())
                left = conn.execute(select(post_events.c.id)).scalars().all()
            steps = {p: asyncio.run(_steps(url, owner["org_id"], p)) for p in (queued, scheduled, older)}

            command.downgrade(alembic_config(url), "0028")
            with engine.connect() as conn:
                e = post_events.c
                back = conn.execute(select(e.id, e.post_id, e.at, e.kind, e.detail)).all()
        finally:
            engine.dispose()

    assert moved == {queued: QUEUED, scheduled: SCHEDULED, older: None}
    assert left == [edited]
    assert [(s.id, s.kind, s.at, s.detail) for s in steps[queued]] == [
        (f"pev_{queued}", "created", T0, {"status": "queued", "request_id": "req_1"}),
        (edited, "edited", T0 + timedelta(minutes=1), {"fields": ["content"]}),
    ]
    assert [(s.id, s.at, s.detail["schedule_at"]) for s in steps[scheduled]] == [
        (f"pev_{scheduled}", T0 + timedelta(seconds=1), "2026-11-29T09:00:00+00:00")
    ]
    assert steps[older] == []
    assert sorted(tuple(r) for r in back) == sorted(
        [
            ("pev_" + queued[4:], queued, T0, "created", QUEUED),
            (edited, queued, T0 + timedelta(minutes=1), "edited", '{"fields":["content"]}'),
            ("pev_" + scheduled[4:], scheduled, T0 + timedelta(seconds=1), "created", SCHEDULED),
        ]
    )
