"""herald.posts.v1.PostService.ListCalendarPosts, the dashboard calendar's query (docs/dashboard.md,
"Calendar"): the organization's posts scheduled in a range, earliest first, each with an excerpt
of its text; filtered by profile, tag and status; with a profile, its free time slots in the
range; dashboard sessions only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import grpc
import httpx
import pytest
from herald.posts.v1 import posts_pb2, posts_pb2_grpc

from tests.core.rpc_helpers import error_info
from tests.core.test_profiles_create import session_of


@pytest.fixture
def posts(channel):
    return posts_pb2_grpc.PostServiceStub(channel)


def day_after(days: int, hour: int, minute: int = 0) -> datetime:
    base = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return base + timedelta(days=days, hours=hour, minutes=minute)


def window(start: datetime, end: datetime, **filters: str) -> posts_pb2.ListCalendarPostsRequest:
    request = posts_pb2.ListCalendarPostsRequest(**filters)
    request.start_time.FromDatetime(start)
    request.end_time.FromDatetime(end)
    return request


async def create(http: httpx.AsyncClient, org, content: str, profiles: list[str], at: datetime, **body) -> list[str]:
    created = await http.post(
        "/v1/posts",
        json={"content": content, "profiles": profiles, "schedule_at": at.isoformat(), **body},
        headers=org.auth,
    )
    assert created.status_code == 201, created.text
    return [p["id"] for p in created.json()["posts"]]


async def refused(call, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    assert error_info(caught.value).reason == reason


async def test_the_range_earliest_first_with_excerpts_and_filters(channel, posts, http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "cal-x", "x", tags=("launch",))
    await orgs.profile(org, "cal-bsky", "bluesky")
    other = await orgs()
    await orgs.profile(other, "cal-x", "x")
    session = await session_of(channel, org.email)

    long_text = "Launch   day\n\nis here. " + "word " * 40
    [late] = await create(http, org, "Later the same day", ["cal-x"], day_after(3, 15))
    early_x, early_bsky = await create(http, org, long_text, ["cal-x", "cal-bsky"], day_after(3, 9, 30))
    [outside] = await create(http, org, "The day after the range", ["cal-x"], day_after(5, 9))
    await create(http, other, "Another organization's", ["cal-x"], day_after(3, 10))
    [draft] = await create(http, org, "A draft", ["cal-bsky"], day_after(4, 8), draft=True)

    found = await posts.ListCalendarPosts(window(day_after(3, 0), day_after(5, 0)), metadata=session)
    assert [p.id for p in found.posts] == [*sorted([early_x, early_bsky]), late, draft]
    assert outside not in {p.id for p in found.posts} and not found.truncated and not found.free_slots
    first = next(p for p in found.posts if p.id == early_x)
    assert (first.profile, first.connector, first.status) == ("cal-x", "x", posts_pb2.POST_STATUS_SCHEDULED)
    assert first.schedule_time.ToDatetime(tzinfo=UTC) == day_after(3, 9, 30)
    assert first.group_id.startswith("grp_") and first.group_id == found.posts[1].group_id
    # Whitespace runs made one space; 80 characters at most, the last one "…".
    assert first.excerpt.startswith("Launch day is here. word word") and len(first.excerpt) == 80
    assert first.excerpt.endswith("…")
    assert next(p for p in found.posts if p.id == late).excerpt == "Later the same day"

    by_profile = await posts.ListCalendarPosts(
        window(day_after(3, 0), day_after(5, 0), profile="cal-bsky"), metadata=session
    )
    assert [p.id for p in by_profile.posts] == [early_bsky, draft]
    by_tag = await posts.ListCalendarPosts(window(day_after(3, 0), day_after(5, 0), tag="launch"), metadata=session)
    assert [p.id for p in by_tag.posts] == [early_x, late]
    drafts = await posts.ListCalendarPosts(window(day_after(3, 0), day_after(6, 0), status="draft"), metadata=session)
    assert [(p.id, p.status) for p in drafts.posts] == [(draft, posts_pb2.POST_STATUS_DRAFT)]
    # A bound is half-open: a post exactly at the end is the next range's.
    assert not (await posts.ListCalendarPosts(window(day_after(3, 0), day_after(3, 9, 30)), metadata=session)).posts


async def test_a_profile_s_free_slots_in_the_range(channel, posts, http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "slots-x", "x")
    await orgs.profile(org, "plain-x", "x")
    session = await session_of(channel, org.email)
    slots = [
        {"day": day, "time": at}
        for day in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
        for at in ("09:00", "17:00")
    ]
    put = await http.put("/v1/profiles/slots-x/slots", json={"timezone": "UTC", "slots": slots}, headers=org.auth)
    assert put.status_code == 200, put.text
    await create(http, org, "Holds the morning slot", ["slots-x"], day_after(2, 9))
    await create(http, org, "A draft holds none", ["slots-x"], day_after(2, 17), draft=True)

    found = await posts.ListCalendarPosts(window(day_after(2, 0), day_after(4, 0), profile="slots-x"), metadata=session)
    free = [t.ToDatetime(tzinfo=UTC) for t in found.free_slots]
    assert free == [day_after(2, 17), day_after(3, 9), day_after(3, 17)]
    # From now on only: a range in the past has none.
    past = await posts.ListCalendarPosts(
        window(day_after(-3, 0), day_after(-1, 0), profile="slots-x"), metadata=session
    )
    assert not past.free_slots
    # A profile without a table, an unknown one, or no profile: none.
    for profile in ("plain-x", "nobody", ""):
        listed = await posts.ListCalendarPosts(
            window(day_after(2, 0), day_after(4, 0), profile=profile), metadata=session
        )
        assert not listed.free_slots, profile


async def test_refusals(channel, posts, orgs) -> None:
    org = await orgs()
    session = await session_of(channel, org.email)
    start = day_after(1, 0)
    for request in (
        window(start, start),  # empty
        window(start, start - timedelta(days=1)),  # backwards
        window(start, start + timedelta(days=63)),  # longer than 62 days
        window(start, start + timedelta(days=7), status="sent"),
    ):
        await refused(
            posts.ListCalendarPosts(request, metadata=session), grpc.StatusCode.INVALID_ARGUMENT, "VALIDATION_ERROR"
        )
    assert not (await posts.ListCalendarPosts(window(start, start + timedelta(days=62)), metadata=session)).posts
    # The dashboard's query: an API key may not call it, and nothing may without a credential.
    await refused(
        posts.ListCalendarPosts(window(start, start + timedelta(days=7)), metadata=org.metadata),
        grpc.StatusCode.PERMISSION_DENIED,
        "FORBIDDEN",
    )
    await refused(
        posts.ListCalendarPosts(window(start, start + timedelta(days=7))),
        grpc.StatusCode.UNAUTHENTICATED,
        "UNAUTHORIZED",
    )
