"""The exact /v1 JSON shapes of Herald's resources, rendered from core messages."""

from __future__ import annotations

from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from herald.credits.v1 import credits_pb2
from herald.identity.v1 import identity_pb2
from herald.profiles.v1 import profiles_pb2

PLAN_NAMES = {
    identity_pb2.PLAN_ACTIVE: "active",
    identity_pb2.PLAN_TRIALING: "trialing",
    identity_pb2.PLAN_NONE: "none",
}


def timestamp(value: Timestamp, present: bool = True) -> str | None:
    """ISO 8601 in UTC with milliseconds: `2026-11-22T03:39:26.123Z`."""
    if not present:
        return None
    dt = value.ToDatetime()
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def profile(p: profiles_pb2.Profile) -> dict[str, Any]:
    return {
        "id": p.id,
        "slug": p.slug,
        "connector": p.connector,
        "display_name": p.display_name,
        "tags": list(p.tags),
        "created_at": timestamp(p.create_time),
    }


def ledger_entry(e: credits_pb2.LedgerEntry) -> dict[str, Any]:
    return {
        "id": e.id,
        "delta": e.delta,
        "balance_after": e.balance_after,
        "reason": e.reason,
        "reference": e.reference,
        "created_at": timestamp(e.create_time),
    }


def credit_account(a: credits_pb2.CreditAccount) -> dict[str, Any]:
    return {
        "organization": a.organization,
        "balance": a.balance,
        "plan": PLAN_NAMES.get(a.plan, "none"),
        "low_credit_threshold": a.low_credit_threshold,
        "ledger": [ledger_entry(e) for e in a.recent_entries],
    }
