"""Drafts and time slots through /v1 (issue 18): a draft is never published or charged until it
is scheduled; `next_slot` gives each profile's post its next free slot in the profile's time zone,
across daylight-saving changes, and concurrent requests never share one."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import select, update

from core.db.models import posts, webhook_events
from core.posts.rules import PLATFORM_LIMITS
from core.posts.slot_table import DAYS
from tests.conftest import Org
from tests.messages import names


def later(days: int = 1) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


@pytest.fixture
async def org(orgs):
    org = await orgs(credits=100)
    for slug in ("p-x", "p-masto", "p-bsky"):
        await orgs.profile(org, slug, {"p-x": "x", "p-masto": "mastodon", "p-bsky": "bluesky"}[slug])
    return org


async def balance(http: httpx.AsyncClient, org: Org) -> int:
    return (await http.get("/v1/credits", headers=org.auth)).json()["balance"]


async def put_slots(http: httpx.AsyncClient, org: Org, slug: str, timezone: str, slots: list[dict]) -> httpx.Response:
    return await http.put(f"/v1/profiles/{slug}/slots", json={"timezone": timezone, "slots": slots}, headers=org.auth)


async def next_slot_post(http: httpx.AsyncClient, org: Org, slug: str) -> dict[str, Any]:
    response = await http.post(
        "/v1/posts", json={"content": "queued up", "profiles": [slug], "next_slot": True}, headers=org.auth
    )
    assert response.status_code == 201, response.text
    return response.json()["posts"][0]


@pytest.mark.usefixtures("worker")
async def test_a_draft_is_never_published_or_charged_until_scheduled(http, org, orgs, engine) -> None:
    limit = PLATFORM_LIMITS["x"]["max_length"]
    created = await http.post(
        "/v1/posts",
        json={
            "content": "x" * (limit + 5),  # over X's limit: a draft is checked when it leaves draft
            "profiles": ["p-x"],
            "draft": True,
            "schedule_at": (datetime.now(UTC) + timedelta(days=800)).isoformat(),  # beyond the horizon: fine
            "thread": [{"content": "and more"}],
        },
        headers=org.auth,
    )
    assert created.status_code == 201, created.text
    draft = created.json()["posts"][0]
    assert draft["status"] == "draft"
    # Its would-be time comes and goes: the workers never touch a draft.
    async with engine.begin() as conn:
        await conn.execute(
            update(posts).where(posts.c.id == draft["id"]).values(due_at=datetime.now(UTC) - timedelta(hours=1))
        )
    await asyncio.sleep(1.0)
    assert (await http.get(f"/v1/posts/{draft['id']}", headers=org.auth)).json()["status"] == "draft"
    assert await balance(http, org) == 100
    listed = await http.get("/v1/posts", params={"status": "draft"}, headers=org.auth)
    assert [p["id"] for p in listed.json()["posts"]] == [draft["id"]]
    # Leaving draft runs creation's checks: the text is over X's limit.
    refused = await http.post(f"/v1/posts/{draft['id']}/schedule", json={}, headers=org.auth)
    assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR")
    assert names(refused.json(), "p-x")
    both = await http.post(
        f"/v1/posts/{draft['id']}/schedule", json={"schedule_at": later(), "next_slot": True}, headers=org.auth
    )
    assert both.status_code == 400 and both.json()["code"] == "VALIDATION_ERROR"
    edited = await http.patch(f"/v1/posts/{draft['id']}", json={"content": "Now it fits"}, headers=org.auth)
    assert (edited.status_code, edited.json()["status"]) == (200, "draft")
    out = await http.post(f"/v1/posts/{draft['id']}/schedule", json={}, headers=org.auth)
    assert out.status_code == 200, out.text
    assert out.json()["status"] in ("queued", "publishing", "published")
    for _ in range(100):
        post = (await http.get(f"/v1/posts/{draft['id']}", headers=org.auth)).json()
        if post["status"] == "published":
            break
        await asyncio.sleep(0.1)
    assert post["status"] == "published" and [t["status"] for t in post["thread"]] == ["published"]
    assert await balance(http, org) == 98  # the post and its thread item, charged at delivery
    again = await http.post(f"/v1/posts/{draft['id']}/schedule", json={}, headers=org.auth)
    assert again.status_code == 409 and again.json()["code"] == "INVALID_POST_STATE"


async def test_a_draft_can_be_canceled_and_a_missing_one_is_not_found(http, org) -> None:
    created = await http.post("/v1/posts", json={"content": "d", "profiles": ["p-x"], "draft": True}, headers=org.auth)
    post_id = created.json()["posts"][0]["id"]
    assert (await http.delete(f"/v1/posts/{post_id}", headers=org.auth)).json()["status"] == "canceled"
    missing = await http.post("/v1/posts/pst_nothing/schedule", json={}, headers=org.auth)
    assert missing.status_code == 404 and missing.json()["code"] == "NOT_FOUND"
    draft_and_slot = await http.post(
        "/v1/posts", json={"content": "d", "profiles": ["p-x"], "draft": True, "next_slot": True}, headers=org.auth
    )
    assert draft_and_slot.status_code == 400 and draft_and_slot.json()["code"] == "VALIDATION_ERROR"


async def test_slots_round_trip_and_bad_tables_are_refused(http, org) -> None:
    empty = await http.get("/v1/profiles/p-x/slots", headers=org.auth)
    assert empty.status_code == 200 and empty.json() == {"timezone": "UTC", "slots": []}
    table = [{"day": "fri", "time": "17:30"}, {"day": "mon", "time": "09:00"}]
    stored = await put_slots(http, org, "p-x", "Europe/Paris", table)
    assert stored.status_code == 200, stored.text
    expected = {"timezone": "Europe/Paris", "slots": [table[1], table[0]]}  # by weekday, then time
    assert stored.json() == expected
    assert (await http.get("/v1/profiles/p-x/slots", headers=org.auth)).json() == expected
    for timezone, slots in [
        ("Mars/Olympus", table),
        ("../../etc/passwd", table),
        ("Europe/Paris", [{"day": "monday", "time": "09:00"}]),
        ("Europe/Paris", [{"day": "mon", "time": "9:00"}]),
        ("Europe/Paris", [{"day": "mon", "time": "24:00"}]),
        ("Europe/Paris", [{"day": "mon", "time": "09:00"}, {"day": "mon", "time": "09:00"}]),
    ]:
        refused = await put_slots(http, org, "p-x", timezone, slots)
        assert refused.status_code == 400 and refused.json()["code"] == "VALIDATION_ERROR", (timezone, slots)
    assert (await http.get("/v1/profiles/p-x/slots", headers=org.auth)).json() == expected
    assert (await put_slots(http, org, "p-nobody", "UTC", table)).status_code == 404
    cleared = await put_slots(http, org, "p-x", "Europe/Paris", [])
    assert cleared.json() == {"timezone": "UTC", "slots": []}


async def test_next_slot_gives_each_profile_its_own_next_free_slot(http, org) -> None:
    await put_slots(http, org, "p-x", "Europe/Paris", [{"day": d, "time": "09:00"} for d in ("mon", "wed", "fri")])
    await put_slots(http, org, "p-masto", "America/New_York", [{"day": "tue", "time": "18:45"}])
    bare = await http.post(
        "/v1/posts", json={"content": "q", "profiles": ["p-x", "p-bsky"], "next_slot": True}, headers=org.auth
    )
    assert (bare.status_code, bare.json()["code"]) == (400, "VALIDATION_ERROR")
    assert names(bare.json(), "p-bsky")  # the profile without slots (docs/posts.md, "Time slots")
    created = await http.post(
        "/v1/posts", json={"content": "q", "profiles": ["p-x", "p-masto"], "next_slot": True}, headers=org.auth
    )
    assert created.status_code == 201, created.text
    now = datetime.now(UTC)
    for post, zone, days, clock in (
        (created.json()["posts"][0], "Europe/Paris", (0, 2, 4), (9, 0)),
        (created.json()["posts"][1], "America/New_York", (1,), (18, 45)),
    ):
        assert post["status"] == "scheduled"
        when = parse(post["schedule_at"])
        local = when.astimezone(ZoneInfo(zone))
        assert when > now and local.weekday() in days and (local.hour, local.minute) == clock
        assert when - now <= timedelta(days=7)


@pytest.mark.parametrize("key", ["", "slot-once"])
async def test_next_slot_answer_replay_row_and_event_all_carry_the_slot(http, org, engine, key: str) -> None:
    """The slot is known only once the profile is locked, after the post's answer, event and row
    were built (core/posts/create.py): each of them, and the idempotent replay, shows the slot."""
    await put_slots(http, org, "p-x", "UTC", [{"day": d, "time": "06:30"} for d in ("mon", "thu")])
    headers = {**org.auth, "Idempotency-Key": key} if key else org.auth
    body = {"content": "into the queue", "profiles": ["p-x"], "next_slot": True}
    first = await http.post("/v1/posts", json=body, headers=headers)
    assert first.status_code == 201, first.text
    post = first.json()["posts"][0]
    when = parse(post["schedule_at"])
    assert when > datetime.now(UTC) and when.weekday() in (0, 3) and (when.hour, when.minute) == (6, 30)
    if key:
        replay = await http.post("/v1/posts", json=body, headers=headers)
        assert replay.status_code == 201 and replay.json() == first.json()
    assert (await http.get(f"/v1/posts/{post['id']}", headers=org.auth)).json()["schedule_at"] == post["schedule_at"]
    async with engine.connect() as conn:
        stored = (await conn.execute(select(posts.c.schedule_at, posts.c.due_at).where(posts.c.id == post["id"]))).one()
        bodies = (
            await conn.scalars(select(webhook_events.c.body).where(webhook_events.c.type == "post.created"))
        ).all()
    assert stored.schedule_at.replace(tzinfo=UTC) == stored.due_at.replace(tzinfo=UTC) == when
    data = [json.loads(b)["data"] for b in bodies if json.loads(b)["data"]["id"] == post["id"]]
    assert data == [post]  # exactly the answer, the slot included


async def test_next_slot_past_a_long_run_of_slots_taken_by_fixed_times(http, org) -> None:
    """Posts given a `schedule_at` in a slot's minute take it too: next_slot walks past a run of
    them longer than the watermark's step, gives the first free slot, then the next."""
    await put_slots(http, org, "p-masto", "UTC", [{"day": d, "time": f"{h:02d}:00"} for d in DAYS for h in (6, 18)])
    first = parse((await next_slot_post(http, org, "p-masto"))["schedule_at"])
    run = [first + timedelta(hours=12 * i) for i in range(1, 71)]
    for at in run:
        response = await http.post(
            "/v1/posts",
            json={"content": "fixed", "profiles": ["p-masto"], "schedule_at": at.isoformat()},
            headers=org.auth,
        )
        assert response.status_code == 201, response.text
    second = parse((await next_slot_post(http, org, "p-masto"))["schedule_at"])
    third = parse((await next_slot_post(http, org, "p-masto"))["schedule_at"])
    assert second == run[-1] + timedelta(hours=12) and third == second + timedelta(hours=12)


