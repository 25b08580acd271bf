"""Publishing time slots (core/posts/slot_table.py): the next free slot of a profile's weekly table.

Concrete checks on both daylight saving transitions of Europe/Paris and America/New_York, the
`taken` rules, every refusal of `parse_table`, storage round trips; then properties on generated
tables, zones, instants and taken sets, against a reference that resolves wall-clock times from
the zone's offset intervals (found by scanning UTC), not by the module's round trip.
"""

from __future__ import annotations

import bisect
import itertools
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import ValidationError
from core.posts.slot_table import DAYS, MAX_SLOTS, Slot, SlotTable, candidates, next_free_slot, parse_table


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def table(zone: str, *slots: str) -> SlotTable:
    """table("Europe/Paris", "sun 02:30", ...)"""
    return parse_table(zone, [dict(zip(("day", "time"), s.split(), strict=True)) for s in slots])


def first(t: SlotTable, after: datetime, n: int) -> list[datetime]:
    return list(itertools.islice(candidates(t, after), n))


# -- daylight saving: Europe/Paris 2026-03-29 02:00 -> 03:00, 2026-10-25 03:00 -> 02:00


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        ("01:59", utc(2026, 3, 29, 0, 59)),  # the last minute before the gap
        ("02:00", utc(2026, 3, 29, 1, 0)),  # skipped: 03:00 local
        ("02:30", utc(2026, 3, 29, 1, 0)),
        ("02:59", utc(2026, 3, 29, 1, 0)),
        ("03:00", utc(2026, 3, 29, 1, 0)),
        ("03:01", utc(2026, 3, 29, 1, 1)),
    ],
)
def test_paris_spring_forward_gap_moves_to_the_first_valid_minute(at: str, expected: datetime) -> None:
    assert next_free_slot(table("Europe/Paris", f"sun {at}"), utc(2026, 3, 28, 12), []) == expected


def test_a_gap_slot_and_the_slot_after_the_gap_count_once() -> None:
    t = table("Europe/Paris", "sun 02:30", "sun 03:00")
    assert first(t, utc(2026, 3, 28, 12), 3) == [utc(2026, 3, 29, 1), utc(2026, 4, 5, 0, 30), utc(2026, 4, 5, 1)]
    # Taking the shared instant takes both: the next is a week later.
    assert next_free_slot(t, utc(2026, 3, 28, 12), [utc(2026, 3, 29, 1)]) == utc(2026, 4, 5, 0, 30)


def test_paris_fall_back_slot_is_its_first_occurrence() -> None:
    t = table("Europe/Paris", "sun 02:30")
    after = utc(2026, 10, 24, 12)
    assert next_free_slot(t, after, []) == utc(2026, 10, 25, 0, 30)  # 02:30 CEST
    # The second occurrence (02:30 CET = 01:30 UTC) is never produced, taken or not.
    assert first(t, after, 2) == [utc(2026, 10, 25, 0, 30), utc(2026, 11, 1, 1, 30)]
    assert next_free_slot(t, utc(2026, 10, 25, 0, 30), []) == utc(2026, 11, 1, 1, 30)
    assert next_free_slot(t, utc(2026, 10, 25, 0, 45), []) == utc(2026, 11, 1, 1, 30)
    assert next_free_slot(t, after, [utc(2026, 10, 25, 0, 30)]) == utc(2026, 11, 1, 1, 30)


def test_paris_fall_back_slots_around_the_repeated_hour() -> None:
    t = table("Europe/Paris", "sun 01:59", "sun 02:00", "sun 02:59", "sun 03:00")
    assert first(t, utc(2026, 10, 24, 12), 4) == [
        utc(2026, 10, 24, 23, 59),
        utc(2026, 10, 25, 0, 0),
        utc(2026, 10, 25, 0, 59),
        utc(2026, 10, 25, 2, 0),  # 03:00 CET: one hour after 02:00 CET, two after 02:00 CEST
    ]


# -- America/New_York 2026-03-08 02:00 -> 03:00, 2026-11-01 02:00 -> 01:00


@pytest.mark.parametrize("at", ["02:00", "02:30", "02:59", "03:00"])
def test_new_york_spring_forward_gap_moves_to_the_first_valid_minute(at: str) -> None:
    assert next_free_slot(table("America/New_York", f"sun {at}"), utc(2026, 3, 7), []) == utc(2026, 3, 8, 7)


