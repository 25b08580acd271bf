"""core/rpc/convert.timestamp computes what protobuf's Timestamp.FromDatetime does, faster: for
any instant (before or after 1970, any offset, or naive taken as UTC). Pure."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from google.protobuf.timestamp_pb2 import Timestamp
from hypothesis import given
from hypothesis import strategies as st

from core.rpc.convert import timestamp

_OFFSETS = st.integers(min_value=-14 * 60, max_value=14 * 60).map(lambda m: timezone(timedelta(minutes=m)))


def _reference(value: datetime) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(value)
    return ts


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=_OFFSETS))
def test_an_aware_instant_is_the_same_timestamp(value: datetime) -> None:
    assert timestamp(value) == _reference(value)


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)))
def test_a_naive_datetime_is_taken_as_utc(value: datetime) -> None:
    assert timestamp(value) == _reference(value) == timestamp(value.replace(tzinfo=UTC))


def test_none_is_no_timestamp() -> None:
    assert timestamp(None) is None