async def test_next_slot_with_a_thread_and_a_first_comment_is_stored_whole(http, org) -> None:
    """A next_slot post's thread items and first comment go in the same round trip as the post
    and the COMMIT (core/posts/create.py): all of them are stored, in order, with the slot."""
    await put_slots(http, org, "p-bsky", "Europe/Paris", [{"day": d, "time": "12:15"} for d in DAYS])
    await put_slots(http, org, "p-masto", "Europe/Paris", [{"day": d, "time": "07:45"} for d in DAYS])
    body = {
        "content": "a thread into the queue",
        "profiles": ["p-bsky", "p-masto"],
        "next_slot": True,
        "thread": [{"content": f"item {i}"} for i in range(1, 4)],
        "first_comment": "the comment",
    }
    created = await http.post("/v1/posts", json=body, headers=org.auth)
    assert created.status_code == 201, created.text
    for post, clock in zip(created.json()["posts"], ((12, 15), (7, 45)), strict=True):
        local = parse(post["schedule_at"]).astimezone(ZoneInfo("Europe/Paris"))
        assert (local.hour, local.minute) == clock and post["status"] == "scheduled"
        stored = (await http.get(f"/v1/posts/{post['id']}", headers=org.auth)).json()
        assert stored == post
        assert [t["content"] for t in stored["thread"]] == ["item 1", "item 2", "item 3"]
        assert stored["first_comment"] == "the comment"


