"""The PostgreSQL bulk insert of a post's parts names every column of post_parts (a column added
to the table without it would fail every thread at creation)."""

from __future__ import annotations

from core.db.models import post_parts
from core.posts.thread_parts import _PART_COLUMNS, part_rows
from core.posts.versions import ThreadItem, Version


def test_the_bulk_insert_names_every_column() -> None:
    assert sorted(_PART_COLUMNS) == sorted(post_parts.c.keys())


def test_part_rows_have_exactly_those_columns_in_delivery_order() -> None:
    version = Version("post", ("med_1",), None, None, (ThreadItem("a", ("med_2",)), ThreadItem("b")), "comment")
    parts, media = part_rows("org_1", "pst_1", version)
    assert all(sorted(row) == sorted(_PART_COLUMNS) for row in parts)
    assert [(p["position"], p["kind"], p["content"]) for p in parts] == [
        (0, "thread", "a"),
        (1, "thread", "b"),
        (2, "comment", "comment"),
    ]
    assert len({p["delivery_key"] for p in parts}) == 3
    # The post's own media take positions 0..n-1; item media follow, tagged with their item.
    assert [(m["position"], m["media_id"], m["part"]) for m in media] == [(1, "med_2", 0)]
