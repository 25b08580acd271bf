"""The actions of a post group on the posts page (docs/dashboard.md, "Posts"; docs/posts.md, "Post
groups"): every destination of a post canceled ("Cancel post"), rescheduled ("Reschedule"),
approved or rejected ("Approve", "Reject": the destinations that wait for approval, all or nothing;
post_review.py) at once, with the core's group methods and the session's credential. Each form
carries the list it was on (`back`), so its answer, a notice or the refusal in words, is that list
again."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl

from herald.posts.v1 import posts_pb2
from sanic import Request
from sanic.response import HTTPResponse

from facades.errors import ApiError
from facades.web import post_review
from facades.web.local_time import instant
from facades.web.pages import Route, form_value, see_other, signed_in
from facades.web.posts_pages import QUERY_KEYS, Filters, org_zone, posts_page, read_filters
from facades.web.session import Viewer

# What an id of a group looks like (core/ids.py: a prefix and a base32 body). Anything else is a
# group no organization has: the 404 page, without asking the core.
GROUP_ID = re.compile(r"grp_[0-9a-z]{1,64}")
# Refusals of cancel and reschedule shown on the list; anything else (NOT_FOUND: another
# organization's group) is a failure page.
_SHOWN = ("INVALID_POST_STATE", "VALIDATION_ERROR", "SUBSCRIPTION_REQUIRED")


def _checked(group_id: str) -> str:
    if not GROUP_ID.fullmatch(group_id):
        raise ApiError("NOT_FOUND", "no such post group in this organization")
    return group_id


def _back(request: Request) -> Filters:
    """The list the form was on (its `back` field: the list's query), read as the list reads it."""
    sent = dict(parse_qsl(form_value(request, "back")[:2048]))
    return read_filters({name: sent.get(name, "") for name in QUERY_KEYS})


def _with_notice(back: Filters, name: str) -> str:
    path = back.path()
    return f"{path}{'&' if '?' in path else '?'}notice={name}"


@signed_in
async def cancel_group(request: Request, viewer: Viewer, group_id: str) -> HTTPResponse:
    """Cancels every destination of a post group ("Cancel post"); a refusal is shown on the list."""
    core = request.app.ctx.core
    group_id = _checked(group_id)
    back = _back(request)
    try:
        await core.call(
            core.posts.CancelPostGroup,
            posts_pb2.CancelPostGroupRequest(group_id=group_id),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in _SHOWN:
            raise
        return await posts_page(request, viewer, back, status=error.http_status, failure=error)
    return see_other(_with_notice(back, "group-canceled"))


@signed_in
async def reschedule_group(request: Request, viewer: Viewer, group_id: str) -> HTTPResponse:
    """Moves every destination of a post group to the form's "Schedule at", read in the
    organization's time zone; a refusal is shown on the list."""
    core = request.app.ctx.core
    group_id = _checked(group_id)
    back = _back(request)
    try:
        schedule_at = instant(form_value(request, "schedule_at")[:40], org_zone(viewer.time_zone).key)
        await core.call(
            core.posts.ReschedulePostGroup,
            posts_pb2.ReschedulePostGroupRequest(group_id=group_id, schedule_at=schedule_at),
            authorization=viewer.authorization,
        )
    except ApiError as error:
        if error.code not in _SHOWN:
            raise
        return await posts_page(request, viewer, back, status=error.http_status, failure=error)
    return see_other(_with_notice(back, "group-rescheduled"))


@signed_in
async def approve_group(request: Request, viewer: Viewer, group_id: str) -> HTTPResponse:
    """Approves every destination of a post group that waits for approval, with the form's
    comment (and, once their time has passed, a new "Schedule at" or "Publish now"); a refusal is
    shown on the list in the core's words, naming the post that refused."""
    return await _review(request, viewer, group_id, approving=True)


@signed_in
async def reject_group(request: Request, viewer: Viewer, group_id: str) -> HTTPResponse:
    """Rejects every destination of a post group that waits for approval, with the form's
    comment: each is a draft again."""
    return await _review(request, viewer, group_id, approving=False)


async def _review(request: Request, viewer: Viewer, group_id: str, *, approving: bool) -> HTTPResponse:
    group_id = _checked(group_id)
    back = _back(request)
    form = request.form or {}
    typed = {
        "group": group_id,
        "comment": (form.get("comment") or "")[:4000],
        "schedule_at": (form.get("schedule_at") or "")[:40],
    }
    try:
        choice = post_review.decision(form, org_zone(viewer.time_zone).key)
        if approving:
            await post_review.approve_group(request, viewer.authorization, group_id, choice)
        else:
            await post_review.reject_group(request, viewer.authorization, group_id, choice)
    except ApiError as error:
        if not post_review.shown(error):
            raise
        refused = post_review.refusal(error)
        typed["late"] = "true" if refused["late"] else ""
        failure = ApiError(error.code, refused["words"], error.metadata)
        return await posts_page(request, viewer, back, status=error.http_status, failure=failure, typed=typed)
    return see_other(_with_notice(back, "group-approved" if approving else "group-rejected"))


ROUTES = (
    Route("POST", "/dashboard/post-groups/<group_id:str>/cancel", cancel_group),
    Route("POST", "/dashboard/post-groups/<group_id:str>/reschedule", reschedule_group),
    Route("POST", "/dashboard/post-groups/<group_id:str>/approve", approve_group),
    Route("POST", "/dashboard/post-groups/<group_id:str>/reject", reject_group),
)
