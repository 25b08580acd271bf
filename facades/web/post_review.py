"""Reviewing posts that wait for approval, as every dashboard page that offers it does (docs/teams.md,
"Approvals"; docs/dashboard.md, "Approvals"): the post page, the calendar's "Review" dialog, the
posts page's groups and the overview.

The core decides everything. Whether the signed-in member may review is their role's `approve`
permission by the core's catalog, their role the session's principal's (as the members page
reads it): a member who may not sees the buttons disabled, with this reason. A review is one
call (ApprovePost, RejectPost, or the group's) with the session's credential; what the core refuses
(FORBIDDEN for one's own post without self-approval, INVALID_POST_STATE when someone else reviewed
it first, VALIDATION_ERROR when its time passed while it waited) comes back in its words. Only the
last one asks something of the reviewer: approve with a new time, or publish now."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from herald.posts.v1 import posts_pb2
from sanic import Request

from facades.errors import ApiError
from facades.web.local_time import instant
from facades.web.members_pages import in_words
from facades.web.pages import when
from facades.web.session import Viewer

APPROVE = "approve"  # the permission a review needs (the core's catalog says which roles carry it)
PENDING = "pending_approval"
MAX_COMMENT = 2000  # core/posts/approvals.py MAX_COMMENT: the textarea's maxlength
# What a review says on the post's page after it (`?notice=`): a fixed table, as pages.NOTICES.
NOTICES = {
    "post-approved": "The post is approved: it is scheduled at its time.",
    "post-approved-queued": "The post is approved: it goes out in a moment.",
    "post-rejected": "The post is rejected: it is a draft again, with your review.",
}
# The core's refusals a reviewer reads on the page; NOT_FOUND (another organization's post) and
# UNAUTHORIZED are the failure page and the sign-in page, as for every other action.
_NOT_SHOWN = ("NOT_FOUND", "UNAUTHORIZED")
VIA = {"dashboard": "the dashboard", "api_key": "an API key", "agent": "an agent (OAuth)"}


@dataclass(frozen=True, slots=True)
class Reviewer:
    """Whether the signed-in member may approve and reject, and when not, why (the buttons'
    description)."""

    allowed: bool
    why: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    """What a review form sends: the comment, and for an approval a new time (read in the zone
    shown beside it) or "publish now"."""

    comment: str
    schedule_at: str | None = None
    publish_now: bool = False


async def roles_with(request: Request, permission: str) -> list[str]:
    """The roles carrying `permission`, best first, by the core's catalog."""
    catalog = (await request.app.ctx.contract.get()).catalog.message
    return [r.name for r in catalog.roles if permission in r.permissions]


async def reviewer(request: Request, viewer: Viewer) -> Reviewer:
    """The signed-in member's right to review, by their role (the session's principal carries
    it: no call of its own) and the core's catalog of roles."""
    role = viewer.principal.role
    approvers = await roles_with(request, APPROVE)
    if role in approvers:
        return Reviewer(True)
    return Reviewer(False, f"Your role ({role or 'none'}) cannot approve or reject posts: {listed(approvers)} can.")


def listed(names: list[str]) -> str:
    """Roles in words: "owners, admins and editors"."""
    plural = [f"{n}s" for n in names]
    return ", ".join(plural[:-1]) + f" and {plural[-1]}" if len(plural) > 1 else "".join(plural) or "no role"


def decision(form: Any, zone: str) -> Decision:
    """A review form read (a Sanic form: `comment`, `schedule_at` as a datetime-local value in
    `zone`, `publish_now`); a malformed time is VALIDATION_ERROR naming `schedule_at`."""
    comment = (form or {}).get("comment") or ""  # the core bounds it (and says by how much)
    local = ((form or {}).get("schedule_at") or "").strip()[:40]
    publish_now = ((form or {}).get("publish_now") or "") == "true"
    return Decision(comment, instant(local, zone) if local and not publish_now else None, publish_now)


async def approve(request: Request, authorization: str, post_id: str, choice: Decision) -> posts_pb2.Post:
    core = request.app.ctx.core
    message = posts_pb2.ApprovePostRequest(
        post_id=post_id, comment=choice.comment, schedule_at=choice.schedule_at, publish_now=choice.publish_now
    )
    return (await core.call(core.posts.ApprovePost, message, authorization=authorization)).response


async def reject(request: Request, authorization: str, post_id: str, choice: Decision) -> posts_pb2.Post:
    core = request.app.ctx.core
    message = posts_pb2.RejectPostRequest(post_id=post_id, comment=choice.comment)
    return (await core.call(core.posts.RejectPost, message, authorization=authorization)).response


async def approve_group(request: Request, authorization: str, group_id: str, choice: Decision) -> None:
    core = request.app.ctx.core
    message = posts_pb2.ApprovePostGroupRequest(
        group_id=group_id, comment=choice.comment, schedule_at=choice.schedule_at, publish_now=choice.publish_now
    )
    await core.call(core.posts.ApprovePostGroup, message, authorization=authorization)


async def reject_group(request: Request, authorization: str, group_id: str, choice: Decision) -> None:
    core = request.app.ctx.core
    message = posts_pb2.RejectPostGroupRequest(group_id=group_id, comment=choice.comment)
    await core.call(core.posts.RejectPostGroup, message, authorization=authorization)


def shown(error: ApiError) -> bool:
    """Whether a review's refusal is shown where the review was asked (else: the failure page)."""
    return error.code not in _NOT_SHOWN and error.http_status < 500


def late(error: ApiError) -> bool:
    """A refusal about the send time (it passed while the post waited, or the new one is wrong):
    the form then asks for a new time, or "Publish now"."""
    return error.code == "VALIDATION_ERROR" and error.argument == "schedule_at"


def refusal(error: ApiError) -> dict[str, Any]:
    """A review's refusal as a page shows it: the core's words, and what to do about it."""
    words = in_words(error)
    if error.code == "INVALID_POST_STATE":
        words += " Someone else may have reviewed it first: the page shows the post as it is now."
    return {"code": error.code, "words": words, "late": late(error)}


def approved_notice(post: posts_pb2.Post) -> str:
    return "post-approved-queued" if post.status == posts_pb2.POST_STATUS_QUEUED else "post-approved"


def review_of(post: posts_pb2.Post, zone: str) -> dict[str, str] | None:
    """The post's last review as pages show it (outcome, reviewer, time in the organization's
    zone, comment), or None for a post never reviewed."""
    if not post.HasField("review"):
        return None
    review = post.review
    return {
        "outcome": review.outcome,
        "reviewer": review.reviewer_email or review.reviewer_id,
        "at": when(review.review_time, zone, ""),
        "comment": review.comment,
    }


def own(post: posts_pb2.Post, viewer: Viewer) -> bool:
    """Whether the signed-in member wrote the post themselves (not through an agent): a post
    another approver reviews unless the organization allows self-approval."""
    return post.author_id == viewer.principal.user_id and post.author_via != "agent"
