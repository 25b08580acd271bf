"""The exact /v1 JSON shapes of Herald's resources, rendered from core messages."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from herald.credits.v1 import credits_pb2
from herald.identity.v1 import identity_pb2
from herald.media.v1 import media_pb2
from herald.posts.v1 import posts_pb2
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


POST_STATUS_NAMES = {
    posts_pb2.POST_STATUS_SCHEDULED: "scheduled",
    posts_pb2.POST_STATUS_QUEUED: "queued",
    posts_pb2.POST_STATUS_PUBLISHING: "publishing",
    posts_pb2.POST_STATUS_PUBLISHED: "published",
    posts_pb2.POST_STATUS_FAILED: "failed",
    posts_pb2.POST_STATUS_CANCELED: "canceled",
}


def post(p: posts_pb2.Post) -> dict[str, Any]:
    """SPEC 2's Post, plus the lifecycle fields SPEC leaves open (docs/posts.md)."""
    return {
        "id": p.id,
        "profile": p.profile,
        "connector": p.connector,
        "content": p.content,
        "status": POST_STATUS_NAMES[p.status],
        "schedule_at": timestamp(p.schedule_time),
        "created_at": timestamp(p.create_time),
        "media_ids": list(p.media_ids),
        "post_type": p.post_type,
        "title": p.title if p.HasField("title") else None,
        "failure_reason": p.failure_reason or None,
        "platform_error": p.platform_error or None,
        "platform_post_id": p.platform_post_id or None,
        "url": p.platform_url or None,
        "published_at": timestamp(p.publish_time, p.HasField("publish_time")),
        "attempts": p.attempts,
        "updated_at": timestamp(p.update_time),
    }


def outbox_entry(e: posts_pb2.OutboxEntry) -> dict[str, Any]:
    return {
        "id": e.id,
        "post_id": e.post_id,
        "connector": e.connector,
        "mode": e.mode,
        "requests": json.loads(e.requests_json),
        "platform_post_id": e.platform_post_id,
        "url": e.platform_url,
        "created_at": timestamp(e.create_time),
    }


def media(m: media_pb2.Media) -> dict[str, Any]:
    """SPEC 2's media record, plus status, content_hash and image dimensions (docs/media.md)."""
    return {
        "media_id": m.media_id,
        "type": m.type,
        "mime_type": m.mime_type,
        "size_bytes": m.size_bytes,
        "name": m.name,
        "description": m.description,
        "tags": m.tags,
        "created_at": timestamp(m.create_time),
        "status": m.status,
        "content_hash": m.content_hash or None,
        "width": m.width or None,
        "height": m.height or None,
    }