def test_new_york_fall_back_slot_is_its_first_occurrence() -> None:
    t = table("America/New_York", "sun 01:00", "sun 01:30")
    after = utc(2026, 10, 31)
    assert first(t, after, 4) == [
        utc(2026, 11, 1, 5, 0),  # 01:00 EDT
        utc(2026, 11, 1, 5, 30),  # 01:30 EDT; never 06:00 or 06:30 UTC (the EST repeats)
        utc(2026, 11, 8, 6, 0),
        utc(2026, 11, 8, 6, 30),
    ]
    taken = [utc(2026, 11, 1, 5, 0), utc(2026, 11, 1, 5, 30)]
    assert next_free_slot(t, after, taken) == utc(2026, 11, 8, 6, 0)


def test_lord_howe_half_hour_gap() -> None:
    # Australia/Lord_Howe 2026-10-04 02:00 -> 02:30 (+10:30 -> +11:00).
    t = table("Australia/Lord_Howe", "sun 02:15", "sun 02:30", "sun 02:31")
    assert first(t, utc(2026, 10, 3), 2) == [utc(2026, 10, 3, 15, 30), utc(2026, 10, 3, 15, 31)]


# -- `after` and the result


def test_a_slot_in_the_same_minute_as_after_is_not_after_it() -> None:
    t = table("Europe/Paris", "mon 09:00")  # 07:00 UTC in June
    assert next_free_slot(t, utc(2026, 6, 1, 7), []) == utc(2026, 6, 8, 7)
    assert next_free_slot(t, datetime(2026, 6, 1, 7, 0, 30, tzinfo=UTC), []) == utc(2026, 6, 8, 7)
    assert next_free_slot(t, datetime(2026, 6, 1, 6, 59, 59, 999999, tzinfo=UTC), []) == utc(2026, 6, 1, 7)


def test_the_result_is_utc_to_the_minute_whatever_the_zone_of_after() -> None:
    after = datetime(2026, 6, 1, 8, 59, 59, 123456, tzinfo=ZoneInfo("Asia/Kolkata"))  # 03:29:59 UTC
    result = next_free_slot(table("Asia/Kolkata", "mon 09:00"), after, [])
    assert result == utc(2026, 6, 1, 3, 30)
    assert result.tzinfo is UTC and result.second == 0 and result.microsecond == 0


def test_naive_datetimes_are_a_programming_error() -> None:
    t = table("UTC", "mon 09:00")
    with pytest.raises(ValueError, match="timezone-aware"):
        next_free_slot(t, datetime(2026, 6, 1), [])
    with pytest.raises(ValueError, match="timezone-aware"):
        next_free_slot(t, utc(2026, 6, 1), [datetime(2026, 6, 1, 9)])


# -- taken


def test_taken_slots_are_skipped() -> None:
    t = table("UTC", "mon 09:00", "mon 10:00", "tue 09:00")
    assert next_free_slot(t, utc(2026, 6, 1), [utc(2026, 6, 1, 9), utc(2026, 6, 1, 10)]) == utc(2026, 6, 2, 9)


def test_a_taken_instant_blocks_its_whole_minute_only() -> None:
    t = table("UTC", "mon 09:00", "mon 09:01")
    after = utc(2026, 6, 1)
    assert next_free_slot(t, after, [datetime(2026, 6, 1, 9, 0, 59, 999999, tzinfo=UTC)]) == utc(2026, 6, 1, 9, 1)
    assert next_free_slot(t, after, [datetime(2026, 6, 1, 8, 59, 59, tzinfo=UTC)]) == utc(2026, 6, 1, 9)
    # Taken instants in another zone count by the instant they name.
    paris = datetime(2026, 6, 1, 11, 0, 30, tzinfo=ZoneInfo("Europe/Paris"))
    assert next_free_slot(t, after, {paris}) == utc(2026, 6, 1, 9, 1)


def test_successive_calls_fill_distinct_increasing_slots() -> None:
    t = table("Europe/Paris", "mon 09:00", "wed 12:30", "sun 02:30", "sun 03:00")
    after, taken = utc(2026, 3, 20), []
    for _ in range(20):
        taken.append(next_free_slot(t, after, taken))
    assert taken == sorted(set(taken)) and len(taken) == 20
    assert taken == first(t, after, 20)
    assert utc(2026, 3, 29, 1) in taken  # the gap slot and 03:00, once


