"""A post's history as its page shows it (docs/dashboard.md, "Post detail"): each step the core
recorded (PostService.ListPostEvents; docs/posts.md, "History"), oldest first, in words, at its
time in the organization's zone."""

from __future__ import annotations

from typing import Any

from herald.posts.v1 import posts_pb2
from sanic import Request

from facades.web.pages import when
from facades.web.session import Viewer

# Steps shown on the page at most (one page of the core's); the API pages through the rest.
SHOWN = 100
TITLES = {
    "created": "Created",
    "edited": "Edited",
    "rescheduled": "Rescheduled",
    "scheduled": "Taken out of draft",
    "canceled": "Canceled",
    "retried": "Retried",
    "claimed": "Delivery attempt started",
    "attempt_failed": "Delivery attempt failed",
    "part_published": "Part published",
    "part_failed": "Part failed",
    "published": "Published",
    "partially_published": "Partly published",
    "failed": "Failed",
    "approval_requested": "Sent back for approval",
    "approved": "Approved",
    "rejected": "Rejected",
}
# An attempt's error class (core/connectors/base.py ErrorClass), in words.
ERROR_CLASSES = {
    "retryable": "a temporary error",
    "uncertain": "no answer after the request was sent (the next attempt looks the post up before sending)",
    "permanent": "the platform refused it",
    "needs_reauth": "the account's access has ended: connect it again",
}
FIELD_NAMES = {
    "content": "text",
    "schedule_at": "send time",
    "media_ids": "media",
    "thread": "thread",
    "first_comment": "first comment",
    "language": "language",
    "tiktok": "TikTok settings",
}


async def post_history(request: Request, viewer: Viewer, post_id: str) -> tuple[list[dict[str, str]], bool]:
    """The post's steps as the page shows them, and whether there are more than it shows."""
    core = request.app.ctx.core
    found = await core.call(
        core.posts.ListPostEvents,
        posts_pb2.ListPostEventsRequest(post_id=post_id, page_size=SHOWN),
        authorization=viewer.authorization,
    )
    events = found.response
    return [step(e, viewer.time_zone) for e in events.events], bool(events.next_page_token)


def _part(e: posts_pb2.PostEvent) -> str:
    if e.part == "first_comment":
        return "the first comment"
    return f"thread item {e.position + 1}" if e.part == "thread" else ""


def _status(e: posts_pb2.PostEvent, zone: str) -> str:
    """Where the post stands after a change: a draft, scheduled at its time, or going out now."""
    if e.status == "draft":
        return "a draft" + (f" for {when(e.schedule_time, zone, '')}" if e.HasField("schedule_time") else "")
    if e.status == "queued":
        return "queued to go out now"
    if e.status == "pending_approval":
        return "waiting for approval" + (
            f", for {when(e.schedule_time, zone, '')}" if e.HasField("schedule_time") else ""
        )
    if e.HasField("schedule_time"):
        return f"scheduled for {when(e.schedule_time, zone, '')}"
    return e.status


def _detail(e: posts_pb2.PostEvent, zone: str) -> str:
    """What the step's facts say, as a sentence's end ("" when nothing more)."""
    kind, part = e.kind, _part(e)
    if kind in ("created", "scheduled"):
        return _status(e, zone)
    if kind == "edited":
        changed = ", ".join(FIELD_NAMES.get(f, f) for f in e.fields)
        moved = f"; now {_status(e, zone)}" if e.HasField("schedule_time") else ""
        return f"changed its {changed}{moved}"
    if kind == "rescheduled":
        if e.HasField("status"):
            return f"now {_status(e, zone)}"
        return f"to {when(e.schedule_time, zone, '')}" if e.HasField("schedule_time") else ""
    if kind == "approval_requested":
        return "an edit by someone whose posts need approval: it waits for a person again"
    if kind in ("approved", "rejected"):
        said = f"“{e.comment}”" if e.HasField("comment") else "no comment"
        return said + (f"; now {_status(e, zone)}" if e.HasField("status") else "")
    if kind == "retried":
        return f"put back in the queue after it failed ({e.reason})" if e.reason else "put back in the queue"
    if kind == "claimed":
        text = f"attempt {e.attempt}"
        if e.recovered:
            text += ", after the previous worker stopped holding it (the delivery is looked up first)"
        return text
    if kind == "attempt_failed":
        text = f"attempt {e.attempt}" + (f", {part}" if part else "")
        text += f": {ERROR_CLASSES.get(e.reason, e.reason)}"
        text += f" ({e.error})" if e.error else ""
        if e.will_retry:
            return text + f"; tried again from {when(e.next_attempt_time, zone, 'now')}"
        return text + "; not tried again"
    if kind in ("part_published", "part_failed"):
        text = part[:1].upper() + part[1:]
        if kind == "part_failed":
            text += f": {e.reason}" + (f" ({e.error})" if e.error else "")
        return text
    if kind == "published":
        return f"attempt {e.attempt}" if e.HasField("attempt") else ""
    if kind in ("partially_published", "failed"):
        return e.reason + (f": {e.error}" if e.error else "")
    return ""


def step(e: posts_pb2.PostEvent, zone: str) -> dict[str, Any]:
    """One step as the page lists it: the kind in words, its time, what it says."""
    return {
        "kind": e.kind,
        "title": TITLES.get(e.kind, e.kind),
        "at": when(e.event_time, zone, ""),
        "detail": _detail(e, zone),
        "platform_post_id": e.platform_post_id,
        "request_id": e.request_id,
    }
