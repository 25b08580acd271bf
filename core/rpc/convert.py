"""Small domain-to-proto conversions shared by the servicers."""

from __future__ import annotations

from datetime import datetime

from google.protobuf.timestamp_pb2 import Timestamp
from herald.identity.v1 import identity_pb2

PLAN_TO_PROTO = {
    "active": identity_pb2.PLAN_ACTIVE,
    "trialing": identity_pb2.PLAN_TRIALING,
    "none": identity_pb2.PLAN_NONE,
}


def timestamp(value: datetime | None) -> Timestamp | None:
    if value is None:
        return None
    ts = Timestamp()
    ts.FromDatetime(value)
    return ts