def test_no_free_slot_within_366_days() -> None:
    t = table("UTC", "mon 09:00")
    after = utc(2026, 1, 1)
    taken = list(candidates(t, after))
    assert len(taken) == 52 and taken[-1] <= after + timedelta(days=366)
    with pytest.raises(ValidationError, match="366 days"):
        next_free_slot(t, after, taken)


def test_an_empty_table_has_no_slot() -> None:
    with pytest.raises(ValidationError, match="no time slots"):
        next_free_slot(parse_table("Europe/Paris", []), utc(2026, 1, 1), [])
    assert first(parse_table("UTC", []), utc(2026, 1, 1), 1) == []


# -- parse_table

OK = {"day": "mon", "time": "09:00"}


@pytest.mark.parametrize(
    ("zone", "word"),
    [
        (None, "string"),
        (1, "string"),
        (["Europe/Paris"], "string"),
        ("", "required"),
        ("../etc/passwd", "IANA"),
        ("Europe/../Europe/Paris", "IANA"),
        ("/etc/localtime", "IANA"),
        ("/usr/share/zoneinfo/Europe/Paris", "IANA"),
        ("localtime", "IANA"),
        ("posixrules", "IANA"),
        ("right/Europe/Paris", "IANA"),
        ("posix/Europe/Paris", "IANA"),
        ("Europe", "IANA"),  # a directory
        ("Europe/", "IANA"),
        ("Europe//Paris", "IANA"),
        ("zone.tab", "IANA"),  # a file, not a zone
        ("Mars/Olympus_Mons", "IANA"),
        ("utc", "IANA"),
        ("Europe/Paris ", "IANA"),
        ("Europe/Paris\x00", "IANA"),
        ("+01:00", "IANA"),
        ("A" * 100, "IANA"),
    ],
)
def test_parse_table_refuses_a_bad_timezone(zone: object, word: str) -> None:
    with pytest.raises(ValidationError, match=word) as caught:
        parse_table(zone, [OK])
    assert "timezone" in caught.value.message


@pytest.mark.parametrize("zone", ["UTC", "Europe/Paris", "Etc/GMT+1", "America/Argentina/Buenos_Aires"])
def test_parse_table_accepts_iana_zones(zone: str) -> None:
    assert parse_table(zone, [OK]).timezone == zone


def many(n: int) -> list[dict]:
    return [{"day": DAYS[i % 7], "time": f"{i // 7:02d}:{i % 60:02d}"} for i in range(n)]


@pytest.mark.parametrize(
    ("slots", "word"),
    [
        (None, "list"),
        ({"day": "mon", "time": "09:00"}, "list"),
        ("mon 09:00", "list"),
        (many(MAX_SLOTS + 1), "at most"),
        (["mon 09:00"], "object"),
        ([None], "object"),
        ([["mon", "09:00"]], "object"),
        ([{**OK, "tz": "UTC"}], "unknown key"),
        ([{**OK, 1: 2}], "unknown key"),
        ([{"day": "mon"}], "missing its time"),
        ([{"time": "09:00"}], "missing its day"),
        ([{}], "missing"),
    ]
    + [([{"day": day, "time": "09:00"}], "day must be one of") for day in ("Mon", "MON", "monday", " mon", "", 0, None)]
    + [
        ([{"day": "mon", "time": at}], "HH:MM")
        for at in ("9:00", "09:0", "24:00", "23:60", "09:00:00", "0900", " 09:00", "09:00\n", "٠٩:٠٠", 900, None)
    ],
)
def test_parse_table_refuses_bad_slots(slots: object, word: str) -> None:
    with pytest.raises(ValidationError, match=word):
        parse_table("UTC", slots)


def test_parse_table_names_the_duplicate() -> None:
    with pytest.raises(ValidationError, match="duplicate") as caught:
        parse_table("UTC", [OK, {"day": "tue", "time": "09:00"}, dict(OK)])
    assert "mon 09:00" in caught.value.message and "slots[2]" in caught.value.message


def test_parse_table_accepts_the_limits() -> None:
    assert len(parse_table("UTC", many(MAX_SLOTS)).slots) == MAX_SLOTS
    assert parse_table("UTC", []).slots == ()
    edges = parse_table("UTC", [{"day": "sun", "time": "23:59"}, {"day": "mon", "time": "00:00"}])
    assert edges.slots == (Slot("mon", "00:00"), Slot("sun", "23:59"))


