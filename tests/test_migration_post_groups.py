"""Migration 0025 (docs/posts.md, "Post groups"): the posts that existed before groups are grouped
as they were created: one organization's posts with the same creation instant and the same
request id came from one request, and their group is `grp_` and the rest of the first post's id.
Another request, another instant or another organization is another group."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from alembic import command
from sqlalchemy import create_engine, insert, inspect, select
from sqlalchemy.ext.asyncio import create_async_engine

from core import admin
from core.db.migrate import alembic_config, upgrade
from core.db.models import posts
from core.ids import new_id
from harness.stack import database

T0 = datetime(2026, 11, 1, 9, 30, 0, 123000, tzinfo=UTC)


async def _organization(url: str, slug: str) -> dict:
    engine = create_async_engine(url)
    try:
        owner = await admin.bootstrap(
            engine, email=f"{slug}@example.com", password="correct horse battery", org=slug, credits_=0, plan="active"
        )
        profile = await admin.add_profile(engine, org=slug, slug=f"{slug}-x", platform="x", tags=[])
        return {**owner, "profile_id": profile["id"], "slug": f"{slug}-x"}
    finally:
        await engine.dispose()


def _post(post_id: str, owner: dict, created_at: datetime, request_id: str | None) -> dict:
    return {
        "id": post_id,
        "org_id": owner["org_id"],
        "profile_id": owner["profile_id"],
        "profile_slug": owner["slug"],
        "connector": "x",
        "content": "before groups",
        "post_type": "post",
        "status": "scheduled",
        "schedule_at": created_at + timedelta(days=1),
        "due_at": created_at + timedelta(days=1),
        "created_at": created_at,
        "updated_at": created_at,
        "delivery_key": post_id,
        "request_id": request_id,
    }


def test_existing_posts_are_grouped_by_their_request(backend, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        first, other = asyncio.run(_organization(url, "g-one")), asyncio.run(_organization(url, "g-two"))
        command.downgrade(alembic_config(url), "0024")
        a1, a2, a3, a4, b1 = (new_id("pst") for _ in range(5))
        engine = create_engine(url.replace("+aiosqlite", ""))
        try:
            with engine.begin() as conn:
                conn.execute(
                    insert(posts),
                    [
                        _post(a2, first, T0, "req_1"),  # one request, two posts (inserted out of order)
                        _post(a1, first, T0, "req_1"),
                        _post(a3, first, T0, "req_2"),  # the same instant, another request
                        _post(a4, first, T0 + timedelta(milliseconds=1), "req_1"),  # another instant
                        _post(b1, other, T0, "req_1"),  # the same of another organization
                    ],
                )
            upgrade(url)
            with engine.connect() as conn:
                groups = dict(conn.execute(select(posts.c.id, posts.c.group_id)).all())
                group_column = next(c for c in inspect(conn).get_columns("posts") if c["name"] == "group_id")
                indexes = {i["name"]: i["column_names"] for i in inspect(conn).get_indexes("posts")}
        finally:
            engine.dispose()
    assert groups == {
        a1: "grp_" + a1[4:],
        a2: "grp_" + a1[4:],
        a3: "grp_" + a3[4:],
        a4: "grp_" + a4[4:],
        b1: "grp_" + b1[4:],
    }
    assert not set(groups.values()) & set(groups)  # a group's id is never a post's
    assert group_column["nullable"] is False
    assert indexes["ix_posts_org_id_group_id"] == ["org_id", "group_id"]