async def test_twenty_concurrent_next_slot_posts_take_twenty_distinct_slots(http, org) -> None:
    slots = [{"day": d, "time": f"{h:02d}:00"} for d in ("mon", "tue", "wed", "thu", "fri") for h in (8, 12, 17)]
    await put_slots(http, org, "p-bsky", "Asia/Tokyo", slots)
    made = await asyncio.gather(*(next_slot_post(http, org, "p-bsky") for _ in range(20)))
    times = sorted(parse(p["schedule_at"]) for p in made)
    assert len(set(times)) == 20
    local = [t.astimezone(ZoneInfo("Asia/Tokyo")) for t in times]
    assert all(t.weekday() < 5 and t.hour in (8, 12, 17) and t.minute == 0 for t in local)
    # They are the first twenty slots after now: none was skipped.
    expected, hour = [], datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    while len(expected) < 20:
        hour += timedelta(hours=1)
        local_hour = hour.astimezone(ZoneInfo("Asia/Tokyo"))
        if local_hour.weekday() < 5 and local_hour.hour in (8, 12, 17):
            expected.append(hour)
    assert times == expected
    # A canceled post frees its slot for the next request.
    canceled = next(p for p in made if parse(p["schedule_at"]) == times[0])
    await http.delete(f"/v1/posts/{canceled['id']}", headers=org.auth)
    assert parse((await next_slot_post(http, org, "p-bsky"))["schedule_at"]) == times[0]
    # So does a post moved elsewhere; and a full queue keeps giving the slot after the last.
    moved = next(p for p in made if parse(p["schedule_at"]) == times[5])
    edited = await http.patch(f"/v1/posts/{moved['id']}", json={"schedule_at": later(30)}, headers=org.auth)
    assert edited.status_code == 200, edited.text
    assert parse((await next_slot_post(http, org, "p-bsky"))["schedule_at"]) == times[5]
    following = parse((await next_slot_post(http, org, "p-bsky"))["schedule_at"])
    assert following > times[-1] and following.astimezone(ZoneInfo("Asia/Tokyo")).hour in (8, 12, 17)