# -- storage


def test_canonical_order_and_round_trips() -> None:
    t = table("Europe/Paris", "sun 08:00", "mon 17:30", "mon 09:00", "wed 12:00")
    assert [(s.day, s.time) for s in t.slots] == [
        ("mon", "09:00"),
        ("mon", "17:30"),
        ("wed", "12:00"),
        ("sun", "08:00"),
    ]
    assert t.as_dict() == {
        "timezone": "Europe/Paris",
        "slots": [
            {"day": "mon", "time": "09:00"},
            {"day": "mon", "time": "17:30"},
            {"day": "wed", "time": "12:00"},
            {"day": "sun", "time": "08:00"},
        ],
    }
    text = t.to_json()
    assert " " not in text and text.startswith('{"timezone":"Europe/Paris","slots":[{"day":"mon","time":"09:00"}')
    assert SlotTable.from_json(text) == t
    assert parse_table(**t.as_dict()) == t
    assert SlotTable.from_json("") is None
    empty = parse_table("UTC", [])
    assert SlotTable.from_json(empty.to_json()) == empty


def test_from_json_validates_what_it_reads() -> None:
    with pytest.raises(ValidationError, match="object"):
        SlotTable.from_json("[]")
    with pytest.raises(ValidationError, match="day must be one of"):
        SlotTable.from_json('{"timezone":"UTC","slots":[{"day":"Mon","time":"09:00"}]}')


# -- properties, against a reference resolution
#
# A wall-clock time w resolves to the earliest instant whose local time is w or later: in a gap
# that is the end of the gap, in a repeated hour the first occurrence. With the zone's offset
# intervals [start_i, start_i+1) at offset o_i, that is min over i of max(start_i, w - o_i) when it
# lies inside interval i.

ZONES = [
    "Europe/Paris",
    "America/New_York",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
    "Pacific/Chatham",
    "America/Sao_Paulo",
    "UTC",
    "Africa/Casablanca",
]
SCAN = (utc(2019, 1, 1), utc(2037, 1, 1))


def offset_intervals(zone: ZoneInfo) -> tuple[list[datetime], list[timedelta]]:
    """Interval starts and offsets over SCAN: a daily scan of UTC, each change bisected to the second."""

    def offset(seconds: int) -> timedelta:
        return datetime.fromtimestamp(seconds, UTC).astimezone(zone).utcoffset()

    lo_end, hi_end = (int(d.timestamp()) for d in SCAN)
    starts, offsets = [datetime.fromtimestamp(lo_end - 10 * 86400, UTC)], [offset(lo_end)]
    for day in range(lo_end, hi_end, 86400):
        if offset(day + 86400) != offsets[-1]:
            lo, hi = day, day + 86400
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if offset(mid) == offsets[-1] else (lo, mid)
            starts.append(datetime.fromtimestamp(hi, UTC))
            offsets.append(offset(hi))
    starts.append(datetime.fromtimestamp(hi_end + 10 * 86400, UTC))
    return starts, offsets


INTERVALS = {name: offset_intervals(ZoneInfo(name)) for name in ZONES}
TRANSITIONS = {name: [s for s in INTERVALS[name][0][1:-1] if s.year in range(2020, 2036)] for name in ZONES}


def reference_instant(zone: str, wall: datetime) -> datetime:
    starts, offsets = INTERVALS[zone]
    i = bisect.bisect(starts, wall.replace(tzinfo=UTC)) - 1  # no offset here exceeds a day
    best = None
    for j in range(max(i - 2, 0), min(i + 3, len(offsets))):
        start = max(starts[j], (wall - offsets[j]).replace(tzinfo=UTC))
        if start < starts[j + 1] and (best is None or start < best):
            best = start
    assert best is not None
    return best


def reference_instants(zone: str, slots: set[tuple[str, str]], first_day: date, last_day: date) -> list[datetime]:
    found = set()
    for n in range((last_day - first_day).days + 1):
        day = first_day + timedelta(days=n)
        for d, at in slots:
            if DAYS.index(d) == day.weekday():
                found.add(reference_instant(zone, datetime.combine(day, time.fromisoformat(at))))
    return sorted(found)


