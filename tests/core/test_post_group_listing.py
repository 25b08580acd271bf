"""PostService/ListPostGroups over gRPC, on both databases (docs/dashboard.md, "Posts"): the groups
of the posts matching the filters, upcoming ones (a matching post draft, scheduled, queued or
publishing) soonest first, then history newest first, each once, placed by the earliest
schedule_at of its matching posts in its section, with every post of it and which match; keyset
pages forward and backward across the sections without a duplicate or a gap; each filter; another
organization's posts never listed; the request's own refusals (VALIDATION_ERROR)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import grpc
import pytest
from herald.posts.v1 import posts_pb2, posts_pb2_grpc

from core.db.models import posts
from tests.core.rpc_helpers import error_info

NOW = datetime.now(UTC).replace(microsecond=0)


def hours(n: float) -> datetime:
    return NOW + timedelta(hours=n)


@pytest.fixture
async def org(orgs):
    org = await orgs(credits=100)
    await orgs.profile(org, "l-x", "x", tags=("launch",))
    await orgs.profile(org, "l-masto", "mastodon", tags=("launch", "support"))
    await orgs.profile(org, "l-bsky", "bluesky")
    return org


async def create(http, org, profiles: list[str], at: datetime, **body) -> list[dict]:
    body = {"content": f"at {at.isoformat()}", "profiles": profiles, "schedule_at": at.isoformat(), **body}
    response = await http.post("/v1/posts", json=body, headers=org.auth)
    assert response.status_code == 201, response.text
    return response.json()["posts"]


async def done(orgs, post: dict, status: str, at: datetime | None = None) -> None:
    """Moves a post out of the pipeline as the publisher would (published, failed...), at `at`."""
    values: dict = {"status": status}
    if at is not None:
        values.update(schedule_at=at, due_at=at)
    if status == "published":
        values["published_at"] = at or NOW
    async with orgs.engine.begin() as conn:
        await conn.execute(posts.update().where(posts.c.id == post["id"]).values(**values))


async def listing(channel, org, **request) -> posts_pb2.ListPostGroupsResponse:
    stub = posts_pb2_grpc.PostServiceStub(channel)
    return await stub.ListPostGroups(posts_pb2.ListPostGroupsRequest(**request), metadata=org.metadata)


def rows(answer: posts_pb2.ListPostGroupsResponse) -> list[tuple[str, str, datetime]]:
    return [(g.group.id, g.section, g.send_time.ToDatetime(tzinfo=UTC)) for g in answer.groups]


async def every_page(channel, org, size: int, **filters) -> tuple[list[list[str]], list[list[str]]]:
    """Every page forward (next tokens) from the first, then backward (previous tokens) from the
    last: the group ids of each page, in the order walked."""
    forward, answer = [], await listing(channel, org, page_size=size, **filters)
    forward.append([g.group.id for g in answer.groups])
    while answer.next_page_token:
        assert len(forward) < 50
        answer = await listing(channel, org, page_size=size, page_token=answer.next_page_token, **filters)
        forward.append([g.group.id for g in answer.groups])
    backward = [forward[-1]]
    while answer.previous_page_token:
        assert len(backward) < 50
        answer = await listing(channel, org, page_size=size, page_token=answer.previous_page_token, **filters)
        backward.append([g.group.id for g in answer.groups])
    return forward, backward


@pytest.fixture
async def spread(http, orgs, org):
    """Upcoming and history groups, two of them at one instant, one group half published."""
    made = {
        "soon": await create(http, org, ["l-x", "l-masto", "l-bsky"], hours(2)),
        "later": await create(http, org, ["l-x"], hours(30)),
        "tie-a": await create(http, org, ["l-masto"], hours(10)),
        "tie-b": await create(http, org, ["l-bsky"], hours(10)),
        "draft": await create(http, org, ["l-bsky", "l-x"], hours(50), draft=True),
        "mixed": await create(http, org, ["l-x", "l-bsky"], hours(5)),
        "old": await create(http, org, ["l-x", "l-masto"], hours(1)),
        "older": await create(http, org, ["l-bsky"], hours(1)),
        "failed": await create(http, org, ["l-masto", "l-bsky"], hours(1)),
        "canceled": await create(http, org, ["l-x"], hours(1)),
    }
    for post in made["old"]:
        await done(orgs, post, "published", hours(-5))
    await done(orgs, made["older"][0], "published", hours(-48))
    await done(orgs, made["failed"][0], "failed", hours(-24))
    await done(orgs, made["failed"][1], "published", hours(-24))
    await done(orgs, made["mixed"][0], "published", hours(-2))  # the other one still scheduled at +5 h
    cancel = await http.delete(f"/v1/posts/{made['canceled'][0]['id']}", headers=org.auth)
    assert cancel.status_code == 200, cancel.text
    return {name: [p["id"] for p in created] for name, created in made.items()} | {
        f"{name}:group": created[0]["group_id"] for name, created in made.items()
    }


async def test_groups_upcoming_soonest_first_then_history_newest_first(channel, org, spread) -> None:
    answer = await listing(channel, org)
    g = {name.removesuffix(":group"): value for name, value in spread.items() if name.endswith(":group")}
    tie = sorted([g["tie-a"], g["tie-b"]])  # one instant: the group ids decide
    assert rows(answer) == [
        (g["soon"], "upcoming", hours(2)),
        # half published: upcoming, at its scheduled post's time, not its published one's
        (g["mixed"], "upcoming", hours(5)),
        (tie[0], "upcoming", hours(10)),
        (tie[1], "upcoming", hours(10)),
        (g["later"], "upcoming", hours(30)),
        (g["draft"], "upcoming", hours(50)),
        (g["canceled"], "history", hours(1)),
        (g["old"], "history", hours(-5)),
        (g["failed"], "history", hours(-24)),
        (g["older"], "history", hours(-48)),
    ]
    soon = answer.groups[0]
    # One row, every destination of it, in the order the request named them; all match.
    assert [p.profile for p in soon.group.posts] == ["l-x", "l-masto", "l-bsky"]
    assert [p.id for p in soon.group.posts] == spread["soon"] == list(soon.matching_post_ids)
    assert answer.next_page_token == "" and answer.previous_page_token == ""
    mixed = answer.groups[1]
    assert [posts_pb2.PostStatus.Name(p.status) for p in mixed.group.posts] == [
        "POST_STATUS_PUBLISHED",
        "POST_STATUS_SCHEDULED",
    ]


async def test_each_filter_lists_the_groups_with_a_matching_post(channel, org, spread) -> None:
    g = {name.removesuffix(":group"): value for name, value in spread.items() if name.endswith(":group")}

    async def listed(**filters) -> list[tuple[str, str, datetime]]:
        return rows(await listing(channel, org, **filters))

    # A status: the groups with a post in it, placed by those posts.
    assert await listed(status="published") == [
        (g["mixed"], "history", hours(-2)),
        (g["old"], "history", hours(-5)),
        (g["failed"], "history", hours(-24)),
        (g["older"], "history", hours(-48)),
    ]
    assert await listed(status="draft") == [(g["draft"], "upcoming", hours(50))]
    failed = (await listing(channel, org, status="failed")).groups
    assert [(x.group.id, list(x.matching_post_ids)) for x in failed] == [(g["failed"], [spread["failed"][0]])]
    assert len(failed[0].group.posts) == 2  # the whole group, the matching post named
    # A profile.
    assert [r[0] for r in await listed(profile="l-masto")] == [
        g["soon"],
        g["tie-a"],
        g["old"],
        g["failed"],
    ]
    assert await listed(profile="nobody") == []
    # A tag: the profiles carrying it (l-x and l-masto carry launch; only l-masto support).
    assert [r[0] for r in await listed(tag="support")] == [g["soon"], g["tie-a"], g["old"], g["failed"]]
    launch = [r[0] for r in await listed(tag="launch")]
    assert g["older"] not in launch and g["tie-b"] not in launch and g["later"] in launch
    assert await listed(tag="no-such-tag") == []
    # A range of schedule times: [after, before).
    window = await listed(scheduled_after=hours(2).isoformat(), scheduled_before=hours(10).isoformat())
    assert window == [(g["soon"], "upcoming", hours(2)), (g["mixed"], "upcoming", hours(5))]
    # Combined: AND.
    assert await listed(profile="l-x", status="scheduled", scheduled_after=hours(3).isoformat()) == [
        (g["later"], "upcoming", hours(30))
    ]


async def test_pages_cross_the_sections_both_ways_without_duplicates_or_gaps(channel, org, spread) -> None:
    whole = [g.group.id for g in (await listing(channel, org)).groups]
    assert len(whole) == 10
    for size in (1, 2, 3, 4):
        forward, backward = await every_page(channel, org, size)
        assert [gid for page in forward for gid in page] == whole, size
        assert all(len(page) == size for page in forward[:-1]), size
        # Backward from the last page: the same pages in reverse, down to a full first page.
        assert [gid for page in reversed(backward[1:]) for gid in page] == whole[: len(whole) - len(forward[-1])]
        assert backward[-1] == whole[:size], size
    # Filtered pages too, and a filter that leaves one section only.
    for filters in ({"profile": "l-x"}, {"status": "published"}, {"tag": "launch"}):
        expected = [g.group.id for g in (await listing(channel, org, **filters)).groups]
        forward, backward = await every_page(channel, org, 2, **filters)
        assert [gid for page in forward for gid in page] == expected, filters


async def test_pages_hold_while_groups_change(channel, http, orgs, org, spread) -> None:
    """A token is a position, not an offset: a group added before it, or moved from upcoming to
    history, is not seen twice and shifts nothing after it."""
    first = await listing(channel, org, page_size=3)
    await create(http, org, ["l-x"], hours(1))  # sorts first: before the token
    second = await listing(channel, org, page_size=3, page_token=first.next_page_token)
    whole = [g.group.id for g in (await listing(channel, org)).groups]
    assert [g.group.id for g in second.groups] == whole[4:7]


async def test_another_organizations_posts_are_never_listed(channel, http, orgs, org, spread) -> None:
    other = await orgs(credits=100)
    await orgs.profile(other, "l-x", "x", tags=("launch",))
    assert (await listing(channel, other)).groups == []
    theirs = await create(http, other, ["l-x"], hours(3))
    mine = await listing(channel, org, profile="l-x", tag="launch")
    assert theirs[0]["group_id"] not in {g.group.id for g in mine.groups}
    assert [g.group.id for g in (await listing(channel, other)).groups] == [theirs[0]["group_id"]]


@pytest.mark.one_backend
@pytest.mark.parametrize(
    "request_fields",
    [
        {"status": "sent"},
        {"scheduled_after": "yesterday"},
        {"scheduled_before": "2026-01-01"},
        {"page_token": "not-a-token"},
        {"page_token": "eyJkIjoibmV4dCJ9"},  # base64 JSON without a position
        {"page_size": 101},
        {"page_size": -1},
    ],
)
async def test_a_malformed_request_is_a_validation_error(channel, org, request_fields) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await listing(channel, org, **request_fields)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(refused.value).reason == "VALIDATION_ERROR"