def next_transition(zone: str, kind: str) -> tuple[datetime, timedelta, timedelta]:
    """The next clock change of that kind (`spring`: the offset grows) within the scheduling
    horizon: its instant (UTC) and the offsets before and after, found by scanning, independently
    of the code under test."""
    tz, at = ZoneInfo(zone), datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    step, end = timedelta(minutes=15), at + timedelta(days=360)
    before = at.astimezone(tz).utcoffset()
    while at < end:
        at += step
        after = at.astimezone(tz).utcoffset()
        if after != before:
            assert before is not None and after is not None
            if (after > before) == (kind == "spring"):
                return at, before, after
            before = after
    raise AssertionError(f"no {kind} change in {zone} within the horizon")


def exists(zone: str, day: datetime, hour: int, minute: int) -> bool:
    """Whether that wall-clock time happens on that local day (not in a spring-forward gap)."""
    wall = day.replace(hour=hour, minute=minute, tzinfo=None)
    aware = wall.replace(tzinfo=ZoneInfo(zone))
    return aware.astimezone(UTC).astimezone(ZoneInfo(zone)).replace(tzinfo=None) == wall


async def _fill_until(http, org, slug: str, day: datetime) -> list[datetime]:
    """next_slot posts to a profile with one weekly slot until one lands on or after `day`."""
    taken = []
    for _ in range(60):
        when = parse((await next_slot_post(http, org, slug))["schedule_at"])
        taken.append(when)
        if when >= day - timedelta(hours=12):
            return taken
    raise AssertionError(f"never reached {day}: {taken[-1]}")


@pytest.mark.one_backend  # the zone arithmetic is the database's neither way; property-tested in tests/core
@pytest.mark.parametrize(
    ("zone", "clock", "kind"),
    [
        # Spring forward (02:00 → 03:00 on a Sunday): 02:30 does not exist that day; the first valid
        # minute after it is the instant of the change.
        ("Europe/Paris", "02:30", "spring"),
        ("America/New_York", "02:30", "spring"),
        # Fall back: 02:30 (Paris) and 01:30 (New York) happen twice; the first is at the summer offset.
        ("Europe/Paris", "02:30", "fall"),
        ("America/New_York", "01:30", "fall"),
    ],
)
async def test_next_slot_across_daylight_saving_changes(http, orgs, zone: str, clock: str, kind: str) -> None:
    change, before, _ = next_transition(zone, kind)
    hour, minute = map(int, clock.split(":"))
    if kind == "spring":
        expected = change
    else:
        local_day = change.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
        expected = (local_day.replace(hour=hour, minute=minute) - before).replace(tzinfo=UTC)
    org = await orgs(credits=10)
    await orgs.profile(org, "weekly", "mastodon")
    await put_slots(http, org, "weekly", zone, [{"day": "sun", "time": clock}])
    taken = await _fill_until(http, org, "weekly", expected)
    assert expected in taken, (expected, taken[-3:])
    for when in taken:  # every Sunday keeps the slot's wall-clock time, unless it did not exist that day
        local = when.astimezone(ZoneInfo(zone))
        assert local.weekday() == 6
        assert (local.hour, local.minute) == (hour, minute) or not exists(zone, local, hour, minute), when
    assert len(set(taken)) == len(taken)
    # The fall-back day holds the slot once: the next one is a week later.
    if kind == "fall":
        following = parse((await next_slot_post(http, org, "weekly"))["schedule_at"])
        assert following - expected > timedelta(days=6)