# Times near 00:00-04:00 hit the transitions of these zones (Chatham's are at 02:45 and 03:45).
TIMES = st.builds(
    "{:02d}:{:02d}".format,
    st.one_of(st.integers(0, 4), st.integers(0, 23)),
    st.one_of(st.sampled_from([0, 1, 15, 29, 30, 44, 45, 59]), st.integers(0, 59)),
)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[str, set[tuple[str, str]], SlotTable, datetime, list[datetime]]:
    zone = draw(st.sampled_from(ZONES))
    pairs = set(draw(st.sets(st.tuples(st.sampled_from(DAYS), TIMES), min_size=1, max_size=12)))
    if TRANSITIONS[zone] and draw(st.integers(0, 3)):
        # Shortly before a transition, with slots within an hour of it (local time, either side).
        change = draw(st.sampled_from(TRANSITIONS[zone]))
        after = change - draw(st.timedeltas(timedelta(0), timedelta(days=2)))
        edges = [(change - timedelta(seconds=1)).astimezone(ZoneInfo(zone)), change.astimezone(ZoneInfo(zone))]
        for edge in draw(st.lists(st.sampled_from(edges), min_size=1, max_size=3)):
            near = edge.replace(second=0) + timedelta(minutes=draw(st.integers(-60, 60)))
            pairs.add((DAYS[near.weekday()], f"{near:%H:%M}"))
    else:
        after = draw(st.datetimes(datetime(2020, 1, 1), datetime(2035, 12, 31), timezones=st.just(UTC)))
    listed = draw(st.permutations(sorted(pairs)))
    t = parse_table(zone, [{"day": d, "time": at} for d, at in listed])
    if draw(st.booleans()):
        after = after.replace(second=0, microsecond=0)
    # Taken: the first few upcoming slots (so the search goes on), then any of the next ones.
    upcoming = first(t, after, 16)
    prefix = draw(st.integers(0, len(upcoming)))
    chosen = upcoming[:prefix] + draw(
        st.lists(st.sampled_from(upcoming[prefix:]), unique=True) if upcoming[prefix:] else st.just([])
    )
    jitter = st.timedeltas(timedelta(0), timedelta(seconds=59, microseconds=999999))
    taken = [instant + draw(jitter) for instant in chosen]
    return zone, pairs, t, after, taken


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_next_free_slot_properties(scenario: tuple[str, set[tuple[str, str]], SlotTable, datetime, list]) -> None:
    zone_name, pairs, t, after, taken = scenario
    zone = ZoneInfo(zone_name)
    assert list(t.slots) == sorted(t.slots, key=lambda s: (DAYS.index(s.day), s.time))
    result = next_free_slot(t, after, taken)
    held = {x.replace(second=0, microsecond=0) for x in taken}

    assert result.tzinfo is UTC and result.second == 0 and result.microsecond == 0
    assert result > after  # (a)
    assert result not in held  # (c)

    # (b) a listed slot in local time (its first occurrence), or the first minute after a listed
    # slot the clocks skipped: between the local times of the minute before and this one.
    local = result.astimezone(zone)
    wall = local.replace(tzinfo=None)
    if (DAYS[wall.weekday()], f"{wall:%H:%M}") in pairs:
        assert local.fold == 0, "the second occurrence of a repeated time"
    else:
        before = (result - timedelta(minutes=1)).astimezone(zone).replace(tzinfo=None)
        skipped = [
            datetime.combine(day, time.fromisoformat(at))
            for day in {before.date(), wall.date()}
            for d, at in pairs
            if DAYS.index(d) == day.weekday()
        ]
        assert any(before < w < wall for w in skipped), f"{wall} is no listed slot nor the end of a gap"

    # (d) the earliest: every slot instant between `after` and it, from the reference, is taken.
    days = (after.astimezone(zone).date() - timedelta(days=2), wall.date() + timedelta(days=1))
    expected = [x for x in reference_instants(zone_name, pairs, *days) if after < x <= result]
    assert expected and expected[-1] == result
    assert all(x in held for x in expected[:-1])
    assert list(itertools.takewhile(lambda x: x <= result, candidates(t, after))) == expected


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(ZONES), st.sets(st.tuples(st.sampled_from(DAYS), TIMES), max_size=30))
def test_storage_round_trip_properties(zone: str, pairs: set[tuple[str, str]]) -> None:
    t = parse_table(zone, [{"day": d, "time": at} for d, at in pairs])
    assert SlotTable.from_json(t.to_json()) == t
    assert parse_table(**t.as_dict()) == t
    assert {(s.day, s.time) for s in t.slots} == pairs
